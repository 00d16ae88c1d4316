// The players' cards above the board: each player's role and who plays it, whether a bot is
// thinking, and the player's clock, which counts down between snapshots.

import { el, formatClock, playerName, title } from "./ui.js";

const LOW = 10; // seconds left under which a clock shows as low

export function renderCards(page) {
  const { match } = page;
  page.view.cards.replaceChildren(...match.snap.players.map((player) => playerCard(match, player)));
}

function playerCard(match, player) {
  const snap = match.snap;
  const won = snap.result && snap.result.winner === player.number;
  const classes = `card${snap.to_move === player.number ? " to-move" : ""}${won ? " winner" : ""}`;
  const card = el(
    "div",
    { className: classes, "data-player": player.number },
    el("div", { className: "who" },
      el("div", {}, el("span", { className: "role" }, title(player.role) || `Player ${player.number}`), ` · player ${player.number}`),
      el("div", { className: "spec" }, whoPlays(match, player), snap.thinking === player.number && !player.human ? el("span", { className: "thinking" }, " · thinking…") : null)),
  );
  if (won) card.append(el("div", { className: "won" }, "won"));
  const left = match.clockOf(player.number);
  if (left !== null) card.append(el("div", { className: `clock${left < LOW ? " low" : ""}`, "data-player": player.number }, formatClock(left)));
  return card;
}

function whoPlays(match, player) {
  return playerName(player, match.people());
}

// Bring the clocks shown up to now (called ten times a second).
export function tickClocks(page) {
  const { match } = page;
  if (!match.snap || !match.snap.clocks) return;
  for (const clock of page.view.cards.querySelectorAll(".clock")) {
    const left = match.clockOf(Number(clock.dataset.player));
    if (left === null) continue;
    clock.textContent = formatClock(left);
    clock.classList.toggle("low", left < LOW);
  }
}
