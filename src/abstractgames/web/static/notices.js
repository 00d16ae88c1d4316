// Being told it is your move: the page's title and icon marked while a move of yours waits (in
// the game open here, or in your games listed in the Online section), a notification from the
// browser when a move arrives while the page is hidden (asked for only when "Notify me" is
// pressed), an optional beep (off unless switched on here; no sound file), and an account's
// vacation days.

import { api } from "./api.js";
import { el } from "./ui.js";

const SOUND = "abstractgames.sound";
export const MARK = "● Your move — ";
const PLAIN_ICON = "data:,";
const MARKED_ICON = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7" fill="#c62828"/></svg>',
)}`;

const turns = new Map(); // game id -> whether it was this page's seat's move at its last snapshot
let waitingInList = 0; // the games of the Online section's list where it is your move

function icon() {
  let link = document.querySelector("link[rel=icon]");
  if (!link) {
    link = el("link", { rel: "icon", href: PLAIN_ICON });
    document.head.append(link);
  }
  return link;
}

// Mark the title and the icon, or take the mark off.
export function markYourMove(on) {
  const title = document.title.startsWith(MARK) ? document.title.slice(MARK.length) : document.title;
  document.title = on ? MARK + title : title;
  const link = icon();
  link.href = on ? MARKED_ICON : PLAIN_ICON;
  link.dataset.marked = on ? "yes" : "no";
}

const soundOn = () => {
  try {
    return localStorage.getItem(SOUND) === "on";
  } catch (error) {
    return false;
  }
};

function beep() {
  try {
    const audio = new AudioContext();
    const tone = audio.createOscillator();
    const volume = audio.createGain();
    tone.frequency.value = 880;
    volume.gain.value = 0.08;
    tone.connect(volume).connect(audio.destination);
    tone.onended = () => audio.close();
    tone.start();
    tone.stop(audio.currentTime + 0.15);
  } catch (error) {
    // no audio here: the title and the icon still say it
  }
}

// A move of yours arrived: the browser's notification if the page is hidden (and allowed), and
// the beep if it is switched on.
function tell(text, tag) {
  if (document.visibilityState === "hidden" && "Notification" in window && Notification.permission === "granted") {
    try {
      new Notification("Your move", { body: text, tag });
    } catch (error) {
      // a browser that shows notifications only from a service worker: the title says it
    }
  }
  if (soundOn()) beep();
}

// A snapshot of the game `id` open here: mark the page while it is this seat's move, and tell
// when it has just become so.
export function noticeTurn(id, data) {
  const yours = data.status === "playing" && data.awaiting !== null && data.awaiting !== undefined;
  const before = turns.get(id);
  turns.set(id, yours);
  if (yours && before === false) tell(`${data.game.title}: your opponent moved`, id);
  markYourMove(yours || waitingInList > 0);
}

// The game open here is closed.
export function forgetTurn(id) {
  turns.delete(id);
  markYourMove(waitingInList > 0);
}

// The lines of your games (the Online section's list, an account's games among them).
export function noticeGames(games) {
  const waiting = games.filter((g) => g.your_move && g.status === "playing").length;
  if (waiting > waitingInList) tell(`your move in ${waiting} game${waiting === 1 ? "" : "s"}`, "your-games");
  waitingInList = waiting;
  markYourMove(waiting > 0 || [...turns.values()].some(Boolean));
}

// "Notify me" (the browser asks for leave only then) and the sound's switch.
export function noticeControls() {
  const box = el("p", { className: "notice-controls" });
  const said = el("span", { className: "notice-state" });
  const notify = el("button", { type: "button", className: "notify-me" }, "Notify me");
  const show = () => {
    const allowed = "Notification" in window ? Notification.permission : "unsupported";
    notify.hidden = allowed !== "default";
    said.textContent = allowed === "granted" ? "Notifications on. " : allowed === "denied" ? "Notifications blocked in this browser. " : "";
  };
  notify.addEventListener("click", async () => {
    try {
      await Notification.requestPermission();
    } finally {
      show();
    }
  });
  const sound = el("input", { type: "checkbox", className: "notice-sound" });
  sound.checked = soundOn();
  sound.addEventListener("change", () => {
    try {
      localStorage.setItem(SOUND, sound.checked ? "on" : "off");
    } catch (error) {
      // no storage: the sound stays off
    }
    if (sound.checked) beep();
  });
  show();
  box.append(said, notify, " ", el("label", {}, sound, " a sound when it is my move"));
  return box;
}

// An account's vacation days: while on vacation, its correspondence clocks stop.
export function vacationPanel() {
  const body = el("div", { className: "vacation-body" });
  const panel = el("details", { className: "vacation" }, el("summary", {}, "Vacation (correspondence games)"), body);
  const said = el("p", { className: "vacation-message", role: "status" });
  const run = async (call) => {
    try {
      show(await call());
    } catch (error) {
      said.textContent = error.message;
      said.className = "vacation-message error";
    }
  };
  const show = (state) => {
    const days = el("input", { type: "number", className: "vacation-days", min: 1, max: Math.max(state.left, 1), value: Math.min(7, Math.max(state.left, 1)), "aria-label": "days of vacation" });
    const line = el("p", { className: "vacation-state" }, `${state.left} of ${state.days_per_year} vacation days left this year.`);
    if (state.until) line.append(` On vacation until ${new Date(state.until * 1000).toLocaleString()}: your correspondence clocks are stopped.`);
    const action = state.until
      ? el("button", { type: "button", className: "vacation-end", onclick: () => run(() => api("/api/account/vacation/end", { method: "POST", body: {} })) }, "End my vacation")
      : el("span", { className: "copyable" }, days, el("button", { type: "button", className: "vacation-start", disabled: state.left < 1, onclick: () => run(() => api("/api/account/vacation", { method: "POST", body: { days: Number(days.value) } })) }, "Start a vacation of these days"));
    said.textContent = "";
    body.replaceChildren(line, action, said);
  };
  panel.addEventListener("toggle", async () => {
    if (!panel.open) return;
    try {
      show(await api("/api/account/vacation"));
    } catch (error) {
      body.replaceChildren(el("p", { className: "help" }, error.status === 403 ? "Sign in to take vacation days." : error.message));
    }
  });
  return panel;
}
