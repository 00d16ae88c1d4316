// Accounts: making one, signing in (recovery code or a link by e-mail), signing out; players'
// pages with their ratings and finished games; the operator's moderation page. The session is
// an HttpOnly cookie: no script here sees it.
//   #/players/NAME   a player's page      #/sign-in/TOKEN   a sign-in link      #/moderation

import { api } from "./api.js";
import { el } from "./ui.js";

let current = null; // the last answer of GET /api/account

// The account signed in, as the server last said (null: none).
export const signedIn = () => (current ? current.account : null);

export async function whoAmI() {
  try {
    current = await api("/api/account");
  } catch (error) {
    current = { account: null, accounts: false, sends_links: false };
  }
  return current;
}

// The account's box in the Online section: who is signed in, or the forms to sign in.
// `changed(account)` is called after signing in or out.
export async function accountPanel(box, changed) {
  const state = await whoAmI();
  if (!state.accounts) {
    box.replaceChildren();
    return;
  }
  const said = el("p", { className: "account-message", role: "status" });
  const run = async (call) => {
    try {
      await call();
    } catch (error) {
      said.textContent = error.message;
      said.className = "account-message error";
    }
  };
  if (state.account) {
    const me = state.account;
    box.replaceChildren(el("div", { className: "account signed-in" },
      el("p", {}, "Signed in as ", el("a", { href: `#/players/${encodeURIComponent(me.name)}`, className: "account-shown" }, me.name),
        me.operator ? [" — ", el("a", { href: "#/moderation", className: "moderation-link" }, "moderation")] : null),
      el("div", { className: "buttons" },
        el("button", { type: "button", className: "claim-games", onclick: () => run(async () => {
          const made = await api("/api/account/claim", { method: "POST", body: { secrets: heldSecrets() } });
          said.textContent = `${made.claimed.length} game(s) of this browser are your account's now.`;
          said.className = "account-message";
          changed(me);
        }) }, "Add this browser's games to my account"),
        el("button", { type: "button", className: "sign-out", onclick: () => run(async () => {
          await api("/api/account/sign-out", { method: "POST", body: {} });
          changed(null);
        }) }, "Sign out")),
      said));
    return;
  }
  const name = el("input", { className: "account-name", maxlength: 24, placeholder: "name", "aria-label": "account name", autocomplete: "username" });
  const email = el("input", { className: "account-email", type: "email", placeholder: "e-mail (optional: for sign-in links)", "aria-label": "e-mail" });
  const code = el("input", { className: "account-code", placeholder: "recovery code", "aria-label": "recovery code", autocomplete: "off" });
  const signedIn = (account) => changed(account);
  const buttons = [
    el("button", { type: "button", className: "make-account", onclick: () => run(async () => {
      const made = await api("/api/account", { method: "POST", body: { name: name.value.trim(), email: email.value.trim() || null } });
      box.replaceChildren(el("div", { className: "account" },
        el("p", {}, `Your account ${made.account.name} is made, and you are signed in. Your recovery code, shown this once: keep it somewhere safe, it signs you in anywhere:`),
        el("p", {}, el("code", { className: "recovery-code" }, made.recovery_code)),
        el("button", { type: "button", className: "recovery-kept", onclick: () => signedIn(made.account) }, "I kept it")));
    }) }, "Make an account"),
    el("button", { type: "button", className: "sign-in", onclick: () => run(async () => {
      const made = await api("/api/account/sign-in", { method: "POST", body: { name: name.value.trim(), code: code.value.trim() } });
      signedIn(made.account);
    }) }, "Sign in with the code"),
  ];
  if (state.sends_links) {
    buttons.push(el("button", { type: "button", className: "send-link", onclick: () => run(async () => {
      await api("/api/account/link", { method: "POST", body: { name: name.value.trim() } });
      said.textContent = "If that account has an e-mail address, a sign-in link is on its way.";
      said.className = "account-message";
    }) }, "E-mail me a sign-in link"));
  }
  box.replaceChildren(el("details", { className: "account" },
    el("summary", {}, "Sign in, or make an account (optional: your games on every device, a rating)"),
    el("div", { className: "copyable" }, name, email, code),
    el("div", { className: "buttons" }, ...buttons),
    said));
}

function heldSecrets() {
  try {
    const seats = JSON.parse(localStorage.getItem("abstractgames.seats") || "{}");
    return Object.values(seats).filter((s) => !s.account).map((s) => s.secret).slice(0, 200);
  } catch (error) {
    return [];
  }
}

