// @ts-check
// One game on the page, played or watched: its state from the server's stream, the board, the
// players and clocks, the move list, the controls, the draw offer, the chat and the live PGN.
// The one writer of the view state (state.js); what draws over the game (the review) is handed
// over by play.js as an overlay, so nothing here imports it.
import { el } from "./elements.js";
import { afterPaint, other, resultOf, scrollWithin, showNotice } from "./page.js";
import * as metrics from "./metrics.js";
import { api, follow } from "./network.js";
import { Board } from "./board.js";
import * as sounds from "./sounds.js";
import { view } from "./state.js";
/** @import { Account, Color, GameState, LegalMove, Ply } from "./network.js" */
/** @import { Position } from "./board.js" */
/** @import { GameOverlay } from "./state.js" */

/** @type {Record<string, (loser: string) => string>} */
const STATUS_TEXT = {
  mate: () => "Checkmate", resign: (loser) => `${loser} resigned`, stalemate: () => "Stalemate",
  timeout: (loser) => `${loser} left the game`, draw: () => "Draw", outoftime: (loser) => `${loser} ran out of time`,
  aborted: () => "Game aborted", noStart: () => "The game never started",
  illegalMove: (loser) => `${loser} made an illegal move`, variantEnd: () => "Game over",
};

/** @type {GameOverlay} */
const NO_OVERLAY = { decorate: () => [], board: () => null, reset: () => {} };

// What game.js keeps beside the view state: the account, the board, the hooks play.js hands over,
// and what is drawn. Written only here.
const screen = {
  /** @type {Account | null} */ account: null,
  /** @type {Board | null} */ board: null,
  overlay: NO_OVERLAY,
  gameOpened: () => {}, // the game shown changed (the lobby marks it in the games list)
  // The move list as drawn: of which game and how many plies, so that an update only appends the
  // plies that are new (a game's plies are never taken back).
  /** @type {{ gameId: string | null, plies: number }} */ drawnMoves: { gameId: null, plies: 0 },
  titleWanted: document.title,
  pgnAsked: 0,
};

/**
 * The game view, on the board *account* starts from; *overlay* draws over each render (the
 * review), *gameOpened* is told when another game is shown.
 * @param {Account} account
 * @param {{ overlay: GameOverlay, gameOpened: () => void }} hooks
 */
export function setUp(account, { overlay, gameOpened }) {
  screen.account = account;
  screen.overlay = overlay;
  screen.gameOpened = gameOpened;
  screen.board = new Board(el.board, el.promotion, send);
  renderBoard();
}

/** The board and the account, there once setUp() ran (play.js calls it before anything else). */
function ready() {
  if (!screen.board || !screen.account) throw new Error("game.js: setUp() comes first");
  return { board: screen.board, account: screen.account };
}

// ---- positions --------------------------------------------------------------------------------

/**
 * @param {GameState} state
 * @returns {Position}
 */
function shownPosition(state) {
  if (view.pending) return { fen: view.pending.fen, last: view.pending.uci, check: null };
  const ply = state.plies[view.ply - 1];
  if (!ply) return { fen: state.initialFen, last: null, check: state.plies.length === 0 ? state.check : null };
  return { fen: ply.fen, last: ply.uci, check: ply.check };
}

const live = () => view.state !== null && view.ply === view.state.plies.length;
const playing = () => view.state !== null && view.state.you !== null && view.state.status === "started";
/**
 * The person's legal moves, when it is their move on the live position; null otherwise. A new
 * position comes first without its legal moves (null), which follow a moment after.
 * @returns {LegalMove[] | null}
 */
function myMoves() {
  const state = view.state;
  if (!state || !live() || !playing() || view.pending || state.you !== state.turn) return null;
  return state.legalMoves;
}
/** @returns {Color} */
const orientation = () => (Boolean(view.state && view.state.you === "black") !== view.flipped ? "black" : "white");
/** @returns {Color} */
const firstMover = (/** @type {GameState} */ state) => (state.initialFen.split(" ")[1] === "b" ? "black" : "white");

/**
 * The move number and SAN of a ply as the move list shows them: "9. Nf3" or "9\u2026 Nf6".
 * @param {GameState} state
 * @param {number} index
 */
