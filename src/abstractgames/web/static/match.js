// The match on the page: the server's latest snapshot of it (GET /api/games/ID and its WebSocket)
// and what this page adds to it, the squares picked so far towards a move and the squares of a
// hint. Questions about the match are answered here; nothing here touches the page.

const OVER = ["finished", "stopped", "failed"];

export class Match {
  constructor(id) {
    this.id = id;
    this.snap = null; // the latest snapshot
    this.received = 0; // performance.now() when it came: the clocks run on from there
    this.picked = []; // the squares pressed so far towards a move
    this.hint = null; // the squares of the last hint, until the position or the turn changes
    this.lastPosition = null;
    this.lastAwaiting = null; // the version of the last snapshot shown that awaited a move here
  }

  // Take a new snapshot. `moved`: the position or the player awaited changed (the squares
  // picked and the hint are then dropped); `newPosition`: a position after one already shown.
  update(data) {
    const changed = data.position.position !== this.lastPosition;
    const moved = this.snap === null || changed || data.awaiting !== this.snap.awaiting;
    const newPosition = changed && this.lastPosition !== null;
    this.snap = data;
    this.received = performance.now();
    if (moved) this.forgetPicks();
    this.lastPosition = data.position.position;
    return { moved, newPosition };
  }

  forgetPicks() {
    this.picked = [];
    this.hint = null;
  }

  // A snapshot was shown: its turn (if a move is awaited here) is no longer new.
  shown() {
    if (this.snap.awaiting !== null) this.lastAwaiting = this.snap.version;
  }

  // A move is awaited here and that turn has not been shown before.
  newTurn() {
    return this.myTurn() && this.lastAwaiting !== this.snap.version;
  }

  myTurn() {
    return this.snap !== null && this.snap.awaiting !== null;
  }

  over() {
    return OVER.includes(this.snap.status);
  }

  legal() {
    return this.myTurn() ? this.snap.legal : [];
  }

  // The legal moves whose squares begin with `squares`.
  candidates(squares) {
    return this.legal().filter((m) => m.squares.length >= squares.length && squares.every((s, i) => m.squares[i] === s));
  }

  // The squares a press on `square` leads to and the moves through them: the squares picked so
  // far and this one, or else this one alone (a new start).
  movesThrough(square) {
    let path = [...this.picked, square];
    let found = this.candidates(path);
    if (!found.length && this.picked.length) {
      path = [square];
      found = this.candidates(path);
    }
    return { path, found };
  }

  selected() {
    return this.picked.length ? this.picked[this.picked.length - 1] : null;
  }

  // The squares where the moves through the picked squares go next.
  nextSquares() {
    const depth = this.picked.length;
    return unique(this.candidates(this.picked).filter((m) => m.squares.length > depth).map((m) => m.squares[depth]));
  }

  // The squares a move starts from, and those of moves that go somewhere (they can be dragged).
  starts() {
    return unique(this.legal().filter((m) => m.squares.length).map((m) => m.squares[0]));
  }

  dragStarts() {
    return unique(this.legal().filter((m) => m.squares.length > 1).map((m) => m.squares[0]));
  }

  // The squares of the last move made by a player (chance events left out).
  lastSquares() {
    const plies = this.snap.plies;
    for (let i = plies.length - 1; i >= 0; i -= 1) {
      if (plies[i].player !== null) return plies[i].squares;
    }
    return [];
  }

  // The seconds left on a player's clock now, or null without a clock.
  clockOf(number) {
    if (!this.snap.clocks) return null;
    let left = this.snap.clocks[number - 1];
    if (left === null) return null;
    if (this.snap.running === number) left -= (performance.now() - this.received) / 1000;
    return Math.max(left, 0);
  }

  // How many players are people at this page.
  people() {
    return this.snap.players.filter((p) => p.human).length;
  }
}

function unique(items) {
  return [...new Set(items)];
}
