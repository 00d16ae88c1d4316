// The page: a router over the address's #fragment, and the game catalog the forms use.
//   #/play            a new game          #/play/ID        a match (played or watched)
//   #/online          games by link, lobby #/online/ID      an online game (#/seat/ID/SECRET: a seat link)
//   #/online/tournament/ID   a tournament for people: standings, rounds
//   #/watch           bots and tournaments #/watch/t/ID    a tournament
//   #/replay          saved games          #/replay/NAME   a saved record
//   #/replay/file     an opened file       #/replay/t/ID/N a tournament's match
//   #/replay/online/ID  a finished online game
//   #/players/NAME    a player's page    #/sign-in/TOKEN  a sign-in link    #/moderation

import { showModeration, showPlayer, showSignIn } from "./account.js";
import { api } from "./api.js";
import { showClubTournament } from "./club.js";
import { openSeat, showOnline, showOnlineGame } from "./online.js";
import { showGame, showNewGame } from "./play.js";
import { showReplay, showReplays } from "./replay.js";
import { el, setSpecLists } from "./ui.js";
import { showTournament, showWatch } from "./watch.js";

const main = document.getElementById("main");
let catalog = null;
let cleanup = () => {};

async function route() {
  cleanup();
  cleanup = () => {};
  if (catalog === null) {
    try {
      catalog = await api("/api/catalog");
      setSpecLists(catalog);
    } catch (error) {
      main.replaceChildren(el("section", { className: "panel" }, el("h1", {}, "Something went wrong"), el("p", { className: "error" }, error.message)));
      return;
    }
  }
  const hash = location.hash || (catalog.public ? "#/online" : "#/play");
  const parts = hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  // a public game server plays online only: its one-person sections are not offered
  const section = catalog.public && ["play", "watch"].includes(parts[0]) && !parts[1] ? "online" : parts[0] || "play";
  for (const link of document.querySelectorAll("nav a")) {
    link.hidden = catalog.public && ["play", "watch"].includes(link.dataset.section);
  }
  for (const link of document.querySelectorAll("nav a")) {
    if (link.dataset.section === section) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  try {
    let done;
    if (section === "play" && parts[1]) done = showGame(main, parts[1]);
    else if (section === "play") done = showNewGame(main, catalog);
    else if (section === "online" && parts[1] === "tournament" && parts[2]) done = showClubTournament(main, parts[2]);
    else if (section === "online" && parts[1]) done = showOnlineGame(main, parts[1]);
    else if (section === "online") done = showOnline(main, catalog);
    else if (section === "seat" && parts[1] && parts[2]) done = openSeat(parts[1], parts[2]);
    else if (section === "players" && parts[1]) done = showPlayer(main, parts[1]);
    else if (section === "sign-in" && parts[1]) done = showSignIn(main, parts[1]);
    else if (section === "moderation") done = showModeration(main);
    else if (section === "watch" && parts[1] === "t" && parts[2]) done = showTournament(main, parts[2]);
    else if (section === "watch") done = showWatch(main, catalog);
    else if (section === "replay" && parts[1] === "file") done = showReplay(main, { kind: "file" });
    else if (section === "replay" && parts[1] === "online" && parts[2]) done = showReplay(main, { kind: "online", id: parts[2] });
    else if (section === "replay" && parts[1] === "t" && parts[2] && parts[3]) done = showReplay(main, { kind: "tournament", id: parts[2], number: parts[3] });
    else if (section === "replay" && parts[1]) done = showReplay(main, { kind: "saved", name: parts[1] });
    else if (section === "replay") done = showReplays(main);
    else done = showNewGame(main, catalog);
    if (typeof done === "function") cleanup = done;
    document.title = `abstractgames — ${section === "seat" ? "online" : section}`;
  } catch (error) {
    main.replaceChildren(el("section", { className: "panel" }, el("h1", {}, "Something went wrong"), el("p", { className: "error" }, error.message)));
  }
}

window.addEventListener("hashchange", route);
route();
