// @ts-check
/**
 * knightmate-bot's status page: polls /api/status and shows it. It only reads; every figure comes
 * from the bot (the server's clocks, the bot's own evaluations), and nothing the server sent is
 * ever written as HTML (textContent only). The board is play's vendored chessgroundx, read-only.
 */
import { Chessground } from "../../web/static/vendor/chessgroundx.js";
/** @import { Api } from "../../web/static/vendor/chessgroundx.js" */

/** How often the page asks for the status, and how often the running clocks are redrawn (milliseconds). */
const POLL_MS = 1500;
const TICK_MS = 250;

/**
 * @typedef {{ ply: number, cp: number | null, mate: number | null, depth: number, line: string }} Evaluation
 * @typedef {{ id: string, url: string, white: string, black: string, bot_color: "white" | "black" | null,
 *   rated: boolean | null, time_control: string, fen: string, last_move: string | null, turn: string,
 *   white_clock_ms: number | null, black_clock_ms: number | null, clocks_age_ms: number,
 *   evaluation: Evaluation | null, move_times_ms: (number | null)[] }} GameView
 * @typedef {{ view: GameView, result: string, reason: string, ended_at: number, pgn: boolean }} FinishedGame
 * @typedef {{ id: string, challenger: string, rating: number | null, bot: boolean, variant: string,
 *   time_control: string, rated: boolean, accepted: boolean, reason: string | null, why: string, at: number }} ChallengeAnswer
 * @typedef {{ version: string, uptime_s: number, playing: GameView[], finished: FinishedGame[],
 *   challenges: ChallengeAnswer[], reconnects: Record<string, number>, errors: Record<string, number> }} Status
 * @typedef {{ card: HTMLElement, ground: Api, game: GameView, receivedAt: number }} ShownGame  receivedAt:
 *   performance.now() when the game's status came
 */

/** The cards of the games in progress, by game id. @type {Map<string, ShownGame>} */
const shown = new Map();

/**
 * @param {string} id
 * @returns {HTMLElement}
 */
function byId(id) {
  const element = document.getElementById(id);
  if (element === null) throw new Error(`the page has no #${id}`);
  return element;
}

/**
 * A new element with *text* (never parsed as HTML) and an optional class.
 * @param {string} tag
 * @param {string} text
 * @param {string} [className]
 */
function element(tag, text, className) {
  const made = document.createElement(tag);
  made.textContent = text;
  if (className) made.className = className;
  return made;
}

