// What a person asks for besides pressing squares: a typed move or command (hint, undo, resign,
// moves), the buttons under the board, the next game of a match, the stop of a match of bots. Each goes to the server and the
// message line under the board says how it went (a hint also marks its squares on the board).
//
// `page` is the match view play.js puts together: {match, view (its elements), calls, board, render()}.

import { hideChooser } from "./chooser.js";
import { confirmDialog, el, title } from "./ui.js";

export function say(page, text, kind = "") {
  page.view.message.textContent = text;
  page.view.message.className = `message ${kind}`;
}

export async function sendMove(page, text) {
  hideChooser(page.view.chooser);
  try {
    await page.calls.move(text);
    say(page, "");
    page.view.input.value = "";
    page.match.forgetPicks();
  } catch (error) {
    say(page, error.status === 400 ? `not played: ${error.message}` : error.message, "error");
  }
}

export async function askHint(page) {
  page.view.input.value = "";
  say(page, "the search bot is thinking…");
  try {
    const answer = await page.calls.hint();
    page.match.hint = answer.squares;
    say(page, hintText(answer), "info");
    page.render();
  } catch (error) {
    say(page, error.message, "error");
  }
}

// The hint's move, and the search's own summary after it when the server sends one.
export function hintText(answer) {
  const summary = typeof answer.summary === "string" ? answer.summary.trim() : "";
  return `hint: the search bot would play ${answer.move}${summary ? ` (${summary})` : ""} — a learning aid; nothing is recorded`;
}

async function askUndo(page) {
  page.view.input.value = "";
  try {
    const answer = await page.calls.undo();
    const asked = answer && answer.taken_back === false;
    say(page, asked ? "asked your opponent to agree to take back your last move" : "", asked ? "info" : "");
  } catch (error) {
    say(page, error.message, "error");
  }
}

async function askResign(page) {
  page.view.input.value = "";
  const snap = page.match.snap;
  const multi = snap && snap.games_in_match > 1 && !snap.result;
  const ok = await confirmDialog(
    multi ? "Resign the whole match?" : "Resign this game?",
    multi ? "Resigning loses the match at once, whatever the score." : "Your opponent wins the game.",
    "Resign",
  );
  if (!ok) return;
  try {
    await page.calls.resign();
  } catch (error) {
    say(page, error.message, "error");
  }
}

// Stop a match between bots (the server interrupts the bot that thinks; the record is kept).
async function askStop(page) {
  page.view.stop.disabled = true;
  say(page, "stopping the match…");
  try {
    await page.calls.stop();
    say(page, "");
  } catch (error) {
    say(page, error.message, "error");
    page.view.stop.disabled = false;
  }
}

// Start the next game of the match (`button` is the one pressed: disabled until it fails).
export async function startNextGame(page, button) {
  button.disabled = true;
  try {
    await page.calls.proceed();
  } catch (error) {
    say(page, error.message, "error");
    button.disabled = false;
  }
}

function sayLegalMoves(page) {
  const legal = page.match.legal();
  say(page, `${legal.length} legal moves: ${legal.map((m) => m.move).join(" ")}`, "info");
}

const TYPED = new Map([["hint", askHint], ["undo", askUndo], ["resign", askResign], ["moves", sayLegalMoves]]);

// The text of the move box: one of the commands above, or else a move.
function submitTyped(page) {
  const text = page.view.input.value.trim();
  if (!text) return;
  const command = TYPED.get(text.toLowerCase());
  if (command) command(page);
  else sendMove(page, text);
}

export function listenToCommands(page) {
  const { view } = page;
  view.form.addEventListener("submit", (event) => {
    event.preventDefault();
    submitTyped(page);
  });
  view.hint.addEventListener("click", () => askHint(page));
  view.undo.addEventListener("click", () => askUndo(page));
  view.resign.addEventListener("click", () => askResign(page));
  view.stop.addEventListener("click", () => askStop(page));
}

// Show the move box and the buttons to people at the page while the match runs; enable what can
// be done now; a button for each move without squares (pass); the focus to the move box when a
// new turn comes with a mouse at hand and the focus nowhere else.
export function renderControls(page) {
  const { match, view } = page;
  const mine = match.myTurn();
  const hidden = !match.snap.players.some((p) => p.human) || match.over();
  view.form.hidden = hidden;
  view.input.disabled = !mine;
  view.input.placeholder = moveExample(match);
  view.form.querySelector("button").disabled = !mine;
  const online = Boolean(match.snap.online);
  view.hint.hidden = hidden || online;
  view.hint.disabled = !mine;
  view.undo.hidden = hidden || (online ? match.snap.you === null : match.people() !== 1);
  view.undo.textContent = online ? "Take back" : "Undo";
  view.undo.disabled = online ? !match.snap.can_take_back : !match.snap.can_undo;
  view.resign.hidden = hidden;
  view.stop.hidden = online || match.snap.players.some((p) => p.human) || match.over();
  renderFreeMoves(page);
  renderOffer(page);
  if (match.newTurn() && matchMedia("(pointer: fine)").matches && document.activeElement === document.body) {
    view.input.focus();
  }
}

