// Games between people on two computers: a game by link, the lobby, your online games, and a
// game's page for its seats and watchers. A seat's secret stays in this browser (localStorage)
// and in the #fragment of its link (which browsers never send); requests carry it in a header.
//   #/online           the forms, the lobby, your games     #/online/ID   a game
//   #/seat/ID/SECRET   a seat link: the secret is kept here, then the address drops it

import { accountPanel, signedIn } from "./account.js";
import { tournamentsPanel } from "./club.js";
import { api, follow } from "./api.js";
import { forgetTurn, noticeControls, noticeGames, noticeTurn, vacationPanel } from "./notices.js";
import { showGame } from "./play.js";
import { clone, el, gameChooser } from "./ui.js";

const SEATS = "abstractgames.seats"; // {game id: {secret, invitation, account}}
const CHALLENGES = "abstractgames.challenges"; // {challenge id: secret}

function load(key) {
  try {
    return JSON.parse(localStorage.getItem(key) || "{}");
  } catch (error) {
    return {};
  }
}

function store(key, value) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch (error) {
    // no storage: the seat link still opens the seat
  }
}

export function keepSeat(id, secret, invitation = null) {
  const seats = load(SEATS);
  seats[id] = { secret, invitation: invitation || (seats[id] && seats[id].invitation) || null };
  store(SEATS, seats);
}

// The seats of the signed-in account's games, kept here like the others (marked as the
// account's: signing out forgets them); returns their lines for the list of your games.
async function keepAccountSeats() {
  if (!signedIn()) return [];
  let games;
  try {
    games = (await api("/api/account/games")).games;
  } catch (error) {
    return [];
  }
  const seats = load(SEATS);
  for (const game of games) {
    if (!seats[game.id]) seats[game.id] = { secret: game.secret, invitation: null, account: true };
  }
  store(SEATS, seats);
  return games;
}

function forgetAccountSeats() {
  const seats = load(SEATS);
  for (const [id, seat] of Object.entries(seats)) if (seat.account) delete seats[id];
  store(SEATS, seats);
}

const link = (hash) => `${location.origin}${location.pathname}${hash}`;
export const seatLink = (id, secret) => link(`#/seat/${encodeURIComponent(id)}/${encodeURIComponent(secret)}`);
export const watchLink = (id) => link(`#/online/${encodeURIComponent(id)}`);

// A seat link: keep its secret, then show the game at an address without it.
export function openSeat(id, secret) {
  keepSeat(id, secret);
  history.replaceState(null, "", `#/online/${encodeURIComponent(id)}`);
  return showOnlineGame(document.getElementById("main"), id);
}

// A game's page: the match as everywhere, played by this browser's seat if it holds one, and
// the links to share.
export function showOnlineGame(main, id) {
  const held = load(SEATS)[id] || null;
  if (!held && signedIn()) {
    // a game of the account's not kept here yet (a tournament's new round): open its seat
    keepAccountSeats().then((games) => {
      if (games.some((g) => g.id === id) && location.hash === `#/online/${encodeURIComponent(id)}`) {
        window.dispatchEvent(new HashChangeEvent("hashchange"));
      }
    });
  }
  const time = el("p", { className: "time-control" });
  const connection = el("p", { className: "connection", role: "status" }, "Connecting…");
  const showMode = (mode) => {
    connection.dataset.mode = mode;
    connection.textContent = mode === "live" ? "● Live" : "○ Reconnecting… (updates every second meanwhile)";
  };
  const online = { secret: held ? held.secret : null, onSnapshot: (data) => {
    showTime(time, data);
    noticeTurn(id, data);
  }, onMode: showMode };
  if (held) {
    online.rematch = async () => {
      const made = await api(`/api/online/${encodeURIComponent(id)}/rematch`, { method: "POST", body: {}, headers: { "X-Seat": held.secret } });
      keepSeat(made.id, held.secret, held.invitation); // the same links' secrets hold the new seats
      location.hash = `#/online/${encodeURIComponent(made.id)}`;
    };
  }
  const stop = showGame(main, id, online);
  const aside = main.querySelector(".side");
  const links = el("div", { className: "online-links" }, connection, time);
  if (held) {
    links.append(el("p", {}, "Your seat (this link is yours alone; it opens your seat on another device): ", copyable(seatLink(id, held.secret), "your-link")));
    if (held.invitation) links.append(el("p", {}, "Send your opponent: ", copyable(seatLink(id, held.invitation), "invitation-link")));
  }
  links.append(el("p", {}, "Anyone may watch: ", copyable(watchLink(id), "watch-link")));
  if (held) links.append(seatSettings(id, held.secret));
  links.append(el("p", {}, "Once the match is over: ", el("a", { href: `#/replay/online/${encodeURIComponent(id)}`, className: "replay-online" }, "replay it"), " or download ", el("a", { href: `/api/online/${encodeURIComponent(id)}/record`, download: `${id}.json` }, "the record"), " (", el("code", {}, "abstractgames replay"), " reads it)"));
  if (held) links.append(noticeControls());
  aside.prepend(links);
  return () => {
    stop();
    forgetTurn(id);
  };
}

