// The board, drawn as SVG the way abstractgames.svg draws it (the same geometry and colours),
// with squares that can be clicked, dragged from and reached with the keyboard.

const SVG = "http://www.w3.org/2000/svg";
export const FILES = "abcdefghijklmnopqrstuvwxyz";

// Colour name -> [disc fill, letter colour]: the palette of abstractgames.svg.PALETTE.
export const PALETTE = {
  white: ["#ffffff", "#000000"],
  yellow: ["#f7d51d", "#000000"],
  green: ["#6cc24a", "#000000"],
  red: ["#ef5b3a", "#000000"],
  blue: ["#2d5fc8", "#ffffff"],
  purple: ["#5a237c", "#ffffff"],
  black: ["#1a1a1a", "#ffffff"],
};

// The geometry (in viewBox units) and colours of abstractgames.svg, under the names it gives them
// there (without the underscore); tests/web/test_api.py compares the two.
const SQUARE = 100;
const EDGE = 10;
const COORDINATE_MARGIN = 50;
const RADIUS = 40;
const DISC_FONT = 44;
const LETTER_FONT = 72;
const COORDINATE_FONT = 30;
const BASELINE = 0.35;
const GRID_WIDTH = 2;
const FRAME_WIDTH = 4;
const DISC_STROKE_WIDTH = 3;
const HALO_WIDTH = 4;
const MARK_INSET = 7;
const MARK_WIDTH = 6;
const BACKGROUND = "#ffffff";
const BOARD_FILL = "#eadfc8";
const LINE = "#8a7757";
const COORDINATE_INK = "#4d4d4d";
const OUTLINE = "#1a1a1a";
const HIGHLIGHT_FILL = "#9fc3e6";
const MARK_STROKE = "#d41c1c";
const HALO = "#ffffff";

// The disc fill, the letter colour and whether the letter needs a halo, for a colour name.
export function paint(colour) {
  const known = PALETTE[String(colour).toLowerCase()];
  if (known) return [known[0], known[1], false];
  const hex = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(colour);
  if (hex) {
    const [r, g, b] = hex.slice(1).map((h) => parseInt(h, 16));
    return [colour, 0.299 * r + 0.587 * g + 0.114 * b > 140 ? "#000000" : "#ffffff", false];
  }
  return [colour, "#000000", true];
}

// How far below the centre of a line of capitals its baseline lies, rounded as Python's round()
// in abstractgames.svg does (a half to the even neighbour: 10 for the coordinates' 10.5).
function baseline(fontSize) {
  const exact = BASELINE * fontSize;
  const nearest = Math.round(exact);
  return Math.abs(exact - Math.trunc(exact)) === 0.5 && nearest % 2 !== 0 ? nearest - 1 : nearest;
}

function element(name, attributes = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (parent) parent.appendChild(node);
  return node;
}

// The view of a position for Board.render: a record's or a snapshot's {cells, marks, position} of
// `game`, with the squares of the last move tinted (a match adds what can be pressed).
export function positionView(game, position, last = []) {
  return { width: game.width, height: game.height, cells: position.cells, colours: game.colours, marks: position.marks, last, title: position.position };
}

export function squareName(index, width) {
  return `${FILES[index % width]}${Math.floor(index / width) + 1}`;
}

// A piece drawn centred at (cx, cy): a disc with its letter, or a bare letter without a colour.
function drawPiece(parent, letter, colours, cx, cy, className = "piece", square = null) {
  const attributes = { class: className, "data-piece": letter, "font-weight": "bold", "text-anchor": "middle" };
  if (square) attributes["data-square"] = square;
  const group = element("g", attributes, parent);
  const colour = colours[letter];
  if (colour === undefined) {
    const text = element("text", { x: cx, y: cy + baseline(LETTER_FONT), fill: OUTLINE, "font-size": LETTER_FONT }, group);
    text.textContent = letter;
  } else {
    const [fill, ink, halo] = paint(colour);
    element("circle", { cx, cy, r: RADIUS, fill, stroke: OUTLINE, "stroke-width": DISC_STROKE_WIDTH }, group);
    const attributes = { x: cx, y: cy + baseline(DISC_FONT), fill: ink, "font-size": DISC_FONT };
    if (halo) Object.assign(attributes, { stroke: HALO, "stroke-width": HALO_WIDTH, "paint-order": "stroke" });
    element("text", attributes, group).textContent = letter;
  }
  return group;
}