function moveLabel(state, index) {
  const startsBlack = firstMover(state) === "black";
  const startNumber = Number(state.initialFen.split(" ")[5] || 1);
  const number = startNumber + Math.floor((index + (startsBlack ? 1 : 0)) / 2);
  const blackMove = (index + (startsBlack ? 1 : 0)) % 2 === 1;
  return { number, blackMove, text: `${number}${blackMove ? "\u2026" : "."} ${state.plies[index].san}` };
}

// ---- the board --------------------------------------------------------------------------------

function renderBoard() {
  const { board, account } = ready();
  if (!view.state) {
    board.show({ fen: account.startingFen, last: null, check: null },
      { orientation: "white", movable: null, legalMoves: [], ply: null });
    return;
  }
  const override = screen.overlay.board(view.ply);
  if (override) {
    board.show(override.position, { orientation: orientation(), movable: override.movable,
      legalMoves: override.legalMoves, ply: view.ply });
    return;
  }
  const movable = live() && playing() ? view.state.you : null;
  board.show(shownPosition(view.state), { orientation: orientation(), movable, legalMoves: myMoves() || [],
    ply: view.ply + (view.pending ? 1 : 0) });
}

/**
 * The person played *move* on the board: shown at once, sent, taken back if the server refuses it
 * (or handed to the overlay whose position the board shows).
 * @param {LegalMove} move
 * @param {number} clickedAt
 */
async function send(move, clickedAt) {
  const gameId = view.gameId;
  if (!view.state) return;
  const override = screen.overlay.board(view.ply);
  if (override) { override.onMove(move); return; } // a move on the overlay's position, not the game's
  view.pending = { uci: move.uci, fen: move.fen, clickedAt, ply: view.state.plies.length + 1 };
  metrics.moveShown(clickedAt);
  sounds.forSan(move.san);
  render();
  try {
    await api(`/api/board/game/${gameId}/move/${move.uci}`, {});
  } catch (error) {
    if (view.gameId === gameId) {
      view.pending = null;
      render();
      setStatus(`Move refused: ${error instanceof Error ? error.message : error}`);
    }
  }
}

// ---- the game ---------------------------------------------------------------------------------

/** @param {GameState} state  a gameFull or gameState line */
function onState(state) {
  const first = state.type === "gameFull";
  if (first) {
    showNotice("");
    // On a phone the Play button is below the board: the board comes back into view.
    el.topPlayer.row.scrollIntoView({ block: "nearest" });
  }
  const before = view.state;
  const wasLive = before === null || live() || view.pending !== null;
  const previous = before && before.id === state.id ? before.plies.length : 0;
  // Our offer gone while the game goes on: the bot declined it (or moved, which declines it).
  if (!first && before && state.you !== null && before.drawOffer === state.you && state.drawOffer === null
      && state.status === "started") view.drawDeclinedAt = state.plies.length;
  view.state = state;
  view.receivedAt = performance.now();
  const pending = view.pending;
  if (pending && state.plies.length >= pending.ply) {
    view.pending = null;
    metrics.moveConfirmed(pending.clickedAt);
  } else if (pending && state.status !== "started") {
    view.pending = null;
  }
  if (first || wasLive) view.ply = state.plies.length;
  const lastMover = state.plies.length % 2 === 1 ? firstMover(state) : other(firstMover(state));
  if (!first && state.plies.length > previous) {
    if (state.you && state.lastMoveAtMs !== null && lastMover !== state.you) metrics.botMoveShown(state.lastMoveAtMs);
    if (lastMover !== state.you) sounds.forSan(state.plies[state.plies.length - 1].san);
  }
  if (!first && before && before.status === "started" && state.status !== "started") sounds.play("end");
  metrics.gameShown();
  render();
  if (el.pgnPanel.open && (first || state.plies.length !== previous || state.status !== before?.status)) loadPgn();
}

function render() {
  const state = view.state;
  if (!state) return;
  renderBoard();
  renderPlayers(state);
  const newPly = renderMoves(state);
  renderControls(state);
  renderChat(state);
  ready().board.setArrows(screen.overlay.decorate(view.ply));
  // Last, after every change to the page: scrolling lays the page out, and laying it out before
  // the other changes would make the frame lay it out twice.
  if (newPly) scrollWithin(el.moves, newPly);
}