// The time control, and for correspondence the time by which the player to move must move.
function showTime(line, data) {
  const parts = [`Time: ${data.time_control}`];
  if (data.correspondence && data.deadline && data.status === "playing") {
    const seat = data.players && data.players[data.thinking - 1];
    const who = data.awaiting !== null ? "you" : seat ? seat.spec : `player ${data.thinking}`;
    parts.push(`${who} must move by ${new Date(data.deadline * 1000).toLocaleString()}`);
  }
  if (data.away_until && data.status === "playing") {
    parts.push(`on vacation until ${new Date(data.away_until * 1000).toLocaleString()}: the clock is stopped`);
  }
  line.textContent = parts.join(" — ");
}

// Your name in this game, and where you are told it is your move (correspondence games).
function seatSettings(id, secret) {
  const headers = { "X-Seat": secret };
  const said = el("p", { className: "seat-message", role: "status" });
  const name = el("input", { className: "seat-name", maxlength: 40, placeholder: "your name", "aria-label": "your name" });
  const email = el("input", { className: "seat-email", type: "email", placeholder: "e-mail (if the server sends mail)", "aria-label": "e-mail" });
  const webhook = el("input", { className: "seat-webhook", type: "url", placeholder: "webhook URL", "aria-label": "webhook URL" });
  const run = async (call, done) => {
    try {
      await call();
      said.textContent = done;
      said.className = "seat-message";
    } catch (error) {
      said.textContent = error.message;
      said.className = "seat-message error";
    }
  };
  const form = el("details", { className: "seat-settings" }, el("summary", {}, "Your name and notifications"),
    el("div", { className: "copyable" }, name, el("button", { type: "button", className: "seat-name-button", onclick: () => run(() => api(`/api/online/${encodeURIComponent(id)}/name`, { method: "POST", body: { name: name.value.trim() || null }, headers }), "Your name is shown.") }, "Save")),
    el("p", { className: "help" }, "In a correspondence game you can be told it is your move:"),
    el("div", { className: "copyable" }, email, webhook, el("button", { type: "button", className: "seat-notify-button", onclick: () => run(() => api(`/api/online/${encodeURIComponent(id)}/notifications`, { method: "POST", body: { email: email.value.trim() || null, webhook: webhook.value.trim() || null }, headers }), "Saved: you will be told when it is your move.") }, "Save")),
    said);
  return form;
}

function copyable(text, name) {
  const input = el("input", { className: name, value: text, readonly: true, "aria-label": name.replace("-", " "), size: 40 });
  const button = el("button", { type: "button", onclick: async () => {
    input.select();
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = "Copied";
    } catch (error) {
      document.execCommand("copy");
    }
  } }, "Copy");
  return el("span", { className: "copyable" }, input, button);
}

