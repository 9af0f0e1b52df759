// @ts-check
// Starting games: the challenge form (colour, clock, start position), rematches, the games of the
// sandbox to watch, and the bot against its sparring partner.
import { el } from "./elements.js";
import { other, resultOf, showNotice } from "./page.js";
import { api, follow } from "./network.js";
import { view } from "./state.js";
/** @import { Account, GameSummary } from "./network.js" */

/**
 * @typedef {object} ChallengeParams
 * @property {number} limit  seconds
 * @property {number} increment  seconds
 * @property {string} color  "white", "black" or "random"
 * @property {string} fen  "" for the usual start
 * @property {number | null} level  the computer at that level, null for the bot
 */

const MAX_FEN_CHARS = 120; // as the server's (bot/sandbox/human.py)
const PRESETS = [[1, 0], [2, 1], [3, 0], [3, 2], [5, 0], [5, 3], [10, 0], [10, 5], [15, 10]];

// The lobby's one state: the person's choices, the games list, its stream. Written only here.
const lobby = {
  /** @type {Account | null} */ account: null,
  /** @type {number[] | null} */ preset: [3, 2], // minutes + seconds, null: custom
  level: 1,
  /** @type {GameSummary[]} */ games: [],
  /** @type {AbortController | null} */ events: null,
};

/** The account, known once wire() ran (play.js wires the lobby first thing after fetching it). */
function account() {
  if (!lobby.account) throw new Error("lobby.js: wire() comes first");
  return lobby.account;
}

export function renderPresets() {
  const presets = el.presets;
  const choices = [...PRESETS.map(([m, i]) => ({ label: `${m}+${i}`, value: [m, i] })), { label: "Custom", value: null }];
  for (const choice of choices) {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = choice.label;
    button.dataset.preset = choice.label;
    button.addEventListener("click", () => {
      lobby.preset = choice.value;
      for (const other of presets.children) other.setAttribute("aria-pressed", String(other === button));
      el.custom.hidden = choice.value !== null;
    });
    button.setAttribute("aria-pressed", String(choice.label === "3+2"));
    presets.appendChild(button);
  }
}

// "The computer" at levels 1-8 (when the server has them), next to the bot.
function renderLevels() {
  const levels = account().levels;
  if (!levels.length) return;
  el.computerChoice.hidden = false;
  const list = el.levels;
  for (const choice of levels) {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.level = String(choice.level);
    button.title = `Level ${choice.level}: ${choice.label}, about ${choice.elo} Elo`;
    button.append(`Level ${choice.level}`, Object.assign(document.createElement("small"), { textContent: `${choice.elo} Elo` }));
    button.setAttribute("aria-pressed", String(choice.level === lobby.level));
    button.addEventListener("click", () => {
      lobby.level = choice.level;
      for (const other of list.children) other.setAttribute("aria-pressed", String(other === button));
    });
    list.appendChild(button);
  }
  for (const radio of document.querySelectorAll('input[name="opponent"]')) {
    radio.addEventListener("change", () => { list.hidden = chosen("opponent") !== "computer"; });
  }
}

/** The radio button chosen in the challenge form's group *name*. */
const chosen = (/** @type {string} */ name) => String(new FormData(el.challengeForm).get(name));

/** @returns {{ limit: number, increment: number }} seconds */
function chosenClock() {
  if (lobby.preset) return { limit: lobby.preset[0] * 60, increment: lobby.preset[1] };
  return { limit: Math.round(Number(el.customMinutes.value) * 60), increment: Math.round(Number(el.customIncrement.value)) };
}

/**
 * The answer is shown where the person is looking: beside the button they pressed, scrolled to.
 * @param {string} text
 * @param {boolean} ok
 */
function say(text, ok, reason = "") {
  const message = el.challengeMessage;
  message.className = ok ? "message ok" : "message";
  message.textContent = text;
  message.dataset.reason = reason;
  if (text) message.scrollIntoView({ block: "nearest" });
}

