// Starting games: the challenge form (colour, clock, start position), rematches, the games of the
// sandbox to watch, and the bot against its sparring partner.
import { $, other, showNotice } from "./page.js";
import { api, follow } from "./network.js";
import { view, resultOf } from "./game.js";

const MAX_FEN_CHARS = 120; // as the server's (bot/sandbox/human.py)
const PRESETS = [[1, 0], [2, 1], [3, 0], [3, 2], [5, 0], [5, 3], [10, 0], [10, 5], [15, 10]];
let preset = [3, 2];
let level = 1;
let games = [];
let events = null;

export function renderPresets() {
  const presets = $("presets");
  const choices = [...PRESETS.map(([m, i]) => ({ label: `${m}+${i}`, value: [m, i] })), { label: "Custom", value: null }];
  for (const choice of choices) {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = choice.label;
    button.dataset.preset = choice.label;
    button.addEventListener("click", () => {
      preset = choice.value;
      for (const other of presets.children) other.setAttribute("aria-pressed", String(other === button));
      $("custom").hidden = choice.value !== null;
    });
    button.setAttribute("aria-pressed", String(choice.label === "3+2"));
    presets.appendChild(button);
  }
}

// "The computer" at levels 1-8 (when the server has them), next to the bot.
export function renderLevels() {
  const levels = view.account.levels;
  if (!levels.length) return;
  $("computer-choice").hidden = false;
  const list = $("levels");
  for (const choice of levels) {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.level = String(choice.level);
    button.title = `Level ${choice.level}: ${choice.label}, about ${choice.elo} Elo`;
    button.append(`Level ${choice.level}`, Object.assign(document.createElement("small"), { textContent: `${choice.elo} Elo` }));
    button.setAttribute("aria-pressed", String(choice.level === level));
    button.addEventListener("click", () => {
      level = choice.level;
      for (const other of list.children) other.setAttribute("aria-pressed", String(other === button));
    });
    list.appendChild(button);
  }
  for (const radio of document.querySelectorAll('input[name="opponent"]')) {
    radio.addEventListener("change", () => { list.hidden = chosenOpponent() !== "computer"; });
  }
}

const chosenOpponent = () => new FormData($("challenge-form")).get("opponent");

function chosenClock() {
  if (preset) return { limit: preset[0] * 60, increment: preset[1] };
  return { limit: Math.round(Number($("custom-minutes").value) * 60), increment: Math.round(Number($("custom-increment").value)) };
}

// The answer is shown where the person is looking: beside the button they pressed, scrolled to.
function say(text, ok, reason = "") {
  const message = $("challenge-message");
  message.className = ok ? "message ok" : "message";
  message.textContent = text;
  message.dataset.reason = reason;
  if (text) message.scrollIntoView({ block: "nearest" });
}

// params.level: the computer at that level, else the bot.
async function challenge(params) {
  say(params.level ? `Starting a game against the computer at level ${params.level}\u2026`
    : `Waiting for ${view.account.bot} to answer\u2026`, true);
  $("challenge").disabled = true;
  const form = { "clock.limit": params.limit, "clock.increment": params.increment, color: params.color, fen: params.fen };
  try {
    const answer = params.level ? await api("/api/challenge/ai", { ...form, level: params.level })
      : await api(`/api/challenge/${view.account.bot}`, form);
    if (answer.status === "accepted" && answer.gameId) {
      say("", true);
      location.hash = `#game/${answer.gameId}`;
    } else {
      $("new-game").hidden = false;
      say(answer.message || `The challenge was ${answer.status}.`, false, answer.declineReason || "");
    }
  } catch (error) {
    $("new-game").hidden = false;
    say(error.message, false);
  } finally {
    $("challenge").disabled = false;
  }
}

function onChallengeSubmit(event) {
  event.preventDefault();
  const color = new FormData($("challenge-form")).get("color");
  const fen = $("fen").value.trim();
  // A paste far too long for a FEN is said so here: the server would refuse the request's size.
  if (fen.length > MAX_FEN_CHARS) {
    say(`That is not a FEN: a FEN is one line of at most ${MAX_FEN_CHARS} characters, not ${fen.length}.`, false);
    return;
  }
  challenge({ ...chosenClock(), color, fen, level: chosenOpponent() === "computer" ? level : null });
}

function rematch() {
  const state = view.state;
  const clock = state.clock ? { limit: state.clock.initial / 1000, increment: state.clock.increment / 1000 } : chosenClock();
  const fen = state.initialFen === view.account.startingFen ? "" : state.initialFen;
  const computer = view.account.levels.find((choice) => choice.username === state[other(state.you)].name);
  $("new-game").hidden = false;
  challenge({ ...clock, color: other(state.you), fen, level: computer ? computer.level : null });
}

// The games list changes with every move of every game (its ply counts): each game keeps its
// item, which is written anew only when what it says changed, so a move redraws one line.
export function renderGames(latest) {
  if (latest !== undefined) games = latest;
  const list = $("games");
  const kept = new Map([...list.querySelectorAll("li[data-game]")].map((item) => [item.dataset.game, item]));
  list.querySelector("li.empty")?.remove();
  games.forEach((game, index) => {
    const item = kept.get(game.id) || gameItem(game.id);
    kept.delete(game.id);
    if (list.children[index] !== item) list.insertBefore(item, list.children[index] || null);
    const button = item.firstElementChild;
    const state = game.over ? `${resultOf(game.winner, game.status)} ${game.status}` : "live";
    const moves = Math.ceil(game.plies / 2);
    const text = `${game.white} \u2013 ${game.black} \u00B7 ${game.clock} \u00B7 ${moves} ${moves === 1 ? "move" : "moves"} \u00B7 `;
    button.classList.toggle("current", game.id === view.gameId);
    if (item.dataset.shown === text + state) return;
    item.dataset.shown = text + state;
    button.textContent = text;
    button.appendChild(Object.assign(document.createElement("span"), { className: game.over ? "" : "live", textContent: state }));
  });
  for (const item of kept.values()) item.remove();
  if (games.length === 0) {
    list.appendChild(Object.assign(document.createElement("li"), { className: "empty", textContent: "No games yet." }));
  }
}

function gameItem(gameId) {
  const item = document.createElement("li");
  item.dataset.game = gameId;
  const button = document.createElement("button");
  button.type = "button";
  button.dataset.game = gameId;
  button.addEventListener("click", () => { location.hash = `#game/${gameId}`; });
  item.appendChild(button);
  return item;
}

async function exhibition() {
  try {
    const clock = chosenClock();
    const answer = await api("/api/exhibition", { "clock.limit": clock.limit, "clock.increment": clock.increment });
    if (answer.gameId) location.hash = `#game/${answer.gameId}`;
    else showNotice(answer.message || `The bot answered: ${answer.status}`);
  } catch (error) {
    showNotice(error.message);
  }
}

export function followGames() {
  events = new AbortController();
  follow("/api/stream/event", (line) => { if (line.type === "games") renderGames(line.games); }, events.signal);
}

export function stopFollowing() {
  if (events) events.abort();
}

export function wire() {
  renderLevels();
  $("challenge-form").addEventListener("submit", onChallengeSubmit);
  $("exhibition").addEventListener("click", exhibition);
  $("rematch").addEventListener("click", rematch);
  $("new").addEventListener("click", () => { $("new-game").hidden = false; $("fen").focus(); });
  if (!view.account.opponent) $("exhibition").hidden = true;
}
