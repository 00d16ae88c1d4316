// Watch: a match between bots (shown by the match view) and tournaments, live.

import { api, follow } from "./api.js";
import { Board, positionView } from "./board.js";
import { clone, el, gameChooser } from "./ui.js";

export function showWatch(main, catalog) {
  main.replaceChildren(clone("tpl-watch"));
  const bots = main.querySelector(".bots-form");
  const botsGame = gameChooser(bots.querySelector(".game-select"), catalog);
  bots.addEventListener("submit", async (event) => {
    event.preventDefault();
    const error = bots.querySelector(".form-error");
    error.textContent = "";
    try {
      const game = await api("/api/games", {
        method: "POST",
        body: {
          game: botsGame(),
          players: [bots.elements.p1.value.trim(), bots.elements.p2.value.trim()],
          pace: Number(bots.elements.pace.value || 0),
        },
      });
      location.hash = `#/play/${game.id}`;
    } catch (failure) {
      error.textContent = failure.message;
    }
  });

  const tournament = main.querySelector(".tournament-form");
  const tournamentGame = gameChooser(tournament.querySelector(".game-select"), catalog);
  tournament.addEventListener("submit", async (event) => {
    event.preventDefault();
    const error = tournament.querySelector(".form-error");
    error.textContent = "";
    const players = tournament.elements.players.value.split("\n").map((p) => p.trim()).filter(Boolean);
    try {
      const started = await api("/api/tournaments", {
        method: "POST",
        body: {
          game: tournamentGame(),
          players,
          games: Number(tournament.elements.games.value),
          seed: Number(tournament.elements.seed.value || 0),
        },
      });
      location.hash = `#/watch/t/${started.id}`;
    } catch (failure) {
      error.textContent = failure.message;
    }
  });

  const live = main.querySelector(".live-games");
  const tournaments = main.querySelector(".live-tournaments");
  async function refresh() {
    try {
      const games = await api("/api/games");
      live.replaceChildren(
        ...games.games.map((g) => el("li", {}, el("a", { href: `#/play/${g.id}` }, `${g.title}: ${g.players.join(" against ")}`), ` — ${g.status}, ${g.plies} plies`)),
      );
      const running = await api("/api/tournaments");
      tournaments.replaceChildren(
        ...running.tournaments.map((t) => el("li", {}, el("a", { href: `#/watch/t/${t.id}` }, `tournament of ${t.game}: ${t.players.join(", ")}`), ` — ${t.status}, ${t.done}/${t.total}`)),
      );
      if (!games.games.length && !running.tournaments.length) live.replaceChildren(el("li", {}, "Nothing yet."));
    } catch (error) {
      live.replaceChildren(el("li", { className: "error" }, error.message));
    }
  }
  refresh();
  const timer = setInterval(refresh, 3000);
  return () => clearInterval(timer);
}

export function showTournament(main, id) {
  main.replaceChildren(clone("tpl-tournament"));
  const board = new Board(main.querySelector(".board"));
  const status = main.querySelector(".status");
  const progress = main.querySelector(".progress");
  const standings = main.querySelector(".standings tbody");
  const matches = main.querySelector(".matches tbody");
  const table = main.querySelector(".arena-table");
  const latestTitle = main.querySelector(".latest-title");
  const latestMove = main.querySelector(".latest-move");
  const stop = main.querySelector(".stop-button");
  let shown = null; // the match on the board
  let animation = null;
  let game = null;
  let latest = null; // the last match finished: shown once the one on the board is over

  stop.addEventListener("click", async () => {
    stop.disabled = true;
    try {
      await api(`/api/tournaments/${id}`, { method: "DELETE" });
    } catch (error) {
      status.textContent = error.message;
    }
  });

  async function showMatch(number, players) {
    shown = number;
    if (animation !== null) clearInterval(animation);
    let replay;
    try {
      replay = await api(`/api/tournaments/${id}/matches/${number}`);
    } catch (error) {
      latestTitle.textContent = error.message;
      return;
    }
    game = replay.game;
    const positions = [];
    for (const g of replay.games) g.positions.forEach((p, i) => positions.push({ game: g, state: p, move: i ? g.plies[i - 1] : null }));
    let index = 0;
    latestTitle.replaceChildren(`Match ${number}: ${players.join(" against ")} — `, el("a", { href: `#/replay/t/${id}/${number}` }, "replay it"));
    const draw = () => {
      const item = positions[index];
      board.render(positionView(game, item.state, item.move ? item.move.squares : []));
      latestMove.textContent = `game ${item.game.number}, ${item.move ? `after ${item.move.move}` : "start"}${item.state.outcome ? ` — ${item.state.outcome.reason}` : ""}`;
      index += 1;
      if (index >= positions.length && animation !== null) {
        clearInterval(animation);
        animation = null;
        if (latest !== null && latest.number !== shown) setTimeout(() => showMatch(latest.number, latest.players), 1000);
      }
    };
    draw();
    const pause = Math.max(20, Math.min(150, 4000 / positions.length)); // a match in 4 s at most
    if (positions.length > 1) animation = setInterval(draw, pause);
  }

  const subscription = follow(`/api/tournaments/${id}`, (data) => {
    main.querySelector(".title").textContent = `Tournament: ${data.game}`;
    const left = data.status === "running" ? `${data.done} of ${data.total} matches played` : `${data.status}: ${data.done} of ${data.total} matches played`;
    status.textContent = data.error ? `${left}. ${data.error}` : left;
    progress.max = data.total;
    progress.value = data.done;
    stop.hidden = data.status !== "running";
    standings.replaceChildren(
      ...data.standings.map((row) => el("tr", {}, el("td", {}, row.player), ...["played", "wins", "draws", "losses", "points"].map((k) => el("td", { className: "num" }, String(row[k]))))),
    );
    matches.replaceChildren(
      ...[...data.matches].reverse().map((match) => {
        const result = match.winner === null ? "draw" : `${match.players[match.winner - 1]} won`;
        const row = el("tr", { className: "clickable", title: match.reason }, el("td", { className: "num" }, String(match.number)), el("td", {}, match.players[0]), el("td", {}, match.players[1]), el("td", {}, `${result} (${match.reason})`));
        row.addEventListener("click", () => showMatch(match.number, match.players));
        return row;
      }),
    );
    table.textContent = data.table;
    table.hidden = !data.table;
    main.querySelector(".directory").textContent = `Records in ${data.directory}`;
    latest = data.matches.length ? data.matches[data.matches.length - 1] : null;
    if (latest !== null && latest.number !== shown && animation === null) showMatch(latest.number, latest.players);
  });
  return () => {
    subscription.close();
    if (animation !== null) clearInterval(animation);
  };
}
