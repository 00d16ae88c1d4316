// Play: the form for a new match, and the match itself (also how a match between bots is watched).
// Clicks become moves through the legal moves the server sends, each with the squares its
// notation names: no game is known here by name.

import { api, follow } from "./api.js";
import { Board, pieceIcon } from "./board.js";
import {
  clone, confirmDialog, el, formatClock, gameChooser, numbered, outcomeText, pieceLabel,
  recordName, resultText, sayKinds, seatsText, title,
} from "./ui.js";

const MY_GAMES = "abstractgames.games";

function myGames() {
  try {
    return JSON.parse(localStorage.getItem(MY_GAMES) || "[]");
  } catch (error) {
    return [];
  }
}

// Keep a match with people at this page in the list of "your games".
export function rememberGame(game) {
  if (!game.players.some((p) => p.human)) return;
  remember({ id: game.id, game: game.game.spec, players: game.players.map((p) => p.spec), started: Date.now() });
}

function remember(game) {
  try {
    const games = myGames().filter((g) => g.id !== game.id);
    games.unshift(game);
    localStorage.setItem(MY_GAMES, JSON.stringify(games.slice(0, 20)));
  } catch (error) {
    // no storage: the address still leads back to the game
  }
}

function forget(id) {
  try {
    localStorage.setItem(MY_GAMES, JSON.stringify(myGames().filter((g) => g.id !== id)));
  } catch (error) {
    // nothing to forget
  }
}

export function showNewGame(main, catalog) {
  main.replaceChildren(clone("tpl-new"));
  const form = main.querySelector(".game-form");
  const summary = main.querySelector(".game-summary");
  const seats = main.querySelector(".seats");
  const error = main.querySelector(".form-error");
  if (!catalog.allow_programs) main.querySelector(".programs").hidden = true;
  const spec = gameChooser(form.querySelector(".game-select"), catalog, form.querySelector(".params"), (game) => {
    summary.textContent = game.summary;
    seats.textContent = seatsText(game);
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    const body = {
      game: spec(),
      players: [form.elements.p1.value.trim(), form.elements.p2.value.trim()],
      single: form.elements.single.checked,
    };
    const clock = form.elements.clock.value.trim();
    if (clock) body.clock = clock;
    const seed = form.elements.seed.value.trim();
    if (seed) {
      if (!/^-?\d+$/.test(seed)) {
        error.textContent = "the seed is a whole number";
        return;
      }
      body.seed = Number(seed);
    }
    if (body.players.every((p) => p.toLowerCase() !== "human")) body.pace = 0.6;
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    try {
      const game = await api("/api/games", { method: "POST", body });
      rememberGame(game);
      location.hash = `#/play/${game.id}`;
    } catch (failure) {
      error.textContent = failure.message;
    } finally {
      button.disabled = false;
    }
  });
  listMyGames(main.querySelector(".your-games"));
}

async function listMyGames(section) {
  const list = section.querySelector("ul");
  const items = [];
  for (const game of myGames()) {
    try {
      const data = await api(`/api/games/${game.id}`);
      const state = data.result ? resultText(data.result) : data.status;
      items.push(el("li", {}, el("a", { href: `#/play/${game.id}` }, `${data.game.title}: ${data.players.map((p) => p.spec).join(" against ")}`), ` — ${state}`));
    } catch (error) {
      if (error.status === 404) forget(game.id);
    }
  }
  list.replaceChildren(...items);
  section.hidden = !items.length;
}

