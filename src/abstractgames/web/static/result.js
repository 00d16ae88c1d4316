// How the games of the match ended: the earlier games listed while the match goes on, and the
// banner over the side panel between two games (with the button to start the next) and at the
// end of the match (its result, each game's end, the links to a new game and to the record).

import { startNextGame } from "./commands.js";
import { startAndOpen } from "./mygames.js";
import { replayLink, statusText } from "./sidebar.js";
import { el, outcomeText, playerName, recordName, resultFor, title } from "./ui.js";

export function renderResults(page) {
  const snap = page.match.snap;
  const earlier = snap.status === "playing" ? snap.finished_games : [];
  page.view.done.replaceChildren(...earlier.map((g) => el("li", {}, `Game ${g.number}: ${endText(g)}`)));
  const tally = tallyText(page.match);
  page.view.tally.textContent = tally;
  page.view.tally.hidden = !tally;
  renderBanner(page);
}

// "Match so far: you 23, greedy 17": each player's points over the games of a match of several
// games that score (Entropy's), while it is played and at its end.
export function tallyText(match) {
  const snap = match.snap;
  if (snap.games_in_match < 2 || !snap.finished_games.length) return "";
  const points = [0, 0];
  for (const game of snap.finished_games) {
    if (!game.outcome || !game.roles) return "";
    for (const seat of [0, 1]) {
      const score = game.outcome.scores[game.roles[seat]];
      if (typeof score !== "number") return "";
      points[seat] += score;
    }
  }
  const people = match.people();
  const names = snap.players.map((p) => playerName(p, people));
  const done = snap.finished_games.length === snap.games_in_match ? "Match" : "Match so far";
  return `${done}: ${names[0]} ${points[0]}, ${names[1]} ${points[1]}`;
}

// How a finished game ended: its outcome, or why it was ended.
function endText(game, otherwise = "") {
  if (game.outcome) return outcomeText(game.outcome);
  return game.ended_by ? game.ended_by.reason : otherwise;
}

function renderBanner(page) {
  const { match, view } = page;
  const snap = match.snap;
  if (snap.status === "between games" && snap.finished_games.length) {
    view.banner.replaceChildren(...betweenGames(page));
    view.banner.hidden = false;
  } else if (snap.result || ["stopped", "failed"].includes(snap.status)) {
    view.banner.replaceChildren(...matchOver(page));
    if (view.banner.hidden) {
      view.banner.hidden = false;
      view.banner.scrollIntoView({ block: "nearest" }); // on a phone, the result over the board
    }
  } else {
    view.banner.hidden = true;
  }
}

// The game just over, the roles of the next one, and the button that starts it.
function betweenGames(page) {
  const snap = page.match.snap;
  const done = snap.finished_games[snap.finished_games.length - 1];
  const next = snap.game_number + 1;
  const roles = nextRoles(page.match, next);
  const button = el("button", { type: "button", className: "primary continue-button" }, `Start game ${next}`);
  button.addEventListener("click", () => startNextGame(page, button));
  return [
    el("div", {}, `Game ${done.number} over: ${endText(done)}.`),
    el("div", {}, roles.length ? `In game ${next} the roles swap: ${roles.join(", ")}.` : ""),
    button,
  ];
}

// "you are Order", "player 2 is Chaos": who plays what in game `next` of the match.
function nextRoles(match, next) {
  const snap = match.snap;
  const roles = snap.game.match[next - 1];
  if (!roles) return [];
  return snap.players.map((player) => {
    const who = player.human && match.people() === 1 ? "you are" : `player ${player.number} is`;
    return `${who} ${title(roles[player.number - 1])}`;
  });
}

// The result (or why the match stopped), each game's end when there were several, the links.
function matchOver(page) {
  const { match } = page;
  const snap = match.snap;
  const games = snap.finished_games.map((g) => el("div", {}, `Game ${g.number}: ${endText(g, "not finished")}`));
  const base = snap.online ? "/api/online" : "/api/games";
  const links = [el("a", { href: snap.online ? "#/online" : "#/play" }, "New game"), " · ", el("a", { href: `${base}/${match.id}/record`, download: "" }, "Download the record")];
  const name = recordName(snap.saved);
  if (name) links.push(" · ", replayLink(name));
  const headline = snap.result ? resultFor(snap.result, snap.players, match.people(), snap.games_in_match) : statusText(match);
  const offered = snap.online && snap.rematch;
  const rematch = el("button", { type: "button", className: "primary rematch-button" }, offered ? "Play the rematch" : "Rematch, sides swapped");
  const error = el("p", { className: "error rematch-error", role: "alert" });
  rematch.addEventListener("click", () => (snap.online ? onlineRematch(page, rematch, error) : startRematch(snap, rematch, error)));
  const seated = !snap.online || (snap.you !== null && page.online && page.online.rematch);
  const again = seated ? [el("div", { className: "buttons" }, rematch), error] : [];
  return [el("strong", { className: "result" }, headline), ...(games.length > 1 ? games : []), ...again, el("div", { className: "banner-links" }, ...links)];
}

// An online game's rematch: the same settings, sides swapped, the same links' secrets; whoever
// asks first starts it, the other is offered it.
async function onlineRematch(page, button, error) {
  button.disabled = true;
  try {
    await page.online.rematch();
  } catch (failure) {
    error.textContent = failure.message;
    button.disabled = false;
  }
}

// A new match with the same settings (game, clock, single game, start position) and the
// players in each other's seats.
async function startRematch(snap, button, error) {
  const body = {
    game: snap.game.spec,
    players: [snap.players[1].spec, snap.players[0].spec],
    single: snap.single,
    pace: snap.pace,
  };
  if (snap.clock) body.clock = `${snap.clock.seconds}+${snap.clock.increment}`;
  if (snap.start) body.position = snap.start;
  button.disabled = true;
  try {
    await startAndOpen("/api/games", body);
  } catch (failure) {
    error.textContent = failure.message;
    button.disabled = false;
  }
}
