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
// pushes each change; if the socket cannot be opened, the page asks every second instead, and
// tries the socket again now and then (every 2 s, then up to every 10 s), so that it is back on
// it soon after the server is.
// `hello`, if given, is the socket's first message (an online game's seat secret) and `headers`
// go with each request instead; `onMode("live")` is called when a socket opens, and
// `onMode("polling")` when it closes (the page then asks, and tries the socket again).
export function follow(path, onData, onError = () => {}, { hello = null, headers = {}, onMode = () => {} } = {}) {
  let closed = false;
  let socket = null;
  let failures = 0; // sockets that did not open, in a row
  let retryAt = 0; // after a few of them, when to try a socket again (polling meanwhile)
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
    const socketAgain = failures <= 3 || Date.now() >= retryAt;
    if (!closed) timer = setTimeout(socketAgain ? connect : poll, 1000);
  }

  function failed() {
    failures += 1;
    if (failures > 3) retryAt = Date.now() + Math.min(10000, 1000 * 2 ** (failures - 3));
  }

  function connect() {
    timer = null;
    if (closed) return;
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    let opened = false;
    try {
      socket = new WebSocket(`${scheme}//${location.host}${path}/ws`);
    } catch (error) {
      failed();
      poll();
      return;
    }
    socket.onopen = () => {
      opened = true;
      failures = 0;
      onMode("live");
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
      if (!opened) failed();
      onMode("polling");
      poll(); // the state now, then the socket again (after repeated failures, polling a while)
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