export function showGame(main, id) {
  main.replaceChildren(clone("tpl-game"));
  const view = {
    cards: main.querySelector(".cards"),
    message: main.querySelector(".message"),
    chooser: main.querySelector(".chooser"),
    form: main.querySelector(".move-form"),
    input: main.querySelector(".move-text"),
    free: main.querySelector(".free-moves"),
    hint: main.querySelector(".hint-button"),
    undo: main.querySelector(".undo-button"),
    resign: main.querySelector(".resign-button"),
    title: main.querySelector(".title"),
    banner: main.querySelector(".banner"),
    status: main.querySelector(".status"),
    toPlace: main.querySelector(".to-place"),
    facts: main.querySelector(".facts"),
    done: main.querySelector(".done-games"),
    moves: main.querySelector(".move-list"),
    notices: main.querySelector(".notices"),
    position: main.querySelector(".position"),
    links: main.querySelector(".record-links"),
    seed: main.querySelector(".seed"),
  };
  let snap = null;
  let received = 0;
  let prefix = [];
  let hint = null;
  let lastPosition = null;
  let lastAwaiting = null;

  const board = new Board(main.querySelector(".board"), {
    onPress: (square) => press(square),
    onRelease: (square) => {
      if (prefix.length) press(square);
    },
  });

  function say(text, kind = "") {
    view.message.textContent = text;
    view.message.className = `message ${kind}`;
  }

  function legal() {
    return snap && snap.awaiting !== null ? snap.legal : [];
  }

  function candidates(squares) {
    return legal().filter((m) => m.squares.length >= squares.length && squares.every((s, i) => m.squares[i] === s));
  }

  async function send(text) {
    hideChooser();
    try {
      await api(`/api/games/${id}/move`, { method: "POST", body: { move: text } });
      say("");
      view.input.value = "";
      prefix = [];
      hint = null;
    } catch (error) {
      say(error.status === 400 ? `not played: ${error.message}` : error.message, "error");
    }
  }

  function whatToPlay() {
    const kinds = snap ? snap.kinds : [];
    return kinds.length ? `you can play ${sayKinds(kinds)}` : "";
  }

  function press(square) {
    if (!snap || snap.awaiting === null) {
      say(snap && snap.status === "playing" ? "wait for your turn" : "", "error");
      return;
    }
    hideChooser();
    if (prefix.length && prefix[prefix.length - 1] === square) {
      prefix = prefix.slice(0, -1);
      render();
      return;
    }
    let path = [...prefix, square];
    let found = candidates(path);
    if (!found.length && prefix.length) {
      path = [square];
      found = candidates(path);
    }
    if (!found.length) {
      prefix = [];
      const also = whatToPlay();
      say(`no legal move on ${square}${also ? ` (${also})` : ""}`, "error");
      render();
      return;
    }
    say("");
    const complete = found.filter((m) => m.squares.length === path.length);
    prefix = path;
    if (complete.length === found.length && complete.length === 1) {
      send(complete[0].move);
      render();
      return;
    }
    render();
    if (complete.length) showChooser(complete);
  }

  function showChooser(moves) {
    const colours = snap.game.colours;
    const buttons = moves.map((move) => {
      const label = move.piece ? pieceLabel(move.piece, colours) : move.move;
      const button = el("button", { type: "button", "data-move": move.move, "data-key": (move.piece || "").toLowerCase(), "aria-label": `play ${move.move}`, title: move.move });
      button.append(move.piece ? pieceIcon(move.piece, colours, label) : move.move);
      button.addEventListener("click", () => send(move.move));
      return button;
    });
    const cancel = el("button", { type: "button", className: "cancel", "aria-label": "cancel" }, "✕");
    cancel.addEventListener("click", () => {
      hideChooser();
      prefix = [];
      render();
    });
    view.chooser.replaceChildren(el("span", { className: "chooser-prompt" }, `${prefix[prefix.length - 1]}:`), ...buttons, cancel);
    view.chooser.hidden = false;
    buttons[0].focus();
  }

  function hideChooser() {
    view.chooser.hidden = true;
    view.chooser.replaceChildren();
  }

  view.chooser.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      hideChooser();
      prefix = [];
      render();
      return;
    }
    const button = [...view.chooser.querySelectorAll("button[data-move]")].find(
      (b) => b.dataset.key && b.dataset.key === event.key.toLowerCase(),
    );
    if (button) button.click();
  });

  view.form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = view.input.value.trim();
    if (!text) return;
    const command = text.toLowerCase();
    if (command === "hint") return askHint();
    if (command === "undo") return askUndo();
    if (command === "resign") return askResign();
    if (command === "moves") {
      say(`${legal().length} legal moves: ${legal().map((m) => m.move).join(" ")}`, "info");
      return undefined;
    }
    send(text);
    return undefined;
  });

  async function askHint() {
    view.input.value = "";
    say("the search bot is thinking…");
    try {
      const answer = await api(`/api/games/${id}/hint`, { method: "POST", body: {} });
      hint = answer.squares;
      say(`hint: the search bot would play ${answer.move} — a learning aid; nothing is recorded`, "info");
      render();
    } catch (error) {
      say(error.message, "error");
    }
  }

  async function askUndo() {
    view.input.value = "";
    try {
      await api(`/api/games/${id}/undo`, { method: "POST", body: {} });
      say("");
    } catch (error) {
      say(error.message, "error");
    }
  }

  async function askResign() {
    view.input.value = "";
    const multi = snap && snap.games_in_match > 1 && !snap.result;
    const ok = await confirmDialog(
      multi ? "Resign the whole match?" : "Resign this game?",
      multi ? "Resigning loses the match at once, whatever the score." : "Your opponent wins the game.",
      "Resign",
    );
    if (!ok) return;
    try {
      await api(`/api/games/${id}/resign`, { method: "POST", body: {} });
    } catch (error) {
      say(error.message, "error");
    }
  }

  view.hint.addEventListener("click", askHint);
  view.undo.addEventListener("click", askUndo);
  view.resign.addEventListener("click", askResign);

  function clockOf(number) {
    if (!snap.clocks) return null;
    let left = snap.clocks[number - 1];
    if (left === null) return null;
    if (snap.running === number) left -= (performance.now() - received) / 1000;
    return Math.max(left, 0);
  }

  function renderCards() {
    const cards = snap.players.map((player) => {
      const who = player.human ? (snap.players.filter((p) => p.human).length === 1 ? "you" : `person ${player.number}`) : player.spec;
      const card = el(
        "div",
        { className: `card${snap.to_move === player.number ? " to-move" : ""}`, "data-player": player.number },
        el("div", { className: "who" },
          el("div", {}, el("span", { className: "role" }, title(player.role) || `Player ${player.number}`), ` · player ${player.number}`),
          el("div", { className: "spec" }, who, snap.thinking === player.number && !player.human ? el("span", { className: "thinking" }, " · thinking…") : null)),
      );
      const left = clockOf(player.number);
      if (left !== null) card.append(el("div", { className: `clock${left < 10 ? " low" : ""}`, "data-player": player.number }, formatClock(left)));
      return card;
    });
    view.cards.replaceChildren(...cards);
  }

  function tick() {
    if (!snap || !snap.clocks) return;
    for (const clock of view.cards.querySelectorAll(".clock")) {
      const left = clockOf(Number(clock.dataset.player));
      if (left === null) continue;
      clock.textContent = formatClock(left);
      clock.classList.toggle("low", left < 10);
    }
  }
  const timer = setInterval(tick, 100);

  function lastSquares() {
    for (let i = snap.plies.length - 1; i >= 0; i -= 1) {
      if (snap.plies[i].player !== null) return snap.plies[i].squares;
    }
    return [];
  }

  function renderBoard() {
    const moves = legal();
    let clickable = [];
    let targets = [];
    let draggable = [];
    if (moves.length) {
      if (prefix.length) {
        targets = [...new Set(candidates(prefix).filter((m) => m.squares.length > prefix.length).map((m) => m.squares[prefix.length]))];
        const starts = new Set(moves.filter((m) => m.squares.length).map((m) => m.squares[0]));
        clickable = [...new Set([...targets, ...starts, prefix[prefix.length - 1]])];
      } else {
        clickable = [...new Set(moves.filter((m) => m.squares.length).map((m) => m.squares[0]))];
      }
      draggable = [...new Set(moves.filter((m) => m.squares.length > 1).map((m) => m.squares[0]))];
    }
    board.render({
      width: snap.game.width,
      height: snap.game.height,
      cells: snap.position.cells,
      colours: snap.game.colours,
      marks: snap.position.marks,
      last: lastSquares(),
      selected: prefix.length ? prefix[prefix.length - 1] : null,
      targets,
      clickable,
      draggable,
      hint,
      title: snap.position.position,
    });
  }

  function statusText() {
    if (snap.status === "finished") return "The match is over.";
    if (snap.status === "stopped") return "The match was stopped before its end; its record is kept.";
    if (snap.status === "failed") return `The match stopped: ${snap.error}`;
    if (snap.status === "between games") return `Game ${snap.game_number} is over.`;
    if (snap.awaiting !== null) {
      const player = snap.players[snap.awaiting - 1];
      const people = snap.players.filter((p) => p.human).length;
      const who = people === 1 ? "Your move" : `Player ${player.number} to move`;
      const role = title(snap.position.to_move);
      return `${who} (${role})${snap.goal ? `: ${snap.goal}` : ""}${snap.kinds.length ? ` — ${sayKinds(snap.kinds)}` : ""}`;
    }
    if (snap.thinking !== null) {
      const player = snap.players[snap.thinking - 1];
      return player.human ? `Player ${player.number} to move` : `${player.spec} (player ${player.number}) is thinking…`;
    }
    return snap.status === "starting" ? "Starting…" : "";
  }

  function renderBanner() {
    const banner = view.banner;
    if (snap.status === "between games" && snap.finished_games.length) {
      const done = snap.finished_games[snap.finished_games.length - 1];
      const next = snap.game_number + 1;
      const roles = [];
      const match = snap.game.match[next - 1];
      if (match) {
        for (const player of snap.players) {
          const who = player.human && snap.players.filter((p) => p.human).length === 1 ? "you are" : `player ${player.number} is`;
          roles.push(`${who} ${title(match[player.number - 1])}`);
        }
      }
      const button = el("button", { type: "button", className: "primary continue-button" }, `Start game ${next}`);
      button.addEventListener("click", async () => {
        button.disabled = true;
        try {
          await api(`/api/games/${id}/continue`, { method: "POST", body: {} });
        } catch (error) {
          say(error.message, "error");
          button.disabled = false;
        }
      });
      banner.replaceChildren(
        el("div", {}, `Game ${done.number} over: ${done.outcome ? outcomeText(done.outcome) : done.ended_by ? done.ended_by.reason : ""}.`),
        el("div", {}, roles.length ? `In game ${next} the roles swap: ${roles.join(", ")}.` : ""),
        button,
      );
      banner.hidden = false;
    } else if (snap.result || ["stopped", "failed"].includes(snap.status)) {
      const games = snap.finished_games.map((g) => el("div", {}, `Game ${g.number}: ${g.outcome ? outcomeText(g.outcome) : g.ended_by ? g.ended_by.reason : "not finished"}`));
      const links = [el("a", { href: "#/play" }, "New game"), " · ", el("a", { href: `/api/games/${id}/record`, download: "" }, "Download the record")];
      const name = recordName(snap.saved);
      if (name) links.push(" · ", el("a", { href: `#/replay/${encodeURIComponent(name)}` }, "Replay it"));
      const headline = snap.result ? resultText(snap.result) : statusText();
      banner.replaceChildren(el("strong", { className: "result" }, headline), ...(games.length > 1 ? games : []), el("div", { className: "banner-links" }, ...links));
      banner.hidden = false;
    } else {
      banner.hidden = true;
    }
  }

  function renderMoves() {
    const first = snap.game.roles[0];
    const items = numbered(snap.plies, first).map((item) => {
      const text = item.plies.map((i) => snap.plies[i].move + (snap.plies[i].auto ? "*" : "")).join(" ");
      return el("li", { value: item.number }, `${item.gap ? "… " : ""}${text}`);
    });
    view.moves.replaceChildren(...items);
    view.moves.scrollTop = view.moves.scrollHeight;
  }

  function renderControls() {
    const mine = snap.awaiting !== null;
    const people = snap.players.some((p) => p.human);
    const over = ["finished", "stopped", "failed"].includes(snap.status);
    view.form.hidden = !people || over;
    view.input.disabled = !mine;
    view.form.querySelector("button").disabled = !mine;
    view.hint.hidden = !people || over;
    view.hint.disabled = !mine;
    view.undo.hidden = !people || over || snap.players.filter((p) => p.human).length !== 1;
    view.undo.disabled = !snap.can_undo;
    view.resign.hidden = !people || over;
    const free = legal().filter((m) => !m.squares.length);
    view.free.hidden = !free.length;
    view.free.replaceChildren(
      ...free.map((move) => {
        const button = el("button", { type: "button", className: "free-move", "data-move": move.move }, title(move.move));
        button.addEventListener("click", () => send(move.move));
        return button;
      }),
    );
    if (mine && lastAwaiting !== snap.version && matchMedia("(pointer: fine)").matches && document.activeElement === document.body) {
      view.input.focus();
    }
  }

  function renderSide() {
    const game = snap.game;
    const players = snap.players.map((p) => (p.human ? "human" : p.spec)).join(" against ");
    view.title.textContent = `${game.title}${snap.games_in_match > 1 ? ` — game ${snap.game_number}` : ""}`;
    view.title.title = `${game.spec}: ${players}`;
    view.status.textContent = statusText();
    renderBanner();
    const drops = legal().filter((m) => m.squares.length === 1 && m.piece);
    const pieces = [...new Set(drops.map((m) => m.piece))];
    if (pieces.length === 1 && drops.length === legal().filter((m) => m.squares.length).length) {
      view.toPlace.replaceChildren(el("span", {}, "To place:"), pieceIcon(pieces[0], game.colours, pieceLabel(pieces[0], game.colours)), el("span", {}, pieceLabel(pieces[0], game.colours)));
      view.toPlace.hidden = false;
    } else {
      view.toPlace.hidden = true;
    }
    view.facts.replaceChildren(...snap.position.facts.map((fact) => el("li", {}, fact)));
    const earlier = snap.status === "playing" ? snap.finished_games : [];
    view.done.replaceChildren(...earlier.map((g) => el("li", {}, `Game ${g.number}: ${g.outcome ? outcomeText(g.outcome) : g.ended_by ? g.ended_by.reason : ""}`)));
    renderMoves();
    view.notices.replaceChildren(...snap.notices.slice(-5).map((notice) => el("li", {}, notice)));
    view.position.textContent = snap.position.position;
    const name = recordName(snap.saved);
    const links = [el("a", { href: `/api/games/${id}/record`, download: "" }, "Download the record")];
    if (name && ["finished", "stopped", "failed"].includes(snap.status)) {
      links.push(" · ", el("a", { href: `#/replay/${encodeURIComponent(name)}` }, "Replay it"));
    }
    view.links.replaceChildren(...links);
    view.seed.textContent = `${game.spec}, seed ${snap.seed}${snap.clock ? `, clock ${snap.clock.seconds}+${snap.clock.increment}` : ""}${snap.saved ? `; saved as ${snap.saved}` : ""}`;
  }

  function render() {
    if (!snap) return;
    renderCards();
    renderBoard();
    renderControls();
    renderSide();
    lastAwaiting = snap.awaiting !== null ? snap.version : lastAwaiting;
  }

  let lost = false; // the server stopped answering
  const subscription = follow(
    `/api/games/${id}`,
    (data) => {
      if (lost) {
        lost = false;
        say("");
      }
      const moved = !snap || data.position.position !== lastPosition || data.awaiting !== snap.awaiting;
      snap = data;
      received = performance.now();
      if (moved) {
        prefix = [];
        hint = null;
        hideChooser();
        if (snap.position.position !== lastPosition && lastPosition !== null) say("");
      }
      lastPosition = data.position.position;
      render();
    },
    (error) => {
      if (error.status === 0) {
        lost = true;
        say(error.message, "error");
      }
      if (error.status === 404) {
        forget(id);
        main.replaceChildren(el("section", { className: "panel" }, el("h1", {}, "No such game"), el("p", {}, error.message), el("a", { href: "#/play" }, "Start a new game")));
      }
    },
  );

  return () => {
    subscription.close();
    clearInterval(timer);
  };
}
