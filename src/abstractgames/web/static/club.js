// Tournaments for people: the lobby's list (sign up, withdraw, start) and the form that makes
// one, and a tournament's page (its standings, rounds and games), each live as the lobby is.
//   #/online/tournament/ID   a tournament's page

import { signedIn, whoAmI } from "./account.js";
import { api, follow } from "./api.js";
import { el } from "./ui.js";

const base = "/api/online/tournaments";
const path = (id, what = "") => `${base}/${encodeURIComponent(id)}${what ? `/${what}` : ""}`;
export const tournamentLink = (id) => `#/online/tournament/${encodeURIComponent(id)}`;

function describe(t) {
  const format = t.format === "swiss" ? `Swiss, ${t.rounds} rounds` : "round robin";
  return `${t.game}, ${format}, ${t.time_control}, ${t.rated ? "rated" : "unrated"}, by ${t.creator}`;
}

function stateOf(t) {
  if (t.state === "signup") {
    const until = t.starts_at ? `, starts ${new Date(t.starts_at * 1000).toLocaleString()}` : "";
    return `sign-up open (${t.entrants.length}/${t.max_entrants}${until})`;
  }
  if (t.state === "playing") return `round ${t.round} of ${t.rounds}`;
  return t.state;
}

// What the signed-in account may do with tournament `t`: buttons calling `act(what, body)`.
function actions(t, act) {
  const me = signedIn();
  if (!me || t.state !== "signup") {
    return me && t.state === "playing" && (me.name === t.creator || me.operator)
      ? [el("button", { type: "button", className: "cancel-tournament", onclick: () => act("cancel") }, "Cancel")]
      : [];
  }
  const entered = t.entrants.some((e) => !e.bot && e.name === me.name);
  const buttons = [entered
    ? el("button", { type: "button", className: "leave-tournament", onclick: () => act("leave") }, "Withdraw")
    : el("button", { type: "button", className: "join-tournament", onclick: () => act("join") }, "Sign up")];
  if (me.name === t.creator || me.operator) {
    buttons.push(el("button", { type: "button", className: "start-tournament", onclick: () => act("start") }, "Start"));
    buttons.push(el("button", { type: "button", className: "cancel-tournament", onclick: () => act("cancel") }, "Cancel"));
  }
  return buttons;
}

function acting(id, say) {
  return async (what, body = {}) => {
    try {
      await api(path(id, what), { method: "POST", body });
      say("");
    } catch (error) {
      say(error.message, "error");
    }
  };
}

// The lobby's tournaments, in `box`: the list, live, and the form for a signed-in account.
// Returns the function that stops following them.
export function tournamentsPanel(box, catalog) {
  const message = el("p", { className: "tournament-message", role: "status" });
  const say = (text, kind = "") => {
    message.textContent = text;
    message.className = `tournament-message ${kind}`;
  };
  const list = el("ul", { className: "tournaments" });
  const form = makeForm(catalog, say);
  box.replaceChildren(el("h2", {}, "Tournaments"), list, form, message);
  const show = (data) => {
    form.hidden = !signedIn();
    const items = data.tournaments.map((t) => el("li", { className: `tournament ${t.state}` },
      el("a", { href: tournamentLink(t.id), className: "tournament-link" }, t.title), ` — ${describe(t)} — `,
      el("span", { className: "tournament-state" }, stateOf(t)),
      t.entrants.length ? `: ${t.entrants.map((e) => e.name).join(", ")} ` : " ",
      ...actions(t, acting(t.id, say))));
    list.replaceChildren(...(items.length ? items : [el("li", { className: "help" }, "No tournaments now.")]));
  };
  let last = null;
  let shownFor = null; // the account the list was shown for: signing in or out shows it again
  const subscription = follow(base, (data) => {
    last = data;
    shownFor = signedIn();
    show(data);
  });
  const timer = setInterval(() => {
    if (last && signedIn() !== shownFor) {
      shownFor = signedIn();
      show(last);
    }
  }, 500);
  return () => {
    subscription.close();
    clearInterval(timer);
  };
}

const field = (label, input) => el("div", { className: "field" }, el("label", {}, label), input);

