// The panel beside the board: the match's title, the status line (whose turn, what to play), the
// piece to place, the position's facts, the move list, the server's notices, and the position,
// record links and seed under "Position and record".

import { pieceIcon } from "./board.js";
import { el, numbered, pieceLabel, recordName, sayKinds, title } from "./ui.js";

export function renderSide(page) {
  const { match, view } = page;
  const snap = match.snap;
  const players = snap.players.map((p) => (p.human ? "human" : p.spec)).join(" against ");
  view.title.textContent = `${snap.game.title}${snap.games_in_match > 1 ? ` — game ${snap.game_number}` : ""}`;
  view.title.title = `${snap.game.spec}: ${players}`;
  view.status.textContent = statusText(match);
  renderToPlace(page);
  view.facts.replaceChildren(...snap.position.facts.map((fact) => el("li", {}, fact)));
  renderMoves(page);
  view.notices.replaceChildren(...snap.notices.slice(-5).map((notice) => el("li", {}, notice)));
  view.position.textContent = snap.position.position;
  view.links.replaceChildren(...recordLinks(page));
  view.seed.textContent = seedText(snap);
}

// What the match is doing, in a line.
export function statusText(match) {
  const snap = match.snap;
  if (snap.status === "finished") return "The match is over.";
  if (snap.status === "stopped") return "The match was stopped before its end; its record is kept.";
  if (snap.status === "failed") return `The match stopped: ${snap.error}`;
  if (snap.status === "between games") return `Game ${snap.game_number} is over.`;
  if (snap.awaiting !== null) return yourTurnText(match);
  if (snap.thinking !== null) {
    const player = snap.players[snap.thinking - 1];
    return player.human ? `Player ${player.number} to move` : `${player.spec} (player ${player.number}) is thinking…`;
  }
  return snap.status === "starting" ? "Starting…" : "";
}

// "Your move (Order): goal — a move or a pass" for a move awaited at this page.
function yourTurnText(match) {
  const snap = match.snap;
  const player = snap.players[snap.awaiting - 1];
  const who = match.people() === 1 ? "Your move" : `Player ${player.number} to move`;
  const role = title(snap.position.to_move);
  return `${who} (${role})${snap.goal ? `: ${snap.goal}` : ""}${snap.kinds.length ? ` — ${sayKinds(snap.kinds)}` : ""}`;
}

// "To place: (piece)" when every move with squares puts down one and the same piece.
function renderToPlace(page) {
  const { match, view } = page;
  const colours = match.snap.game.colours;
  const legal = match.legal();
  const drops = legal.filter((m) => m.squares.length === 1 && m.piece);
  const pieces = [...new Set(drops.map((m) => m.piece))];
  if (pieces.length === 1 && drops.length === legal.filter((m) => m.squares.length).length) {
    const label = pieceLabel(pieces[0], colours);
    view.toPlace.replaceChildren(el("span", {}, "To place:"), pieceIcon(pieces[0], colours, label), el("span", {}, label));
    view.toPlace.hidden = false;
  } else {
    view.toPlace.hidden = true;
  }
}

// The moves numbered by turns, a move made for a player out of time starred; the last in view.
function renderMoves(page) {
  const { snap } = page.match;
  const items = numbered(snap.plies, snap.game.roles[0]).map((item) => {
    const text = item.plies.map((i) => snap.plies[i].move + (snap.plies[i].auto ? "*" : "")).join(" ");
    return el("li", { value: item.number }, `${item.gap ? "… " : ""}${text}`);
  });
  page.view.moves.replaceChildren(...items);
  page.view.moves.scrollTop = page.view.moves.scrollHeight;
}

// The record to download and, once the match is over and saved, to replay.
function recordLinks(page) {
  const { match } = page;
  const links = [el("a", { href: `/api/games/${match.id}/record`, download: "" }, "Download the record")];
  const name = recordName(match.snap.saved);
  if (name && match.over()) links.push(" · ", replayLink(name));
  return links;
}

export function replayLink(name) {
  return el("a", { href: `#/replay/${encodeURIComponent(name)}` }, "Replay it");
}

function seedText(snap) {
  const clock = snap.clock ? `, clock ${snap.clock.seconds}+${snap.clock.increment}` : "";
  return `${snap.game.spec}, seed ${snap.seed}${clock}${snap.saved ? `; saved as ${snap.saved}` : ""}`;
}