/** @param {number | null} ms */
function clock(ms) {
  if (ms === null) return "–";
  const seconds = Math.floor(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

/** @param {number} seconds */
function duration(seconds) {
  const whole = Math.floor(seconds);
  const days = Math.floor(whole / 86400);
  const hours = Math.floor((whole % 86400) / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  return days > 0 ? `${days} d ${hours} h` : hours > 0 ? `${hours} h ${minutes} min` : `${minutes} min ${whole % 60} s`;
}

/** @param {number} epochSeconds */
function timeOfDay(epochSeconds) {
  return new Date(epochSeconds * 1000).toLocaleTimeString();
}

/** @param {Evaluation | null} evaluation White's view, as the bot's latest search said it */
function evaluationText(evaluation) {
  if (evaluation === null) return "no search yet";
  if (evaluation.mate !== null) return `#${evaluation.mate} at depth ${evaluation.depth}: ${evaluation.line}`;
  if (evaluation.cp === null) return "book move";
  const pawns = evaluation.cp / 100;
  return `${pawns >= 0 ? "+" : ""}${pawns.toFixed(2)} at depth ${evaluation.depth}: ${evaluation.line}`;
}

/** @param {(number | null)[]} times the time each ply took, the latest last */
function moveTimesText(times) {
  const latest = times.slice(-10).map((ms) => (ms === null ? "?" : `${(ms / 1000).toFixed(1)}`));
  return latest.length ? `time per move (s, latest last): ${latest.join(" ")}` : "no move yet";
}

/** @param {Record<string, number>} counts */
function countsText(counts) {
  const parts = Object.entries(counts).filter(([, count]) => count > 0);
  const total = parts.reduce((sum, [, count]) => sum + count, 0);
  return parts.length ? `${total} (${parts.map(([kind, count]) => `${kind} ${count}`).join(", ")})` : "0";
}

/**
 * A side's clock now: the server's figure, less what the side to move has spent since (once both
 * sides have moved: before that the servers do not run the clocks).
 * @param {ShownGame} shownGame
 * @param {"white" | "black"} side
 */
function clockNow({ game, receivedAt }, side) {
  const ms = side === "white" ? game.white_clock_ms : game.black_clock_ms;
  if (ms === null || side !== game.turn || game.move_times_ms.length < 2) return ms;
  return Math.max(0, ms - game.clocks_age_ms - (performance.now() - receivedAt));
}

/** @param {ShownGame} shownGame */
function drawClocks(shownGame) {
  const bottom = shownGame.game.bot_color ?? "white";
  const top = bottom === "white" ? "black" : "white";
  for (const [selector, side] of /** @type {const} */ ([[".top .clock", top], [".bottom .clock", bottom]])) {
    const shown = shownGame.card.querySelector(selector);
    if (shown !== null) shown.textContent = clock(clockNow(shownGame, side));
  }
}

/** @param {GameView} game */
function newCard(game) {
  const card = document.createElement("article");
  card.className = "game";
  card.dataset.game = game.id;
  const board = document.createElement("div");
  board.className = "board";
  card.append(element("p", "", "top"), board, element("p", "", "bottom"), element("p", "", "eval"),
    element("p", "", "times"), element("p", "", "about"));
  // Nothing moves here: no destinations, no dragging, premoves or arrows.
  const ground = Chessground(board, {
    coordinates: false, highlight: { lastMove: true }, movable: { free: false, dests: new Map() },
    draggable: { enabled: false }, premovable: { enabled: false }, drawable: { enabled: false },
  });
  return { card, ground, game, receivedAt: performance.now() };
}

/**
 * @param {ShownGame} shownGame
 * @param {GameView} game
 */
function updateCard(shownGame, game) {
  const { card, ground } = shownGame;
  shownGame.game = game;
  shownGame.receivedAt = performance.now();
  const orientation = game.bot_color ?? "white";
  const [topName, bottomName] = orientation === "white" ? [game.black, game.white] : [game.white, game.black];
  for (const [selector, name] of /** @type {const} */ ([[".top", topName], [".bottom", bottomName]])) {
    /** @type {HTMLElement} */ (card.querySelector(selector)).replaceChildren(element("span", name),
      element("span", "", "clock"));
  }
  drawClocks(shownGame);
  /** @type {HTMLElement} */ (card.querySelector(".eval")).textContent = evaluationText(game.evaluation);
  /** @type {HTMLElement} */ (card.querySelector(".times")).textContent = moveTimesText(game.move_times_ms);
  const about = /** @type {HTMLElement} */ (card.querySelector(".about"));
  const link = element("a", game.id);
  link.setAttribute("href", game.url);
  link.setAttribute("rel", "noreferrer");
  about.replaceChildren(link, ` · ${game.time_control} ${game.rated === null ? "" : game.rated ? "rated" : "casual"}`);
  card.dataset.fen = game.fen;
  const last = game.last_move;
  ground.set({ fen: game.fen, orientation, lastMove: last ? [last.slice(0, 2), last.slice(2, 4)] : undefined });
}

/** @param {GameView[]} games */
function showPlaying(games) {
  const container = byId("playing");
  const ids = new Set(games.map((game) => game.id));
  for (const [id, { card }] of shown) {
    if (!ids.has(id)) {
      card.remove();
      shown.delete(id);
    }
  }
  for (const game of games) {
    let shownGame = shown.get(game.id);
    if (shownGame === undefined) {
      shownGame = newCard(game);
      container.append(shownGame.card);
      shown.set(game.id, shownGame);
    }
    updateCard(shownGame, game);
  }
  byId("playing-count").textContent = games.length ? `(${games.length})` : "(none)";
}

/** @param {FinishedGame[]} finished */
function showFinished(finished) {
  byId("finished").replaceChildren(...finished.map((done) => {
    const row = document.createElement("tr");
    row.dataset.game = done.view.id;
    const game = element("a", done.view.id);
    game.setAttribute("href", done.view.url);
    game.setAttribute("rel", "noreferrer");
    const pgn = document.createElement("td");
    if (done.pgn) {
      const link = element("a", "PGN");
      link.setAttribute("href", `/api/games/${encodeURIComponent(done.view.id)}/pgn`);
      pgn.append(link);
    }
    const gameCell = document.createElement("td");
    gameCell.append(game);
    row.append(element("td", timeOfDay(done.ended_at)), gameCell, element("td", done.view.white),
      element("td", done.view.black), element("td", done.result, "result"), element("td", done.reason), pgn);
    return row;
  }));
}

/** @param {ChallengeAnswer[]} challenges */
function showChallenges(challenges) {
  byId("challenges").replaceChildren(...challenges.map((answer) => {
    const row = document.createElement("tr");
    const who = `${answer.bot ? "BOT " : ""}${answer.challenger}${answer.rating === null ? "" : ` (${answer.rating})`}`;
    const decision = answer.accepted ? "accepted" : `declined: ${answer.reason ?? "generic"}`;
    row.append(element("td", timeOfDay(answer.at)), element("td", who), element("td", answer.time_control),
      element("td", answer.rated ? "rated" : "casual"), element("td", answer.variant),
      element("td", decision, answer.accepted ? "accepted" : "declined"), element("td", answer.why));
    return row;
  }));
}

/** @param {Status} status */
function show(status) {
  byId("version").textContent = status.version;
  byId("uptime").textContent = duration(status.uptime_s);
  byId("reconnects").textContent = countsText(status.reconnects);
  byId("errors").textContent = countsText(status.errors);
  showPlaying(status.playing);
  showFinished(status.finished);
  showChallenges(status.challenges);
  document.body.dataset.ready = "true"; // the first status is shown (what scripted browsers wait for)
}

/** @param {string | null} text what is wrong, or null when nothing is */
function problem(text) {
  const notice = byId("problem");
  notice.hidden = text === null;
  notice.textContent = text ?? "";
}

async function poll() {
  try {
    const answer = await fetch("/api/status", { credentials: "same-origin", cache: "no-store" });
    if (answer.status === 401) {
      problem("No session: open the address the bot logged at its start (it carries the key).");
    } else if (!answer.ok) {
      problem(`The bot answered ${answer.status}.`);
    } else {
      show(/** @type {Status} */ (await answer.json()));
      problem(null);
    }
  } catch {
    problem("The bot does not answer: is it still running? The page goes on asking.");
  }
  setTimeout(poll, POLL_MS);
}

poll();
setInterval(() => shown.forEach(drawClocks), TICK_MS);
