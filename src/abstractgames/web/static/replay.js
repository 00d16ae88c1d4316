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

function stepper(main, { replay, download, name, resumable = false, upload = null }) {
  const game = replay.game;
  const board = new Board(main.querySelector(".board"));
  const slider = main.querySelector(".slider");
  const list = main.querySelector(".move-list");
  const position = main.querySelector(".position-string");
  const facts = main.querySelector(".facts");
  const where = main.querySelector(".where");
  const tabs = main.querySelector(".game-tabs");
  let current = 0; // the game's index
  let ply = 0; // positions[ply]: after `ply` plies

  main.querySelector(".title").textContent = `${game.title}`;
  const names = replay.names || replay.players;
  main.querySelector(".players").textContent = `${names.map((p, i) => `player ${i + 1}: ${p}`).join(" · ")} · seed ${replay.seed}`;
  main.querySelector(".result").textContent = replay.result ? namedResult(replay) : "The match is unfinished.";
  const links = main.querySelector(".record-links");
  if (download) links.replaceChildren(el("a", { href: download, download: name }, "Download the record"), ` (${name})`);
  if (resumable) {
    const button = el("button", { type: "button", className: "primary continue-game" }, "Continue this game here");
    const error = el("p", { className: "error", role: "alert" });
    button.addEventListener("click", async () => {
      button.disabled = true;
      try {
        // a file from elsewhere is sent whole and kept as a new game; a saved one is named
        if (upload === null) await startAndOpen("/api/games", { resume: name });
        else await startAndOpen("/api/games/from-record", upload);
      } catch (failure) {
        error.textContent = failure.message;
        button.disabled = false;
      }
    });
    links.after(el("div", { className: "buttons" }, button), error);
  }

  tabs.replaceChildren(
    ...replay.games.map((g, index) => {
      const roles = g.roles.map((role, i) => `${i + 1}: ${role}`).join(", ");
      const button = el("button", { type: "button", role: "tab", "aria-selected": String(index === 0), title: roles }, `Game ${g.number}`);
      button.addEventListener("click", () => {
        current = index;
        ply = 0;
        showGameList();
        show();
      });
      return button;
    }),
  );
  tabs.hidden = replay.games.length < 2;

  function data() {
    return replay.games[current];
  }

  function showGameList() {
    const g = data();
    for (const [index, tab] of [...tabs.children].entries()) tab.setAttribute("aria-selected", String(index === current));
    const items = numbered(g.plies, game.roles[0]).map((item) => {
      const li = el("li", { value: item.number });
      if (item.gap) li.append("… ");
      for (const index of item.plies) {
        const before = index - 1 >= 0 && g.plies[index - 1].player === null ? g.plies[index - 1] : null;
        if (before) {
          li.append(jump(index, `(${before.move})`, "chance"), " ");
        }
        li.append(jump(index + 1, g.plies[index].move), " ");
      }
      return li;
    });
    list.replaceChildren(...items);
    slider.max = String(g.positions.length - 1);
  }

  function jump(target, text, className = "") {
    const button = el("button", { type: "button", className, "data-ply": target }, text);
    button.addEventListener("click", () => {
      ply = target;
      show();
    });
    return button;
  }

  function show() {
    const g = data();
    ply = Math.max(0, Math.min(ply, g.positions.length - 1));
    const state = g.positions[ply];
    const move = ply > 0 ? g.plies[ply - 1] : null;
    board.render(positionView(game, state, move ? move.squares : []));
    slider.value = String(ply);
    position.value = state.position;
    facts.replaceChildren(...state.facts.map((fact) => el("li", {}, fact)));
    let text = `Game ${g.number}: position ${ply} of ${g.positions.length - 1}`;
    if (move) {
      const who = move.player === null ? "chance" : `player ${move.player} (${move.role})`;
      text += ` — after ${move.move} by ${who}${move.auto ? ", made for a player out of time" : ""}`;
    } else {
      text += " — the start";
    }
    if (ply === g.positions.length - 1) {
      if (state.outcome) text += `. Game over: ${outcomeText(state.outcome)}`;
      else if (g.ended_by) text += `. ${g.ended_by.reason}`;
    }
    where.textContent = text;
    for (const button of list.querySelectorAll("button[data-ply]")) {
      const current_ = Number(button.dataset.ply) === ply;
      button.classList.toggle("current", current_);
      if (current_) button.scrollIntoView({ block: "nearest" });
    }
  }

  const step = (delta) => {
    ply += delta;
    show();
  };
  main.querySelector(".first").addEventListener("click", () => { ply = 0; show(); });
  main.querySelector(".back").addEventListener("click", () => step(-1));
  main.querySelector(".forward").addEventListener("click", () => step(1));
  main.querySelector(".last").addEventListener("click", () => { ply = data().positions.length - 1; show(); });
  slider.addEventListener("input", () => { ply = Number(slider.value); show(); });
  main.querySelector(".copy").addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(position.value);
    } catch (error) {
      position.select();
    }
  });
  const keys = (event) => {
    if (event.target instanceof HTMLInputElement && event.target.type !== "range") return;
    const moves = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -1, ArrowDown: 1 };
    if (event.key in moves) step(moves[event.key]);
    else if (event.key === "Home") { ply = 0; show(); }
    else if (event.key === "End") { ply = data().positions.length - 1; show(); }
    else return;
    event.preventDefault();
  };
  document.addEventListener("keydown", keys);
  showGameList();
  show();
  return () => {
    document.removeEventListener("keydown", keys);
    if (download && download.startsWith("blob:")) URL.revokeObjectURL(download);
  };
}


// "greedy (player 2) wins — five in a row", "A draw — …": the players by their names, or specs.
function namedResult(replay) {
  const { winner, reason } = replay.result;
  return `${winner === null ? "A draw" : `${(replay.names || replay.players)[winner - 1]} (player ${winner}) wins`} — ${reason}`;
}