// A small picture of one piece, for buttons and the counter to place.
export function pieceIcon(letter, colours, label = null) {
  const svg = element("svg", { viewBox: "0 0 100 100", class: "piece-icon", role: "img", "aria-label": label || letter });
  svg.setAttribute("font-family", "DejaVu Sans, Verdana, Arial, sans-serif");
  drawPiece(svg, letter, colours, 50, 50);
  return svg;
}

export class Board {
  // onPress(square): a square pressed (a click, the start of a drag, Enter on a focused square);
  // onRelease(square): a drag let go on another square.
  constructor(container, { onPress = null, onRelease = null } = {}) {
    this.container = container;
    this.onPress = onPress;
    this.onRelease = onRelease;
    this.svg = element("svg", { role: "img", "font-family": "DejaVu Sans, Verdana, Arial, sans-serif" });
    container.replaceChildren(this.svg);
    this.drag = null;
    this.view = null;
    this.svg.addEventListener("pointerdown", (event) => this._down(event));
    this.svg.addEventListener("pointermove", (event) => this._move(event));
    this.svg.addEventListener("pointerup", (event) => this._up(event));
    this.svg.addEventListener("pointercancel", () => this._endDrag());
    this.svg.addEventListener("keydown", (event) => {
      const square = event.target.getAttribute && event.target.getAttribute("data-square");
      if (square && (event.key === "Enter" || event.key === " ") && this.onPress) {
        event.preventDefault();
        this.onPress(square);
      }
    });
  }

  // view: {width, height, cells, colours, marks: {square: reason}, last: [squares],
  //        selected: square|null, targets: [squares], clickable: [squares], draggable: [squares],
  //        hint: [squares], title}
  render(view) {
    this.view = view;
    const { width, height } = view;
    const svg = this.svg;
    svg.replaceChildren();
    if (!width || !height || !view.cells) return;
    const left = COORDINATE_MARGIN;
    const viewWidth = left + width * SQUARE + EDGE;
    const viewHeight = EDGE + height * SQUARE + COORDINATE_MARGIN;
    svg.setAttribute("viewBox", `0 0 ${viewWidth} ${viewHeight}`);
    svg.setAttribute("aria-label", view.title || "the board");
    const corner = (index) => [left + (index % width) * SQUARE, EDGE + (height - 1 - Math.floor(index / width)) * SQUARE];
    const index = (name) => {
      const file = FILES.indexOf(name[0]);
      return (parseInt(name.slice(1), 10) - 1) * width + file;
    };
    const boardWidth = width * SQUARE;
    const boardHeight = height * SQUARE;
    element("rect", { class: "background", width: viewWidth, height: viewHeight, fill: BACKGROUND }, svg);
    element("rect", { class: "board-fill", x: left, y: EDGE, width: boardWidth, height: boardHeight, fill: BOARD_FILL }, svg);
    for (const name of view.last || []) {
      const [x, y] = corner(index(name));
      element("rect", { class: "highlight", x, y, width: SQUARE, height: SQUARE, fill: HIGHLIGHT_FILL }, svg);
    }
    let path = "";
    for (let f = 1; f < width; f += 1) path += `M${left + f * SQUARE} ${EDGE}v${boardHeight}`;
    for (let r = 1; r < height; r += 1) path += `M${left} ${EDGE + r * SQUARE}h${boardWidth}`;
    if (path) element("path", { class: "grid", d: path, stroke: LINE, "stroke-width": GRID_WIDTH, fill: "none" }, svg);
    element("rect", { class: "frame", x: left, y: EDGE, width: boardWidth, height: boardHeight, fill: "none", stroke: LINE, "stroke-width": FRAME_WIDTH }, svg);
    const coordinates = element("g", { class: "coordinates", fill: COORDINATE_INK, "font-size": COORDINATE_FONT, "text-anchor": "middle", "aria-hidden": "true" }, svg);
    const base = EDGE + boardHeight + COORDINATE_MARGIN / 2 + baseline(COORDINATE_FONT);
    for (let f = 0; f < width; f += 1) {
      element("text", { x: left + f * SQUARE + SQUARE / 2, y: base }, coordinates).textContent = FILES[f];
    }
    for (let r = 0; r < height; r += 1) {
      const y = EDGE + (height - 1 - r) * SQUARE + SQUARE / 2 + baseline(COORDINATE_FONT);
      element("text", { x: COORDINATE_MARGIN / 2, y }, coordinates).textContent = String(r + 1);
    }
    const targets = new Set(view.targets || []);
    for (let i = 0; i < view.cells.length; i += 1) {
      const piece = view.cells[i];
      const [x, y] = corner(i);
      if (piece !== ".") drawPiece(svg, piece, view.colours || {}, x + SQUARE / 2, y + SQUARE / 2, "piece", squareName(i, width));
      if (targets.has(squareName(i, width))) {
        if (piece === ".") element("circle", { class: "target-dot", cx: x + SQUARE / 2, cy: y + SQUARE / 2, r: 14 }, svg);
        else element("circle", { class: "target-ring", cx: x + SQUARE / 2, cy: y + SQUARE / 2, r: 45 }, svg);
      }
    }
    for (const [name, reason] of Object.entries(view.marks || {})) {
      const [x, y] = corner(index(name));
      const mark = element("rect", {
        class: "mark", "data-square": name, "data-reason": reason, x: x + MARK_INSET, y: y + MARK_INSET,
        width: SQUARE - 2 * MARK_INSET, height: SQUARE - 2 * MARK_INSET, fill: "none", stroke: MARK_STROKE, "stroke-width": MARK_WIDTH,
      }, svg);
      element("title", {}, mark).textContent = `${name}: ${reason}`;
    }
    if (view.selected) {
      const [x, y] = corner(index(view.selected));
      element("rect", { class: "selected", x: x + 4, y: y + 4, width: SQUARE - 8, height: SQUARE - 8 }, svg);
    }
    for (const name of view.hint || []) {
      const [x, y] = corner(index(name));
      element("rect", { class: "hinted", x: x + 12, y: y + 12, width: SQUARE - 24, height: SQUARE - 24 }, svg);
    }
    const clickable = new Set(view.clickable || []);
    const draggable = new Set(view.draggable || []);
    for (let i = 0; i < view.cells.length; i += 1) {
      const name = squareName(i, width);
      const [x, y] = corner(i);
      const piece = view.cells[i];
      const classes = ["sq"];
      if (clickable.has(name)) classes.push("clickable");
      if (draggable.has(name)) classes.push("draggable");
      const square = element("rect", { class: classes.join(" "), "data-square": name, x, y, width: SQUARE, height: SQUARE }, svg);
      const what = piece === "." ? "empty" : piece;
      const extra = targets.has(name) ? ", a legal destination" : view.selected === name ? ", selected" : "";
      square.setAttribute("aria-label", `${name}: ${what}${extra}`);
      if (clickable.has(name)) {
        square.setAttribute("tabindex", "0");
        square.setAttribute("role", "button");
      }
    }
  }

