// Replay: a record opened from the saved games, a file, or a tournament, stepped through with
// buttons, the slider, the keys or a click on a move.

import { api } from "./api.js";
import { Board, positionView } from "./board.js";
import { startAndOpen } from "./mygames.js";
import { clone, el, numbered, outcomeText, resultText } from "./ui.js";

let uploaded = null; // the last record opened from a file: {name, text, replay}

export function showReplays(main) {
  main.replaceChildren(clone("tpl-replays"));
  const error = main.querySelector(".form-error");
  main.querySelector("#record-file").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    if (!file) return;
    error.textContent = "";
    try {
      const text = await file.text();
      const replay = await api("/api/replay", { method: "POST", body: text });
      uploaded = { name: file.name, text, replay };
      location.hash = "#/replay/file";
    } catch (failure) {
      error.textContent = `${file.name}: ${failure.message}`;
    }
  });
  loadSaved(main);
}

async function loadSaved(main) {
  const body = main.querySelector(".saved tbody");
  const directory = main.querySelector(".directory");
  try {
    const data = await api("/api/records");
    directory.textContent = data.database
      ? `The games you play here (kept in ${data.database})${data.directory ? ` and at the terminal (in ${data.directory})` : ""}.`
      : data.directory
        ? `In ${data.directory} (the games you play here and at the terminal).`
        : "This server keeps no games (it was started with --no-save).";
    if (!data.records.length) {
      body.replaceChildren(el("tr", {}, el("td", { colspan: 5 }, "No saved game yet.")));
      return;
    }
    body.replaceChildren(
      ...data.records.map((record) => {
        const href = `#/replay/${encodeURIComponent(record.name)}`;
        if (record.error) {
          return el("tr", {}, el("td", {}, el("a", { href }, record.name)), el("td", { colspan: 4 }, record.error));
        }
        const game = record.params ? `${record.game}:${record.params}` : record.game;
        const result = record.result ? resultText(record.result).replace("Result: ", "") : "unfinished";
        const when = new Date(record.modified * 1000).toLocaleString();
        return el(
          "tr",
          {},
          el("td", {}, el("a", { href, title: record.name }, game)),
          el("td", {}, record.players.join(" against ")),
          el("td", {}, result),
          el("td", { className: "num" }, String(record.plies)),
          el("td", {}, when),
        );
      }),
    );
  } catch (error) {
    directory.textContent = error.message;
  }
}

// source: {kind: "saved", name} | {kind: "file"} | {kind: "tournament", id, number} | {kind: "online", id}
export function showReplay(main, source) {
  main.replaceChildren(clone("tpl-replay"));
  const where = main.querySelector(".where");
  const load = async () => {
    if (source.kind === "file") {
      if (!uploaded) throw new Error("open a record file first");
      const upload = uploaded.replay.finished ? null : uploaded.text;
      return { replay: uploaded.replay, download: URL.createObjectURL(new Blob([uploaded.text], { type: "application/json" })), name: uploaded.name, resumable: upload !== null, upload };
    }
    if (source.kind === "tournament") {
      const replay = await api(`/api/tournaments/${source.id}/matches/${source.number}`);
      return { replay, download: null, name: `match ${source.number}` };
    }
    if (source.kind === "online") {
      const replay = await api(`/api/online/${encodeURIComponent(source.id)}/replay`);
      return { replay, download: `/api/online/${encodeURIComponent(source.id)}/record`, name: `online game ${source.id}` };
    }
    const replay = await api(`/api/records/${encodeURIComponent(source.name)}`);
    return { replay, download: `/api/records/${encodeURIComponent(source.name)}/file`, name: source.name, resumable: !replay.finished };
  };
  let cleanup = () => {};
  load().then(
    (loaded) => {
      cleanup = stepper(main, loaded);
    },
    (error) => {
      main.replaceChildren(el("section", { className: "panel" }, el("h1", {}, "Cannot replay this record"), el("p", { className: "error" }, error.message), el("a", { href: "#/replay" }, "Back to the saved games")));
      where.textContent = "";
    },
  );
  return () => cleanup();
}

// The record stepped through; its parts share `page`: the replay, the template's elements
// (`view`), the board, and where it stands (`current`, the game's index; `ply`, the position's).
function stepper(main, loaded) {
  const { replay, download } = loaded;
  const page = { replay, game: replay.game, view: replayView(main), board: new Board(main.querySelector(".board")), current: 0, ply: 0 };
  renderHeader(page, loaded);
  renderTabs(page);
  const keys = (event) => onKey(page, event);
  listenToControls(page);
  document.addEventListener("keydown", keys);
  showGameList(page);
  show(page);
  return () => {
    document.removeEventListener("keydown", keys);
    if (download && download.startsWith("blob:")) URL.revokeObjectURL(download);
  };
}

// The elements of the replay's template.
function replayView(main) {
  const find = (selector) => main.querySelector(selector);
  return {
    slider: find(".slider"),
    list: find(".move-list"),
    position: find(".position-string"),
    facts: find(".facts"),
    where: find(".where"),
    tabs: find(".game-tabs"),
    title: find(".title"),
    players: find(".players"),
    result: find(".result"),
    links: find(".record-links"),
    first: find(".first"),
    back: find(".back"),
    forward: find(".forward"),
    last: find(".last"),
    copy: find(".copy"),
  };
}

// The title, the players, the result, the record to download and, for an unfinished match, the
// button that continues it here.
function renderHeader(page, { download, name, resumable = false, upload = null }) {
  const { replay, view } = page;
  view.title.textContent = `${page.game.title}`;
  const names = replay.names || replay.players;
  view.players.textContent = `${names.map((p, i) => `player ${i + 1}: ${p}`).join(" · ")} · seed ${replay.seed}`;
  view.result.textContent = replay.result ? namedResult(replay) : "The match is unfinished.";
  if (download) view.links.replaceChildren(el("a", { href: download, download: name }, "Download the record"), ` (${name})`);
  if (resumable) view.links.after(...continueButton(name, upload));
}

