// Play: the form for a new match with the list of your games, and the match itself (also how a
// match between bots is watched), put together from its parts: the state (match.js), the server
// (connection.js), the board and its presses (input.js, chooser.js), the commands (commands.js)
// and the panels (cards.js, sidebar.js, result.js).

import { api } from "./api.js";
import { Board, positionView } from "./board.js";
import { renderCards, tickClocks } from "./cards.js";
import { hideChooser } from "./chooser.js";
import { listenToCommands, renderControls, say } from "./commands.js";
import { followMatch, followOnline, matchCalls, onlineCalls } from "./connection.js";
import { inputBoard, renderBoard } from "./input.js";
import { Match } from "./match.js";
import { forgetGame, myGames, startAndOpen } from "./mygames.js";
import { renderResults } from "./result.js";
import { renderSide } from "./sidebar.js";
import { clone, el, gameChooser, resultFor, seatsText, title } from "./ui.js";

export function showNewGame(main, catalog) {
  main.replaceChildren(clone("tpl-new"));
  const form = main.querySelector(".game-form");
  const summary = main.querySelector(".game-summary");
  const seats = main.querySelector(".seats");
  const error = main.querySelector(".form-error");
  if (!catalog.allow_programs) main.querySelector(".programs").hidden = true;
  const preview = new Board(main.querySelector(".preview-board"));
  const spec = gameChooser(form.querySelector(".game-select"), catalog, form.querySelector(".params"), (game, chosen) => {
    summary.textContent = game.summary;
    seats.textContent = seatsText(game);
    showPreview(main, preview, game, chosen);
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    startGame(form, spec, catalog, error);
  });
  listMyGames(main.querySelector(".your-games"));
}

// The chosen game's board at its start, and what each side plays for; a variant's board (its
// options changed) is asked of the server, the latest answer shown.
let previewed = 0;

async function showPreview(main, board, game, wanted) {
  const asked = ++previewed;
  let shown = game;
  if (wanted !== game.name) {
    try {
      shown = await api(`/api/start?game=${encodeURIComponent(wanted)}`);
    } catch (error) {
      shown = null; // options not valid (yet): the form says so when it is sent
    }
  }
  if (asked !== previewed) return;
  main.querySelector(".preview").hidden = shown === null;
  if (shown === null) return;
  main.querySelector(".preview-title").textContent = shown.title;
  board.render(positionView(shown, shown.start));
  main.querySelector(".goals").replaceChildren(
    ...shown.roles.map((role) => el("li", {}, el("strong", {}, title(role)), `: ${shown.goals[role]}`)),
  );
}

async function startGame(form, spec, catalog, error) {
  error.textContent = "";
  const body = newGameRequest(form, spec, catalog);
  if (typeof body === "string") {
    error.textContent = body;
    return;
  }
  const button = form.querySelector("button[type=submit]");
  button.disabled = true;
  try {
    await startAndOpen("/api/games", body);
  } catch (failure) {
    error.textContent = failure.message;
  } finally {
    button.disabled = false;
  }
}

// The body of POST /api/games from the form, or what is wrong with the form; a match without a
// person (the catalog's spec for one, in any case) is played at a pace to watch.
function newGameRequest(form, spec, catalog) {
  const body = {
    game: spec(),
    players: [form.elements.p1.value.trim(), form.elements.p2.value.trim()],
    single: form.elements.single.checked,
  };
  const clock = form.elements.clock.value.trim();
  if (clock) body.clock = clock;
  const position = form.elements.position.value.trim();
  if (position) body.position = position;
  const seed = form.elements.seed.value.trim();
  if (seed) {
    if (!/^-?\d+$/.test(seed)) return "the seed is a whole number";
    body.seed = Number(seed);
  }
  if (!body.players.some((p) => p.toLowerCase() === catalog.person)) body.pace = 0.6;
  return body;
}

async function listMyGames(section) {
  const list = section.querySelector("ul");
  const items = [];
  for (const game of myGames()) {
    try {
      const data = await api(`/api/games/${game.id}`);
      const state = data.result ? resultFor(data.result, data.players, data.players.filter((p) => p.human).length, data.games_in_match) : data.status;
      items.push(el("li", {}, el("a", { href: `#/play/${game.id}` }, `${data.game.title}: ${data.players.map((p) => p.spec).join(" against ")}`), ` — ${state}`));
    } catch (error) {
      if (error.status === 404) forgetGame(game.id);
    }
  }
  list.replaceChildren(...items);
  section.hidden = !items.length;
}

// The match `id`, live; returns what stops following it. Its parts share `page`: the match's state,
// the template's elements (`view`), the server calls, the board, and render() to redraw it all.
export function showGame(main, id, online = null) {
  main.replaceChildren(clone("tpl-game"));
  const page = { match: new Match(id), view: gameView(main), online };
  page.calls = online ? onlineCalls(id, online.secret, page) : matchCalls(id);
  page.render = () => render(page);
  page.board = inputBoard(page, main.querySelector(".board"));
  listenToCommands(page);
  const timer = setInterval(() => tickClocks(page), 100);
  const handlers = {
    onSnapshot: (data) => showSnapshot(page, data),
    onLost: (error) => say(page, error.message, "error"),
    onBack: () => say(page, ""),
    onGone: (error) => showGone(main, id, error),
  };
  const subscription = online ? followOnline(id, online.secret, handlers, online.onMode) : followMatch(id, handlers);
  return () => {
    subscription.close();
    clearInterval(timer);
  };
}

// The elements of the match's template that change.
function gameView(main) {
  const find = (selector) => main.querySelector(selector);
  return {
    root: find(".game-view"),
    cards: find(".cards"),
    message: find(".message"),
    offer: find(".offer"),
    chooser: find(".chooser"),
    form: find(".move-form"),
    input: find(".move-text"),
    free: find(".free-moves"),
    hint: find(".hint-button"),
    undo: find(".undo-button"),
    resign: find(".resign-button"),
    stop: find(".stop-match-button"),
    title: find(".title"),
    banner: find(".banner"),
    tally: find(".tally"),
    status: find(".status"),
    toPlace: find(".to-place"),
    facts: find(".facts"),
    done: find(".done-games"),
    moves: find(".move-list"),
    notices: find(".notices"),
    position: find(".position"),
    links: find(".record-links"),
    seed: find(".seed"),
  };
}

// A snapshot from the server: after a move or a change of turn, what was picked, the hint, the
// chooser and (for a new position) the message go.
function showSnapshot(page, data) {
  if (page.online && page.online.onSnapshot) page.online.onSnapshot(data);
  const { moved, newPosition } = page.match.update(data);
  if (moved) {
    hideChooser(page.view.chooser);
    if (newPosition) say(page, "");
  }
  page.render();
}

// The snapshot's version stays on the view (data-version) for whoever looks at the page's
// state from outside it, as the browser tests do.
function render(page) {
  if (!page.match.snap) return;
  page.view.root.dataset.version = String(page.match.snap.version);
  renderCards(page);
  renderBoard(page);
  renderControls(page);
  renderSide(page);
  renderResults(page);
  page.match.shown();
}

function showGone(main, id, error) {
  forgetGame(id);
  main.replaceChildren(el("section", { className: "panel" }, el("h1", {}, "No such game"), el("p", {}, error.message), el("a", { href: "#/play" }, "Start a new game")));
}