  _square(event) {
    const hit = document.elementFromPoint(event.clientX, event.clientY);
    return hit && hit.getAttribute ? hit.getAttribute("data-square") : null;
  }

  _point(event) {
    const matrix = this.svg.getScreenCTM();
    if (!matrix) return null;
    const point = new DOMPoint(event.clientX, event.clientY).matrixTransform(matrix.inverse());
    return [point.x, point.y];
  }

  _down(event) {
    if (event.button !== 0) return;
    const target = event.target;
    const square = target.getAttribute && target.getAttribute("data-square");
    if (!square || !this.onPress) return;
    event.preventDefault();
    this.onPress(square); // also a square without a move: the view says why nothing happens
    if (target.classList.contains("draggable") && this.view) {
      const index = (parseInt(square.slice(1), 10) - 1) * this.view.width + FILES.indexOf(square[0]);
      const piece = this.view.cells[index];
      this.drag = { from: square, piece, ghost: null, pointer: event.pointerId };
      try {
        this.svg.setPointerCapture(event.pointerId);
      } catch (error) {
        // capture is a nicety
      }
    }
  }

  _move(event) {
    if (!this.drag || event.pointerId !== this.drag.pointer) return;
    const point = this._point(event);
    if (!point) return;
    if (!this.drag.ghost && this.drag.piece && this.drag.piece !== ".") {
      this.drag.ghost = drawPiece(this.svg, this.drag.piece, this.view.colours || {}, 0, 0, "ghost");
    }
    if (this.drag.ghost) this.drag.ghost.setAttribute("transform", `translate(${point[0]} ${point[1]})`);
  }

  _up(event) {
    if (!this.drag || event.pointerId !== this.drag.pointer) return;
    const from = this.drag.from;
    this._endDrag();
    const square = this._square(event);
    if (square && square !== from && this.onRelease) this.onRelease(square);
  }

  _endDrag() {
    if (this.drag && this.drag.ghost) this.drag.ghost.remove();
    if (this.drag) {
      try {
        this.svg.releasePointerCapture(this.drag.pointer);
      } catch (error) {
        // already released
      }
    }
    this.drag = null;
  }
}
