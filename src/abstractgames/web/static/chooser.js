// The chooser over the board: when the squares pressed end more than one move (which piece to put
// there, say), a button for each of them and one to cancel; a piece's letter or Escape on the keys.

import { pieceIcon } from "./board.js";
import { el, pieceLabel } from "./ui.js";

// Offer `moves` (legal moves ending on `square`): onChoose(move text) for the one pressed,
// onCancel() for the cancel button or Escape (the chooser is hidden first).
export function showChooser(chooser, { square, moves, colours, onChoose, onCancel }) {
  const buttons = moves.map((move) => moveButton(move, colours, onChoose));
  const cancel = el("button", { type: "button", className: "cancel", "aria-label": "cancel" }, "✕");
  cancel.addEventListener("click", () => {
    hideChooser(chooser);
    onCancel();
  });
  chooser.replaceChildren(el("span", { className: "chooser-prompt" }, `${square}:`), ...buttons, cancel);
  chooser.hidden = false;
  buttons[0].focus();
}

function moveButton(move, colours, onChoose) {
  const label = move.piece ? pieceLabel(move.piece, colours) : move.move;
  const button = el("button", { type: "button", "data-move": move.move, "data-key": (move.piece || "").toLowerCase(), "aria-label": `play ${move.move}`, title: move.move });
  button.append(move.piece ? pieceIcon(move.piece, colours, label) : move.move);
  button.addEventListener("click", () => onChoose(move.move));
  return button;
}

export function hideChooser(chooser) {
  chooser.hidden = true;
  chooser.replaceChildren();
}

// Escape cancels (onCancel() after hiding the chooser); a piece's letter presses its button.
export function listenToChooserKeys(chooser, onCancel) {
  chooser.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      hideChooser(chooser);
      onCancel();
      return;
    }
    const button = [...chooser.querySelectorAll("button[data-move]")].find(
      (b) => b.dataset.key && b.dataset.key === event.key.toLowerCase(),
    );
    if (button) button.click();
  });
}