// The section: a new game by link (or against a bot of the server), the lobby, your games.
export function showOnline(main, catalog) {
  main.replaceChildren(clone("tpl-online"));
  const accountBox = el("div", { className: "account-panel" });
  main.querySelector(".online h1").after(accountBox);
  const form = main.querySelector(".online-form");
  const message = main.querySelector(".online-message");
  const spec = gameChooser(form.querySelector(".online-game"), catalog, form.querySelector(".online-params"));
  const bots = form.querySelector(".online-opponent");
  for (const name of catalog.bots) bots.append(el("option", { value: name }, `the server's ${name}`));
  const say = (text, kind = "") => {
    message.textContent = text;
    message.className = `online-message ${kind}`;
  };
  const fields = () => {
    const seat = form.querySelector(".online-seat").value;
    return {
      game: spec(),
      time_control: form.querySelector(".online-time").value.trim() || "none",
      seat: seat ? Number(seat) : null,
      name: form.querySelector(".online-name").value.trim() || null,
    };
  };
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const body = fields();
      if (bots.value) body.opponent = bots.value;
      const made = await api("/api/online", { method: "POST", body });
      keepSeat(made.id, made.secret, made.invitation);
      location.hash = `#/online/${encodeURIComponent(made.id)}`;
    } catch (error) {
      say(error.message, "error");
    }
  });
  const lobby = main.querySelector(".lobby");
  const clubBox = el("div", { className: "club-tournaments" }); // tournaments for people (club.js)
  lobby.after(clubBox);
  const stopClub = tournamentsPanel(clubBox, catalog);
  let lastLobby = null; // the lobby as the server last sent it
  form.querySelector(".challenge-button").addEventListener("click", async () => {
    try {
      const made = await api("/api/lobby", { method: "POST", body: fields() });
      const challenges = load(CHALLENGES);
      challenges[made.id] = made.secret;
      store(CHALLENGES, challenges);
      if (lastLobby) showLobby(lobby, lastLobby, say); // the lobby may have shown it before it was ours here
      say("Your challenge is in the lobby: the game opens here when someone accepts it.");
    } catch (error) {
      say(error.message, "error");
    }
  });
  const mine = main.querySelector(".my-online");
  mine.before(noticeControls(), vacationPanel());
  const refresh = async () => {
    const accepted = await showMine(mine);
    if (accepted.length && location.hash.startsWith("#/online") && location.hash.length <= 9) {
      location.hash = `#/online/${encodeURIComponent(accepted[0])}`; // our challenge's game opens here
    }
  };
  const subscription = follow("/api/lobby", (data) => {
    lastLobby = data;
    showLobby(lobby, data, say);
    const open = new Set(data.challenges.map((c) => c.id));
    if (Object.keys(load(CHALLENGES)).some((id) => !open.has(id))) refresh(); // one was accepted
  });
  const showAccount = () => accountPanel(accountBox, (account) => {
    if (!account) forgetAccountSeats();
    showAccount().then(refresh);
  });
  showAccount().then(refresh);
  const timer = setInterval(refresh, 3000);
  return () => {
    subscription.close();
    clearInterval(timer);
    stopClub();
  };
}

function showLobby(list, data, say) {
  const own = load(CHALLENGES);
  const items = data.challenges.map((c) => {
    const side = c.side === null ? "either side" : `they take seat ${c.side + 1}`;
    const line = el("li", { className: "challenge" }, `${c.name || "someone"}: ${c.game}, ${c.time_control}, ${side} `);
    if (own[c.id]) {
      line.append(el("button", { type: "button", className: "withdraw", onclick: async () => {
        try {
          await api(`/api/lobby/${encodeURIComponent(c.id)}`, { method: "DELETE", headers: { "X-Seat": own[c.id] } });
        } catch (error) {
          say(error.message, "error");
        }
      } }, "Withdraw"));
    } else {
      line.append(el("button", { type: "button", className: "accept", onclick: async () => {
        try {
          const name = document.querySelector(".online-name").value.trim() || null;
          const made = await api(`/api/lobby/${encodeURIComponent(c.id)}/accept`, { method: "POST", body: { name } });
          keepSeat(made.id, made.secret);
          location.hash = `#/online/${encodeURIComponent(made.id)}`;
        } catch (error) {
          say(error.message, "error");
        }
      } }, "Accept"));
    }
    return line;
  });
  list.replaceChildren(...(items.length ? items : [el("li", { className: "help" }, "No challenges now.")]));
}

// Your games, listed; returns the ids of the games of challenges of ours accepted since.
async function showMine(list) {
  const accountGames = await keepAccountSeats();
  const seats = load(SEATS);
  const challenges = load(CHALLENGES);
  const secrets = [...Object.values(seats).filter((s) => !s.account).map((s) => s.secret), ...Object.values(challenges)];
  if (!secrets.length && !accountGames.length) {
    list.replaceChildren(el("li", { className: "help" }, "None yet."));
    return [];
  }
  let games = [];
  try {
    if (secrets.length) games = (await api("/api/online/mine", { method: "POST", body: { secrets } })).games;
  } catch (error) {
    return [];
  }
  const challengeOf = new Map(Object.entries(challenges).map(([id, secret]) => [secret, id]));
  const accepted = [];
  for (const game of games) {
    const secret = secrets[game.index];
    if (!seats[game.id] && challengeOf.has(secret)) {
      // a challenge of ours was accepted: its secret holds our seat of the game now
      keepSeat(game.id, secret);
      delete challenges[challengeOf.get(secret)];
      store(CHALLENGES, challenges);
      accepted.push(game.id);
    }
  }
  const listed = new Set(games.map((g) => g.id));
  games = [...games, ...accountGames.filter((g) => !listed.has(g.id))];
  games.sort((a, b) => (b.your_move - a.your_move) || (b.updated - a.updated));
  list.replaceChildren(
    ...games.map((g) =>
      el("li", { className: g.your_move ? "your-move" : "" },
        el("a", { href: `#/online/${encodeURIComponent(g.id)}` }, `${g.title} against ${g.opponent || "(waiting for the opponent)"}`),
        ` — ${g.status === "finished" ? "finished" : g.your_move ? "your move" : "their move"}`),
    ),
  );
  noticeGames(games);
  return accepted;
}