/**
 * @param {GameState} state
 * @param {Color} color
 */
function playerName(state, color) {
  const player = state[color];
  if (state.you === color) return "You";
  return `${player.title ? player.title + " " : ""}${player.name}`;
}

/** @param {GameState} state */
function renderPlayers(state) {
  const bottom = orientation();
  for (const [player, color] of /** @type {const} */ ([[el.bottomPlayer, bottom], [el.topPlayer, other(bottom)]])) {
    player.row.dataset.color = color;
    player.name.textContent = `${color === "white" ? "\u25CB" : "\u25CF"} ${playerName(state, color)}`;
  }
  tickClocks();
}

/**
 * @param {GameState} state
 * @param {Color} color
 */
function clockMs(state, color) {
  const stored = color === "white" ? state.wtime : state.btime;
  if (state.clockRunning && state.turn === color && !view.pending) {
    return Math.max(0, stored - (performance.now() - view.receivedAt));
  }
  return Math.max(0, stored);
}

/** @param {number} ms */
function formatClock(ms) {
  if (ms >= 10000) {
    const seconds = Math.ceil(ms / 1000);
    const hours = Math.floor(seconds / 3600);
    const minutes = Math.floor((seconds % 3600) / 60);
    const rest = String(seconds % 60).padStart(2, "0");
    return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${rest}` : `${minutes}:${rest}`;
  }
  return (Math.floor(ms / 100) / 10).toFixed(1);
}

// Until both sides have moved once, the side to move has a limited time to start the game.
/** @param {GameState} state */
function tickCountdown(state) {
  const countdown = el.countdown;
  const startBy = state.startByMs;
  if (startBy === null || state.status !== "started" || view.pending) { countdown.hidden = true; return; }
  const seconds = Math.max(0, Math.ceil((startBy - performance.timeOrigin - performance.now()) / 1000));
  const who = state.you === state.turn ? "You have" : `${state[state.turn].name} has`;
  countdown.textContent = `${who} ${seconds} s to make the first move, or the game is aborted.`;
  countdown.hidden = false;
}

export function tickClocks() {
  const state = view.state;
  if (!state) return;
  tickCountdown(state);
  for (const player of [el.topPlayer, el.bottomPlayer]) {
    const color = player.row.dataset.color === "black" ? "black" : "white";
    const clock = player.clock;
    clock.hidden = false;
    if (!state.clock) { clock.textContent = "\u221E"; continue; }
    const ms = clockMs(state, color);
    clock.textContent = formatClock(ms);
    clock.dataset.ms = String(Math.round(ms));
    const running = state.clockRunning && state.turn === color && !view.pending;
    clock.classList.toggle("running", running);
    clock.classList.toggle("low", ms < 10000);
  }
}

/**
 * The move list, the new plies appended; the ply looked at marked. The element to scroll the list
 * to, if the mark moved (a move played, a step, a click on the review's graph).
 * @param {GameState} state
 * @returns {Element | null}
 */
function renderMoves(state) {
  const list = el.moves;
  const drawnMoves = screen.drawnMoves;
  if (drawnMoves.gameId !== state.id || drawnMoves.plies === 0 || drawnMoves.plies > state.plies.length) {
    list.textContent = "";
    drawnMoves.gameId = state.id;
    drawnMoves.plies = 0;
  }
  let row = list.lastElementChild;
  state.plies.slice(drawnMoves.plies).forEach((ply, offset) => {
    const index = drawnMoves.plies + offset;
    const label = moveLabel(state, index);
    if (!row || !label.blackMove) {
      row = document.createElement("li");
      row.appendChild(Object.assign(document.createElement("span"), { className: "number", textContent: `${label.number}.` }));
      if (label.blackMove) row.appendChild(Object.assign(document.createElement("span"), { className: "ply", textContent: "\u2026" }));
      list.appendChild(row);
    }
    const cell = document.createElement("span");
    cell.className = "ply";
    cell.dataset.ply = String(index + 1);
    cell.textContent = ply.san;
    cell.addEventListener("click", () => goTo(index + 1));
    row.appendChild(cell);
  });
  drawnMoves.plies = state.plies.length;
  if (state.plies.length === 0 && !list.firstElementChild) {
    const empty = document.createElement("li");
    empty.appendChild(Object.assign(document.createElement("span"), { className: "number", textContent: "" }));
    empty.appendChild(Object.assign(document.createElement("span"), { className: "ply", textContent: "no moves yet" }));
    list.appendChild(empty);
  }
  const current = list.querySelector(".current");
  const wanted = view.ply > 0 ? list.querySelector(`[data-ply="${view.ply}"]`) : null;
  if (current === wanted) return null;
  if (current) current.classList.remove("current");
  if (!wanted) return null;
  wanted.classList.add("current");
  return wanted;
}

/** @param {GameState} state */
function renderControls(state) {
  const player = state.you !== null;
  // A spectator gets no player's buttons at all, not disabled ones.
  for (const button of [el.resign, el.abort, el.rematch]) button.hidden = !player;
  // Analysis of a game the person is playing never: the engine would play it for them.
  el.analyseGame.hidden = playing();
  el.review.hidden = state.status === "started" || state.plies.length === 0 || !["mate", "resign", "stalemate",
    "timeout", "draw", "outoftime", "variantEnd"].includes(state.status);
  el.resign.disabled = !playing() || state.plies.length < 2;
  el.abort.disabled = !state.abortable;
  el.draw.hidden = !ready().account.drawOffers || !player;
  el.draw.disabled = !playing() || state.drawOffer !== null;
  renderDrawOffer(state);
  el.rematch.disabled = state.status === "started";
  el.first.disabled = el.back.disabled = view.ply === 0;
  el.last.disabled = el.forward.disabled = live();
  el.downloadPgn.href = `/api/board/game/${state.id}/pgn`;
  el.chatText.disabled = !player;
  const status = el.status;
  status.classList.toggle("over", state.status !== "started");
  if (state.status !== "started") {
    const loser = state.winner ? playerName(state, other(state.winner)) : "";
    const result = resultOf(state.winner, state.status);
    const reason = (STATUS_TEXT[state.status] || (() => state.status))(loser);
    const who = !state.winner ? "" : state.winner === state.you ? " \u00B7 You win" : ` \u00B7 ${playerName(state, state.winner)} wins`;
    status.textContent = `${result} \u00B7 ${reason}${who}`;
    status.dataset.result = result;
  } else {
    delete status.dataset.result;
    const turn = view.pending ? other(state.turn) : state.turn;
    // "Your move" once the page can take it: its legal moves follow the position by a moment.
    status.textContent = state.you === null ? `${playerName(state, turn)} to move`
      : turn !== state.you ? `${state[turn].name} is thinking\u2026` : myMoves() !== null ? "Your move" : "Your move\u2026";
  }
  // An overlay (learn from your mistakes) shows its own position, and its own words say which.
  el.viewing.textContent = live() || screen.overlay.board(view.ply) ? ""
    : view.ply === 0 ? "Viewing the start position" : `Viewing the position after ${moveLabel(state, view.ply - 1).text}`;
  const title = state.status !== "started" ? status.textContent
    : state.you === state.turn && !view.pending ? "Your move" : `${state[state.turn].name} to move`;
  setTitleAfterFrame(`${title} \u00B7 Knightmate`);
  el.newGamePanel.hidden = playing();
  el.gamePanel.hidden = false;
}

/**
 * Setting document.title takes milliseconds in Chromium (3 ms typical, 11 ms at worst in
 * bench/page/web_latency.py), so the tab's title follows once the frame with the update is painted.
 * @param {string} title
 */
function setTitleAfterFrame(title) {
  if (title === screen.titleWanted) return;
  screen.titleWanted = title;
  afterPaint(() => { if (document.title !== screen.titleWanted) document.title = screen.titleWanted; });
}

/**
 * The standing draw offer, whoever made it, and a decline of ours.
 * @param {GameState} state
 */
function renderDrawOffer(state) {
  const theirs = playing() && state.drawOffer !== null && state.drawOffer !== state.you;
  const opponent = state.you ? playerName(state, other(state.you)) : "";
  const text = !playing() ? ""
    : theirs ? `${opponent} offers a draw.`
      : state.drawOffer === state.you ? `You offer a draw: ${opponent} accepts it, or declines it by moving.`
        : view.drawDeclinedAt === state.plies.length && !view.pending ? `${opponent} declined the draw.` : "";
  if (el.drawText.textContent !== text) el.drawText.textContent = text;
  el.drawAccept.hidden = el.drawDecline.hidden = !theirs;
  el.drawOffer.hidden = !text;
}

/** @param {GameState} state */
function renderChat(state) {
  const lines = el.chatLines;
  const chat = state.chat;
  if (lines.children.length === chat.length) return;
  lines.textContent = "";
  for (const line of chat) {
    const item = document.createElement("li");
    item.className = `room-${line.room}`;
    item.appendChild(Object.assign(document.createElement("span"), { className: "who", textContent: line.username }));
    item.appendChild(document.createTextNode(line.text));
    lines.appendChild(item);
  }
  lines.scrollTop = lines.scrollHeight;
}

/** @param {string} text */
function setStatus(text) {
  el.status.textContent = text;
}

/**
 * Shows the position after *ply* (0: the start; past the end: now).
 * @param {number} ply
 */
export function goTo(ply) {
  if (!view.state) return;
  view.ply = Math.max(0, Math.min(view.state.plies.length, ply));
  render();
}

export function flip() {
  view.flipped = !view.flipped;
  if (view.state) render();
}

/** @param {string} gameId */
export function openGame(gameId) {
  if (view.stream) view.stream.abort();
  view.gameId = gameId;
  view.state = null;
  view.pending = null;
  view.flipped = false;
  view.drawDeclinedAt = null;
  el.promotion.hidden = true;
  el.pgn.value = "";
  el.chatLines.textContent = "";
  ready().board.cancel();
  screen.overlay.reset();
  const controller = new AbortController();
  view.stream = controller;
  follow(`/api/board/game/stream/${gameId}`, (/** @type {GameState} */ line) => {
    if (view.gameId === gameId && (line.type === "gameFull" || line.type === "gameState")) onState(line);
  }, controller.signal);
  screen.gameOpened();
}

export function closeStream() {
  if (view.stream) view.stream.abort();
}

/** Closes the promotion's chooser, if open; whether it was. */
export function cancelPromotion() {
  if (el.promotion.hidden) return false;
  ready().board.hidePromotion();
  render();
  return true;
}

// The PGN panel follows the game: the bot's own file once the game is over, the server's record
// of it (with its real headers) while it goes on.
export async function loadPgn() {
  if (!view.gameId) return;
  const asked = ++screen.pgnAsked;
  const response = await fetch(`/api/board/game/${view.gameId}/pgn`, { credentials: "same-origin" }).catch(() => null);
  if (asked !== screen.pgnAsked || !response) return;
  el.pgn.value = response.ok ? await response.text() : "";
}

/**
 * The game as the analysis board opens it: start, main line, the side the person sees it from,
 * and the PGN tags its copy carries (the players, and the result once there is one).
 * @returns {{ initialFen: string, plies: Ply[], flipped: boolean, headers: Record<string, string> } | null}
 */
export function forAnalysis() {
  const state = view.state;
  if (!state) return null;
  const result = state.status === "started" ? "*" : resultOf(state.winner, state.status);
  return { initialFen: state.initialFen, plies: state.plies, flipped: orientation() === "black",
    headers: { White: state.white.name, Black: state.black.name, Result: result } };
}

/**
 * Posts one of the game's actions; the server's refusal shows in the status line.
 * @param {string} action
 * @param {Record<string, string>} [form]
 */
function act(action, form = {}) {
  return api(`/api/board/game/${view.gameId}/${action}`, form)
    .catch((error) => setStatus(error instanceof Error ? error.message : String(error)));
}

export const gameActions = {
  resign: () => act("resign"),
  abort: () => act("abort"),
  draw: (/** @type {"yes" | "no"} */ answer) => act(`draw/${answer}`),
  chat: (/** @type {string} */ text) => act("chat", { text }),
};
