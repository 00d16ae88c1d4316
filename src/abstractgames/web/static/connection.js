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
export function followMatch(id, { onSnapshot, onLost, onBack, onGone }) {
  let lost = false;
  return follow(
    `/api/games/${id}`,
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
  );
}
