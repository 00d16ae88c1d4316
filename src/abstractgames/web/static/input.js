// The board of a match and the presses on it, turned into moves through the legal moves the
// server sends, each with the squares its notation names (no game is known here by name): a
// press picks a square, the squares picked so far narrow the moves down, and a move is sent
// once only one is left (or chosen in the chooser when several end on the same squares).

import { Board, positionView } from "./board.js";
import { hideChooser, listenToChooserKeys, showChooser } from "./chooser.js";
import { say, sendMove } from "./commands.js";
import { sayKinds } from "./ui.js";

// The board in `container`: a press (a click, the start of a drag, Enter) picks a square; a drag
// let go on another square picks that one too.
export function inputBoard(page, container) {
  listenToChooserKeys(page.view.chooser, () => cancelPicks(page));
  return new Board(container, {
    onPress: (square) => press(page, square),
    onRelease: (square) => {
      if (page.match.picked.length) press(page, square);
    },
  });
}

export function renderBoard(page) {
  const { match } = page;
  const snap = match.snap;
  page.board.render({
    ...positionView(snap.game, snap.position, match.lastSquares()),
    selected: match.selected(),
    ...pressable(match),
    hint: match.hint,
  });
}

// The squares to show as legal destinations, as pressable and as draggable.
function pressable(match) {
  if (!match.legal().length) return { targets: [], clickable: [], draggable: [] };
  const draggable = match.dragStarts();
  if (!match.picked.length) return { targets: [], clickable: match.starts(), draggable };
  const targets = match.nextSquares();
  const clickable = [...new Set([...targets, ...match.starts(), match.selected()])];
  return { targets, clickable, draggable };
}

function press(page, square) {
  const { match } = page;
  if (!match.myTurn()) {
    say(page, match.snap && match.snap.status === "playing" ? "wait for your turn" : "", "error");
    return;
  }
  hideChooser(page.view.chooser);
  if (match.selected() === square) {
    match.picked = match.picked.slice(0, -1); // pressed again: put back
    page.render();
    return;
  }
  const { path, found } = match.movesThrough(square);
  if (!found.length) {
    noMoveOn(page, square);
    return;
  }
  say(page, "");
  match.picked = path;
  sendOrOffer(page, found.filter((m) => m.squares.length === path.length), found);
}

// Of the moves through the squares picked, those that end there: one alone (no other move goes
// on from there) is sent; several are offered in the chooser.
function sendOrOffer(page, complete, found) {
  if (complete.length === found.length && complete.length === 1) {
    sendMove(page, complete[0].move);
    page.render();
    return;
  }
  page.render();
  if (complete.length) offerChoice(page, complete);
}

function offerChoice(page, moves) {
  const { match } = page;
  showChooser(page.view.chooser, {
    square: match.selected(),
    moves,
    colours: match.snap.game.colours,
    onChoose: (move) => sendMove(page, move),
    onCancel: () => cancelPicks(page),
  });
}

function cancelPicks(page) {
  page.match.picked = [];
  page.render();
}

function noMoveOn(page, square) {
  page.match.picked = [];
  const kinds = page.match.snap.kinds;
  const also = kinds.length ? `you can play ${sayKinds(kinds)}` : "";
  say(page, `no legal move on ${square}${also ? ` (${also})` : ""}`, "error");
  page.render();
}
