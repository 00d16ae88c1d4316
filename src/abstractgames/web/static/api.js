// Talking to the server: JSON requests, and live updates by WebSocket (polling if that fails).
// The server's token travels in a cookie (HttpOnly: no script here reads it), set when the page
// was first opened at the address with ?token= that abstractgames serve printed; a 401 or 403
// means this page no longer has it (the server was started again, with a new one).

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

export async function api(path, { method = "GET", body, headers = {} } = {}) {
  const options = { method, headers: { Accept: "application/json", ...headers } };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, options);
  } catch (error) {
    throw new ApiError(0, "the server does not answer (is abstractgames serve still running?)");
  }
  let data = null;
  try {
    data = await response.json();
  } catch (error) {
    data = null;
  }
  if (!response.ok) {
    const message = data && typeof data.error === "string" ? data.error : `${response.status} ${response.statusText}`;
    throw new ApiError(response.status, message);
  }
  return data;
}

// Call onData with the resource at `path` now and at every change: its WebSocket (`path/ws`)
// pushes each change; if the socket cannot be opened, the page asks every second instead.
// `hello`, if given, is the socket's first message (an online game's seat secret) and `headers`
// go with each request instead.
export function follow(path, onData, onError = () => {}, { hello = null, headers = {} } = {}) {
  let closed = false;
  let socket = null;
  let failures = 0;
  let timer = null;

  async function poll() {
    timer = null;
    if (closed) return;
    try {
      onData(await api(path, { headers }));
    } catch (error) {
      onError(error);
      if (error.status === 404 || error.status === 401 || error.status === 403) return;
    }
    if (!closed) timer = setTimeout(failures > 3 ? poll : connect, 1000);
  }

  function connect() {
    timer = null;
    if (closed) return;
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    let opened = false;
    try {
      socket = new WebSocket(`${scheme}//${location.host}${path}/ws`);
    } catch (error) {
      failures += 1;
      poll();
      return;
    }
    socket.onopen = () => {
      opened = true;
      failures = 0;
      if (hello !== null) socket.send(JSON.stringify(hello));
    };
    socket.onmessage = (event) => {
      try {
        onData(JSON.parse(event.data));
      } catch (error) {
        onError(error);
      }
    };
    socket.onclose = () => {
      socket = null;
      if (closed) return;
      if (!opened) failures += 1;
      poll(); // the state now, then the socket again (or polling after repeated failures)
    };
  }

  connect();
  return {
    close() {
      closed = true;
      if (timer !== null) clearTimeout(timer);
      if (socket !== null) socket.close();
    },
  };
}