/** @param {ChallengeParams} params */
async function challenge(params) {
  const bot = account().bot;
  say(params.level ? `Starting a game against the computer at level ${params.level}\u2026`
    : `Waiting for ${bot} to answer\u2026`, true);
  el.challenge.disabled = true;
  const form = { "clock.limit": params.limit, "clock.increment": params.increment, color: params.color, fen: params.fen };
  try {
    const answer = params.level ? await api("/api/challenge/ai", { ...form, level: params.level })
      : await api(`/api/challenge/${bot}`, form);
    if (answer.status === "accepted" && answer.gameId) {
      say("", true);
      location.hash = `#game/${answer.gameId}`;
    } else {
      el.newGamePanel.hidden = false;
      say(answer.message || `The challenge was ${answer.status}.`, false, answer.declineReason || "");
    }
  } catch (error) {
    el.newGamePanel.hidden = false;
    say(error instanceof Error ? error.message : String(error), false);
  } finally {
    el.challenge.disabled = false;
  }
}

/** @param {SubmitEvent} event */
function onChallengeSubmit(event) {
  event.preventDefault();
  const fen = el.fen.value.trim();
  // A paste far too long for a FEN is said so here: the server would refuse the request's size.
  if (fen.length > MAX_FEN_CHARS) {
    say(`That is not a FEN: a FEN is one line of at most ${MAX_FEN_CHARS} characters, not ${fen.length}.`, false);
    return;
  }
  challenge({ ...chosenClock(), color: chosen("color"), fen, level: chosen("opponent") === "computer" ? lobby.level : null });
}

function rematch() {
  const state = view.state;
  if (!state || !state.you) return;
  const clock = state.clock ? { limit: state.clock.initial / 1000, increment: state.clock.increment / 1000 } : chosenClock();
  const fen = state.initialFen === account().startingFen ? "" : state.initialFen;
  const opponent = state[other(state.you)].name;
  const computer = account().levels.find((choice) => choice.username === opponent);
  el.newGamePanel.hidden = false;
  challenge({ ...clock, color: other(state.you), fen, level: computer ? computer.level : null });
}

/**
 * The games list changes with every move of every game (its ply counts): each game keeps its
 * item, which is written anew only when what it says changed, so a move redraws one line.
 * @param {GameSummary[]} [latest]  the server's list (none: the one shown, drawn again)
 */
export function renderGames(latest) {
  if (latest !== undefined) lobby.games = latest;
  const list = el.games;
  /** @type {Map<string, HTMLElement>} */
  const kept = new Map();
  for (const item of list.querySelectorAll("li[data-game]")) {
    if (item instanceof HTMLElement && item.dataset.game) kept.set(item.dataset.game, item);
  }
  list.querySelector("li.empty")?.remove();
  lobby.games.forEach((game, index) => {
    const item = kept.get(game.id) || gameItem(game.id);
    kept.delete(game.id);
    if (list.children[index] !== item) list.insertBefore(item, list.children[index] || null);
    const button = /** @type {HTMLButtonElement} */ (item.firstElementChild);
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
  if (lobby.games.length === 0) {
    list.appendChild(Object.assign(document.createElement("li"), { className: "empty", textContent: "No games yet." }));
  }
}

/** @param {string} gameId */
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
    showNotice(error instanceof Error ? error.message : String(error));
  }
}

export function followGames() {
  const events = new AbortController();
  lobby.events = events;
  follow("/api/stream/event", (line) => { if (line.type === "games") renderGames(line.games); }, events.signal);
}

export function stopFollowing() {
  if (lobby.events) lobby.events.abort();
}

/** @param {Account} theAccount */
export function wire(theAccount) {
  lobby.account = theAccount;
  renderLevels();
  el.challengeForm.addEventListener("submit", onChallengeSubmit);
  el.exhibition.addEventListener("click", exhibition);
  el.rematch.addEventListener("click", rematch);
  el.newGame.addEventListener("click", () => { el.newGamePanel.hidden = false; el.fen.focus(); });
  if (!theAccount.opponent) el.exhibition.hidden = true;
}