// A sign-in link: sign in with its token, then go to the Online section.
export async function showSignIn(main, token) {
  history.replaceState(null, "", "#/online");
  try {
    await api("/api/account/token", { method: "POST", body: { token } });
    location.hash = "#/online";
  } catch (error) {
    main.replaceChildren(el("section", { className: "panel" }, el("h1", {}, "Sign in"), el("p", { className: "error" }, error.message)));
  }
}

// A player's page: ratings by game, finished games with their replays and records.
export async function showPlayer(main, name) {
  main.replaceChildren(el("section", { className: "panel player" }, el("p", { className: "loading" }, "Loading…")));
  let data;
  try {
    data = await api(`/api/players/${encodeURIComponent(name)}`);
  } catch (error) {
    main.replaceChildren(el("section", { className: "panel" }, el("h1", {}, name), el("p", { className: "error" }, error.message)));
    return;
  }
  const ratings = data.ratings.length
    ? el("table", { className: "ratings" }, el("tr", {}, el("th", {}, "Game"), el("th", {}, "Rating"), el("th", {}, "±"), el("th", {}, "Games")),
      ...data.ratings.map((r) => el("tr", {}, el("td", {}, r.game), el("td", { className: "rating" }, r.rating), el("td", {}, r.deviation), el("td", {}, r.games))))
    : el("p", { className: "help" }, "No rated game yet.");
  const games = data.games.map((g) => {
    const change = g.rating ? ` (${Math.round(g.rating.before)} → ${Math.round(g.rating.after)})` : "";
    return el("li", { className: `finished-game ${g.result}` },
      `${g.game} against ${g.opponent || "?"}: ${g.result}${g.reason ? `, ${g.reason}` : ""}${change} — `,
      el("a", { href: `#/replay/online/${encodeURIComponent(g.id)}` }, "replay"), " · ",
      el("a", { href: `/api/online/${encodeURIComponent(g.id)}/record`, download: `${g.id}.json` }, "record"));
  });
  main.replaceChildren(el("section", { className: "panel player" },
    el("h1", {}, data.name, data.blocked ? " (blocked)" : ""),
    el("p", { className: "help" }, `Playing here since ${new Date(data.created * 1000).toLocaleDateString()}. Ratings are Glicko-2, each rated game a rating period.`),
    el("h2", {}, "Ratings"), ratings,
    el("h2", {}, "Finished games"),
    el("ul", { className: "player-games" }, ...(games.length ? games : [el("li", { className: "help" }, "None yet.")]))));
}

// The operator's page: the games and accounts, with abort and block.
export async function showModeration(main) {
  const section = el("section", { className: "panel moderation" }, el("h1", {}, "Moderation"));
  main.replaceChildren(section);
  const said = el("p", { className: "moderation-message", role: "status" });
  const act = async (call) => {
    try {
      await call();
      await fill();
    } catch (error) {
      said.textContent = error.message;
      said.className = "moderation-message error";
    }
  };
  async function fill() {
    let data;
    try {
      data = await api("/api/moderation");
    } catch (error) {
      section.replaceChildren(el("h1", {}, "Moderation"), el("p", { className: "error" }, error.message));
      return;
    }
    const games = data.games.map((g) => el("li", { className: `moderated-game ${g.status}` },
      el("a", { href: `#/online/${encodeURIComponent(g.id)}` }, g.id), ` ${g.game}, ${g.status}, ply ${g.ply}: `,
      g.seats.map((s) => s.bot || s.name || "?").join(" vs "), " ",
      g.status === "playing" ? el("button", { type: "button", className: "abort-game", onclick: () => act(() => api(`/api/moderation/games/${encodeURIComponent(g.id)}/abort`, { method: "POST", body: {} })) }, "Abort") : null));
    const accounts = data.accounts.map((a) => el("li", { className: "moderated-account" },
      el("a", { href: `#/players/${encodeURIComponent(a.name)}` }, a.name), a.operator ? " (operator)" : "", a.blocked ? " (blocked) " : " ",
      el("button", { type: "button", className: a.blocked ? "unblock-account" : "block-account", onclick: () => act(() => api(`/api/moderation/accounts/${encodeURIComponent(a.name)}/block`, { method: "POST", body: { blocked: !a.blocked } })) }, a.blocked ? "Unblock" : "Block")));
    section.replaceChildren(el("h1", {}, "Moderation"), said,
      el("h2", {}, "Games"), el("ul", {}, ...games),
      el("h2", {}, "Accounts"), el("ul", {}, ...accounts),
      el("p", { className: "help" }, "The same and more at the server: abstractgames server admin --help."));
  }
  await fill();
}