function makeForm(catalog, say) {
  const games = el("select", { className: "tournament-game", "aria-label": "game" },
    ...catalog.games.map((g) => el("option", { value: g.name }, g.title || g.name)));
  const title = el("input", { className: "tournament-title", maxlength: 60, placeholder: "title", "aria-label": "title" });
  const format = el("select", { className: "tournament-format", "aria-label": "format" },
    el("option", { value: "round-robin" }, "round robin"), el("option", { value: "swiss" }, "Swiss"));
  const rounds = el("input", { className: "tournament-rounds", type: "number", min: 1, max: 15, value: 3, "aria-label": "rounds (Swiss)" });
  const time = el("input", { className: "tournament-time", value: "3 days a move", "aria-label": "time control", placeholder: "5+3, or 3 days a move" });
  const rated = el("input", { className: "tournament-rated", type: "checkbox", checked: true, "aria-label": "rated" });
  const form = el("details", { className: "tournament-form" }, el("summary", {}, "Make a tournament"),
    field("Title", title), field("Game", games), field("Format", format), field("Rounds (Swiss)", rounds),
    field("Time", time), el("div", { className: "field check" }, rated, el("label", {}, "rated: its games count for the players' ratings")),
    el("p", { className: "help" }, "Those signed in sign up here; you start it when everyone is in (and may enter the server's bots on its page). Each round is paired as the last game of the round before ends."),
    el("div", { className: "buttons" }, el("button", { type: "button", className: "make-tournament", onclick: async () => {
      try {
        const body = { title: title.value.trim(), game: games.value, format: format.value, time_control: time.value.trim() || "none", rated: rated.checked };
        if (format.value === "swiss") body.rounds = Number(rounds.value);
        const made = await api(base, { method: "POST", body });
        say("Your tournament is open for sign-up.");
        title.value = "";
        return made;
      } catch (error) {
        say(error.message, "error");
      }
    } }, "Make it")));
  return form;
}

// A tournament's page: settings, entrants, standings, and each round's games linking to them.
export function showClubTournament(main, id) {
  const section = el("section", { className: "panel club-tournament" }, el("p", { className: "loading" }, "Loading…"));
  main.replaceChildren(section);
  const message = el("p", { className: "tournament-message", role: "status" });
  const say = (text, kind = "") => {
    message.textContent = text;
    message.className = `tournament-message ${kind}`;
  };
  const act = acting(id, say);
  const show = (t) => {
    const me = signedIn();
    const runs = me && (me.name === t.creator || me.operator) && t.state === "signup";
    const entrants = el("ul", { className: "entrants" }, ...t.entrants.map((e) => el("li", {},
      e.bot ? `${e.name} (the server's bot)` : el("a", { href: `#/players/${encodeURIComponent(e.name)}` }, e.name), " ",
      runs ? el("button", { type: "button", className: "remove-entrant", onclick: () => act("remove", { number: e.number }) }, "Take out") : null)));
    const bot = el("input", { className: "tournament-bot", placeholder: "a bot of the server's, e.g. greedy", "aria-label": "bot" });
    const standings = t.standings.length
      ? el("table", { className: "standings" },
        el("tr", {}, ...["#", "Player", "Points", "Won", "Drawn", "Lost", "Byes", "Performance", "Rating"].map((h) => el("th", {}, h))),
        ...t.standings.map((s) => el("tr", { className: "standing" },
          el("td", {}, s.rank),
          el("td", { className: "standing-name" }, s.bot ? s.name : el("a", { href: `#/players/${encodeURIComponent(s.name)}` }, s.name)),
          el("td", { className: "points" }, s.points), el("td", {}, s.wins), el("td", {}, s.draws), el("td", {}, s.losses), el("td", {}, s.byes),
          el("td", {}, s.performance === null ? "–" : s.performance), el("td", { className: "rating" }, s.rating === null ? "–" : s.rating))))
      : el("p", { className: "help" }, "No games yet.");
    const rounds = t.rounds_played.slice().reverse().map((r) => el("div", { className: "round" },
      el("h3", {}, `Round ${r.round}`),
      el("ul", { className: "boards" }, ...r.games.map((g) => el("li", { className: `board ${g.status}` },
        g.second === null ? `${g.first}: bye` : `${g.first} – ${g.second}: `,
        g.game_id ? el("a", { href: `#/online/${encodeURIComponent(g.game_id)}`, className: "board-game" }, g.result || g.status) : null,
        g.reason ? ` (${g.reason})` : "")))));
    section.replaceChildren(...[
      el("h1", {}, t.title),
      el("p", { className: "tournament-settings" }, describe(t)),
      el("p", { className: "tournament-state" }, stateOf(t)),
      el("div", { className: "buttons" }, ...actions(t, act)),
      message,
      el("h2", {}, "Standings"), standings,
      el("p", { className: "help" }, "Points: a win 1, a draw ½" + (t.format === "swiss" ? ", a bye 1" : "") + ". Performance: the Bradley–Terry rating of these games alone (the arena's); rating: the player's Glicko-2 rating on this server."),
      el("h2", {}, "Players"), entrants,
      runs ? el("div", { className: "copyable" }, bot, el("button", { type: "button", className: "add-bot", onclick: () => act("bots", { bot: bot.value.trim() }) }, "Enter the bot")) : null,
      ...(rounds.length ? [el("h2", {}, "Rounds"), ...rounds] : [])].filter((node) => node !== null));
  };
  let subscription = null;
  let closed = false;
  whoAmI().then(() => {
    if (closed) return;
    subscription = follow(path(id), show, (error) => {
      if (error.status === 404) section.replaceChildren(el("h1", {}, "Tournament"), el("p", { className: "error" }, error.message));
    });
  });
  return () => {
    closed = true;
    if (subscription) subscription.close();
  };
}