// "Continue this game here" and where its failure is said: a file from elsewhere is sent whole
// and kept as a new game; a saved one is named.
function continueButton(name, upload) {
  const button = el("button", { type: "button", className: "primary continue-game" }, "Continue this game here");
  const error = el("p", { className: "error", role: "alert" });
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      if (upload === null) await startAndOpen("/api/games", { resume: name });
      else await startAndOpen("/api/games/from-record", upload);
    } catch (failure) {
      error.textContent = failure.message;
      button.disabled = false;
    }
  });
  return [el("div", { className: "buttons" }, button), error];
}

// A tab for each game of a match of several.
function renderTabs(page) {
  const { replay, view } = page;
  view.tabs.replaceChildren(
    ...replay.games.map((g, index) => {
      const roles = g.roles.map((role, i) => `${i + 1}: ${role}`).join(", ");
      const button = el("button", { type: "button", role: "tab", "aria-selected": String(index === 0), title: roles }, `Game ${g.number}`);
      button.addEventListener("click", () => {
        page.current = index;
        page.ply = 0;
        showGameList(page);
        show(page);
      });
      return button;
    }),
  );
  view.tabs.hidden = replay.games.length < 2;
}

function shownGame(page) {
  return page.replay.games[page.current];
}

// The moves of the game shown, numbered by turns, each a button to its position (a chance
// event before a move in brackets).
function showGameList(page) {
  const { view } = page;
  const g = shownGame(page);
  for (const [index, tab] of [...view.tabs.children].entries()) tab.setAttribute("aria-selected", String(index === page.current));
  const items = numbered(g.plies, page.game.roles[0]).map((item) => {
    const li = el("li", { value: item.number });
    if (item.gap) li.append("… ");
    for (const index of item.plies) {
      const before = index - 1 >= 0 && g.plies[index - 1].player === null ? g.plies[index - 1] : null;
      if (before) li.append(jump(page, index, `(${before.move})`, "chance"), " ");
      li.append(jump(page, index + 1, g.plies[index].move), " ");
    }
    return li;
  });
  view.list.replaceChildren(...items);
  view.slider.max = String(g.positions.length - 1);
}

function jump(page, target, text, className = "") {
  const button = el("button", { type: "button", className, "data-ply": target }, text);
  button.addEventListener("click", () => goTo(page, target));
  return button;
}

function goTo(page, ply) {
  page.ply = ply;
  show(page);
}

function lastPly(page) {
  return shownGame(page).positions.length - 1;
}

// The position at `page.ply` (kept within the game): the board, the slider, the facts, the
// line that says where it is, and its move marked in the list.
function show(page) {
  const { view } = page;
  const g = shownGame(page);
  page.ply = Math.max(0, Math.min(page.ply, lastPly(page)));
  const ply = page.ply;
  const state = g.positions[ply];
  const move = ply > 0 ? g.plies[ply - 1] : null;
  page.board.render(positionView(page.game, state, move ? move.squares : []));
  view.slider.value = String(ply);
  view.position.value = state.position;
  view.facts.replaceChildren(...state.facts.map((fact) => el("li", {}, fact)));
  view.where.textContent = whereText(g, ply, move, state);
  for (const button of view.list.querySelectorAll("button[data-ply]")) {
    const here = Number(button.dataset.ply) === ply;
    button.classList.toggle("current", here);
    if (here) button.scrollIntoView({ block: "nearest" });
  }
}

// "Game 1: position 3 of 9 — after X@c3 by player 1 (order)", and how the game ended at its end.
function whereText(g, ply, move, state) {
  const last = g.positions.length - 1;
  let text = `Game ${g.number}: position ${ply} of ${last}`;
  if (move) {
    const who = move.player === null ? "chance" : `player ${move.player} (${move.role})`;
    text += ` — after ${move.move} by ${who}${move.auto ? ", made for a player out of time" : ""}`;
  } else {
    text += " — the start";
  }
  if (ply === last) {
    if (state.outcome) text += `. Game over: ${outcomeText(state.outcome)}`;
    else if (g.ended_by) text += `. ${g.ended_by.reason}`;
  }
  return text;
}

// The buttons, the slider and the copy of the position.
function listenToControls(page) {
  const { view } = page;
  view.first.addEventListener("click", () => goTo(page, 0));
  view.back.addEventListener("click", () => goTo(page, page.ply - 1));
  view.forward.addEventListener("click", () => goTo(page, page.ply + 1));
  view.last.addEventListener("click", () => goTo(page, lastPly(page)));
  view.slider.addEventListener("input", () => goTo(page, Number(view.slider.value)));
  view.copy.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(view.position.value);
    } catch (error) {
      view.position.select();
    }
  });
}

// The arrow keys step through the positions, Home and End go to the first and the last (not
// while a text field has the keys).
function onKey(page, event) {
  if (event.target instanceof HTMLInputElement && event.target.type !== "range") return;
  const moves = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -1, ArrowDown: 1 };
  if (event.key in moves) goTo(page, page.ply + moves[event.key]);
  else if (event.key === "Home") goTo(page, 0);
  else if (event.key === "End") goTo(page, lastPly(page));
  else return;
  event.preventDefault();
}

// "greedy (player 2) wins — five in a row", "A draw — …": the players by their names, or specs.
function namedResult(replay) {
  const { winner, reason } = replay.result;
  return `${winner === null ? "A draw" : `${(replay.names || replay.players)[winner - 1]} (player ${winner}) wins`} — ${reason}`;
}
