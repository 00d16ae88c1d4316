// "Your games": the matches with people at this page, kept in the browser's storage so that the
// form for a new game can list them again (the last 20, newest first).

import { api } from "./api.js";

const MY_GAMES = "abstractgames.games";

// Start a match by POSTing `body` to `path`, keep it among "your games" and go to it.
export async function startAndOpen(path, body) {
  const game = await api(path, { method: "POST", body });
  rememberGame(game);
  location.hash = `#/play/${game.id}`;
  return game;
}

export function myGames() {
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

export function forgetGame(id) {
  try {
    localStorage.setItem(MY_GAMES, JSON.stringify(myGames().filter((g) => g.id !== id)));
  } catch (error) {
    // nothing to forget
  }
}
