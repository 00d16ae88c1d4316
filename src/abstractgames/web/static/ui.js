// What the views share: templates, the game list of the forms, move lists, clocks, a dialog.

import { pieceIcon } from "./board.js";

export function clone(id) {
  return document.getElementById(id).content.cloneNode(true);
}

export function el(name, attributes = {}, ...children) {
  const node = document.createElement(name);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "className") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

export function title(role) {
  return role ? role.charAt(0).toUpperCase() + role.slice(1) : "";
}

// "a1 or b2", "x, y or z"
export function sayKinds(kinds) {
  if (!kinds.length) return "";
  return kinds.length === 1 ? kinds[0] : `${kinds.slice(0, -1).join(", ")} or ${kinds[kinds.length - 1]}`;
}

// The spec of a game from its name and the values of its parameter inputs (defaults left out).
export function gameSpec(game, values) {
  const options = [];
  for (const [key, fallback] of Object.entries(game.params)) {
    const value = values[key];
    if (value === undefined || value === "" || String(value) === String(fallback)) continue;
    options.push(`${key}=${value}`);
  }
  return options.length ? `${game.name}:${options.join(",")}` : game.name;
}

const LAST_GAME = "abstractgames.last-game";

function rememberedGame() {
  try {
    return localStorage.getItem(LAST_GAME);
  } catch (error) {
    return null;
  }
}

function rememberGame(name) {
  try {
    localStorage.setItem(LAST_GAME, name);
  } catch (error) {
    // no storage: the first game is offered next time
  }
}

// Fill a <select> with the games of the catalog (and its variants' inputs into `params`);
// `onChange(game, spec)` hears of every change. Returns what gives the spec chosen (and
// remembers the game for next time).
export function gameChooser(select, catalog, params = null, onChange = () => {}) {
  select.replaceChildren(...catalog.games.map((game) => el("option", { value: game.name }, `${game.title} (${game.name})`)));
  const remembered = rememberedGame();
  const first = [remembered, catalog.featured].find((name) => name && catalog.games.some((g) => g.name === name));
  if (first) select.value = first;
  const chosen = () => catalog.games.find((g) => g.name === select.value);
  function currentSpec() {
    const values = {};
    if (params) for (const input of params.querySelectorAll("[data-param]")) values[input.dataset.param] = input.value.trim();
    return gameSpec(chosen(), values);
  }
  function update() {
    const game = chosen();
    if (params) {
      params.replaceChildren(
        ...Object.entries(game.params).map(([key, value]) => {
          const id = `param-${key}`;
          const input = el("input", { id, name: key, value, type: typeof value === "number" ? "number" : "text", "data-param": key });
          input.addEventListener("input", () => onChange(game, currentSpec()));
          return el("div", { className: "field" }, el("label", { for: id }, "Option ", el("code", {}, key), ` (default ${value})`), input);
        }),
      );
    }
    onChange(game, currentSpec());
  }
  select.addEventListener("change", update);
  update();
  return () => {
    rememberGame(chosen().name);
    return currentSpec();
  };
}

// "Player 1 plays chaos in game 1 and order in game 2; ..." from the roles of each game.
export function seatsText(game) {
  const games = game.match || [];
  if (!games.length) return "";
  const say = (player) => {
    const roles = games.map((pair) => pair[player - 1]);
    if (games.length === 1) return `player ${player} plays ${roles[0]}`;
    return `player ${player} plays ${roles.map((role, i) => `${role} in game ${i + 1}`).join(", ")}`;
  };
  const text = `${say(1)}; ${say(2)}.`;
  return (games.length > 1 ? `A match is ${games.length} games: ` : "") + text.charAt(0).toUpperCase() + text.slice(1);
}

// The moves numbered like a chess score sheet, one number per turn of the first role, as the
// terminal shows them; chance events are left out. Returns [{number, plies: [index...]}].
export function numbered(plies, firstRole) {
  const items = [];
  plies.forEach((ply, index) => {
    if (ply.player === null) return;
    if (ply.role === firstRole || !items.length) {
      items.push({ number: items.length + 1, gap: ply.role !== firstRole, plies: [index] });
    } else {
      items[items.length - 1].plies.push(index);
    }
  });
  return items;
}

export function formatClock(seconds) {
  const tenths = Math.round(Math.max(seconds, 0) * 10);
  const minutes = Math.floor(tenths / 600);
  const rest = tenths % 600;
  return `${minutes}:${String(Math.floor(rest / 10)).padStart(2, "0")}.${rest % 10}`;
}

// Ask before something that cannot be taken back; resolves true if confirmed.
export function confirmDialog(question, text, action) {
  const dialog = document.getElementById("confirm");
  dialog.querySelector("h2").textContent = question;
  dialog.querySelector(".confirm-text").textContent = text;
  dialog.querySelector(".confirm-ok").textContent = action;
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "ok"), { once: true });
    dialog.returnValue = "cancel";
    dialog.showModal();
  });
}

export function pieceLabel(letter, colours) {
  const colour = colours[letter];
  return colour ? `${colour} ${letter}` : letter;
}

export function pieceWithLabel(letter, colours) {
  return el("span", { className: "piece-label" }, pieceIcon(letter, colours, pieceLabel(letter, colours)));
}

export function resultText(result) {
  if (!result) return "";
  const winner = result.winner === null ? "a draw" : `player ${result.winner} wins`;
  return `Result: ${winner} — ${result.reason}`;
}

// Who a player is to the people at this page: "you" (the one person here), "person 2" (one of
// two at one screen), or the bot's spec.
export function playerName(player, people) {
  if (!player.human) return player.spec;
  return people === 1 ? "you" : `person ${player.number}`;
}

// The result of a match for the people who played it: "You won", "You lost", "greedy wins",
// "Person 1 wins", "A draw", with the reason, and the points of a match of several games.
export function resultFor(result, players, people, games = 1) {
  if (!result) return "";
  let headline = "A draw";
  if (result.winner !== null) {
    const winner = players[result.winner - 1];
    const name = playerName(winner, people);
    if (name === "you") headline = "You won";
    else if (people === 1 && players.some((p) => p.human)) headline = `You lost: ${name} wins`;
    else headline = winner.human ? `Person ${winner.number} wins` : `${name} wins`;
  }
  const scored = games > 1 && result.scores && result.scores.every((s) => s !== null && s !== undefined);
  const points = scored ? ` (${result.scores.join("–")})` : "";
  return `${headline}${points} — ${result.reason}`;
}

export function outcomeText(outcome) {
  if (!outcome) return "";
  const winner = outcome.winner === null ? "no winner" : `${outcome.winner} wins`;
  const scores = Object.entries(outcome.scores).map(([role, score]) => `${role} ${score}`).join(", ");
  return `${winner} (${outcome.reason}); scores: ${scores}`;
}

export function recordName(path) {
  return path ? path.split(/[\\/]/).pop() : null;
}

// The lists of specs the forms offer: every player's (a person's first), and the bots'.
export function setSpecLists(catalog) {
  const names = new Set(catalog.bots);
  for (const player of catalog.players) if (player.options !== null) names.add(player.name);
  const programs = catalog.allow_programs ? ["engine:COMMAND", "path/to/bot.py:MyBot"] : [];
  const bots = [...names, ...programs];
  document.getElementById("player-specs").replaceChildren(...[catalog.person, ...bots].map((spec) => el("option", { value: spec })));
  document.getElementById("bot-specs").replaceChildren(...bots.map((spec) => el("option", { value: spec })));
}
