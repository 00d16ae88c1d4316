// A match's traffic with the server: what the page asks of it (a move, a hint, undo, resign, the
// next game, a stop) and its snapshots followed live (follow in api.js reconnects; this says when the
// server was lost, when it answers again, and when the match is gone).

import { api, follow } from "./api.js";

// The POST calls on the match `id`, each a promise of the server's answer.
export function matchCalls(id) {
  const post = (action, body = {}) => api(`/api/games/${id}/${action}`, { method: "POST", body });
  return {
    move: (text) => post("move", { move: text }),
    hint: () => post("hint"),
    undo: () => post("undo"),
    resign: () => post("resign"),
    proceed: () => post("continue"),
    stop: () => post("stop"),
  };
}

// Follow the match's snapshots: onSnapshot(data) for each; onLost(error) when the server stops
// answering (or no longer lets this page in: a new token) and onBack() before the first snapshot
// after that; onGone(error) for no such match.
// Returns the subscription ({close()}).
export function followMatch(id, handlers) {
  return followAt(`/api/games/${id}`, handlers);
}

function followAt(path, { onSnapshot, onLost, onBack, onGone }, options = {}) {
  let lost = false;
  return follow(
    path,
    (data) => {
      if (lost) {
        lost = false;
        onBack();
      }
      onSnapshot(data);
    },
    (error) => {
      if (error.status === 0 || error.status === 401 || error.status === 403) {
        lost = true;
        onLost(error);
      }
      if (error.status === 404) onGone(error);
    },
    options,
  );
}

// The calls of an online game: each action carries the seat's secret (a header, never in an
// address) and the ply it was made at, so a move sent twice is played once. Undo asks the
// opponent to agree to take back this seat's last move (a server's bot agrees at once).
export function onlineCalls(id, secret, page) {
  const post = (action, body = {}) => api(`/api/online/${id}/${action}`, { method: "POST", body, headers: { "X-Seat": secret } });
  const none = () => Promise.reject(new Error("not in a game between people"));
  return {
    move: (text) => post("move", { move: text, ply: page.match.snap.ply }),
    resign: () => post("resign", {}),
    undo: () => post("takeback", { ply: page.match.snap.ply }),
    answerTakeback: (accept) => post("takeback/answer", { ply: page.match.snap.ply, accept }),
    claim: () => post("claim", { ply: page.match.snap.ply }),
    askExtension: (days) => post("extension", { ply: page.match.snap.ply, days }),
    answerExtension: (accept) => post("extension/answer", { ply: page.match.snap.ply, accept }),
    hint: none,
    proceed: none,
    stop: none,
  };
}

// Follow an online game as the seat of `secret` (a watcher without one).
export function followOnline(id, secret, handlers, onMode = () => {}) {
  return followAt(`/api/online/${id}`, handlers, { hello: { secret: secret || null }, headers: secret ? { "X-Seat": secret } : {}, onMode });
}