// An online game's open request (to take back a move, or for more days for one): its seat may
// withdraw it, the other seat accept or decline it, and watchers see that it is open. Without
// one: the seat to move in a correspondence game may ask for more days, and in a game without a
// clock the other seat may claim the match once its opponent has not moved for days.
function renderOffer(page) {
  const { snap } = page.match;
  const offer = snap.online && !page.match.over() ? snap.offer : null;
  const act = (call) => async () => {
    try {
      await call();
      say(page, "");
    } catch (error) {
      say(page, error.message, "error");
    }
  };
  if (!offer) {
    const own = snap.online && !page.match.over() && snap.you !== null ? ownActions(page, snap, act) : [];
    page.view.offer.hidden = !own.length;
    page.view.offer.replaceChildren(...own);
    return;
  }
  page.view.offer.hidden = false;
  if (offer.kind === "extension") {
    const days = `${offer.days} more day${offer.days === 1 ? "" : "s"}`;
    const give = (text, className, accept) => el("button", { type: "button", className, onclick: act(() => page.calls.answerExtension(accept)) }, text);
    if (snap.you === offer.seat) page.view.offer.replaceChildren(`You asked for ${days} for this move. `, give("Withdraw", "withdraw-extension", false));
    else if (snap.you !== null) page.view.offer.replaceChildren(`Your opponent asks for ${days} for their move. `, give("Give them", "accept-extension", true), " ", give("Refuse", "decline-extension", false));
    else page.view.offer.replaceChildren(`Player ${offer.seat} asks for ${days} for their move.`);
    return;
  }
  const answer = (accept) => act(() => page.calls.answerTakeback(accept));
  const reply = snap.thinking === offer.seat; // the asker is to move: the reply goes back too
  const button = (text, className, accept) => el("button", { type: "button", className, onclick: answer(accept) }, text);
  if (snap.you === offer.seat) {
    page.view.offer.replaceChildren(`You asked to take back your last move${reply ? " and the reply to it" : ""}. `, button("Withdraw", "withdraw-takeback", false));
  } else if (snap.you !== null) {
    page.view.offer.replaceChildren(`Your opponent asks to take back their last move${reply ? " and your reply to it" : ""}. `, button("Accept", "accept-takeback", true), " ", button("Decline", "decline-takeback", false));
  } else {
    page.view.offer.replaceChildren(`Player ${offer.seat} asks to take back their last move${reply ? " and the reply to it" : ""}.`);
  }
}

// What a seat may do of its own accord: ask for more days on its correspondence turn, or claim
// the match against an opponent who has not moved for days in a game without a clock.
function ownActions(page, snap, act) {
  if (snap.correspondence && snap.awaiting === snap.you) {
    const days = el("select", { className: "extension-days", "aria-label": "days" }, ...[1, 3, 7, 14].map((n) => el("option", { value: n }, `${n} day${n === 1 ? "" : "s"}`)));
    return ["Need more time for this move? ", days, " ", el("button", { type: "button", className: "ask-extension", onclick: act(() => page.calls.askExtension(Number(days.value))) }, "Ask your opponent")];
  }
  if (snap.claimable_from && snap.thinking !== null && snap.thinking !== snap.you) {
    const from = new Date(snap.claimable_from * 1000);
    if (Date.now() < from.getTime()) return [`If your opponent has not moved by ${from.toLocaleString()}, you may claim the match.`];
    return ["Your opponent has not moved for days. ", el("button", { type: "button", className: "claim-match", onclick: act(() => page.calls.claim()) }, "Claim the match")];
  }
  return [];
}

// "type a move, e.g. X@c3": the example is one of the moves legal now, so it is in this game's
// notation (a placement where the game places, a slide where it slides).
function moveExample(match) {
  const moves = match.legal().filter((m) => m.squares.length);
  if (!moves.length) return "type a move";
  return `type a move, e.g. ${moves[Math.floor(moves.length / 2)].move}`;
}

function renderFreeMoves(page) {
  const free = page.match.legal().filter((m) => !m.squares.length);
  page.view.free.hidden = !free.length;
  page.view.free.replaceChildren(
    ...free.map((move) => {
      const button = el("button", { type: "button", className: "free-move", "data-move": move.move }, title(move.move));
      button.addEventListener("click", () => sendMove(page, move.move));
      return button;
    }),
  );
}
