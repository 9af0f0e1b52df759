// One game on the page, played or watched: its state from the server's stream, the board, the
// players and clocks, the move list, the controls, the draw offer, the chat and the live PGN.
import { $, afterPaint, metrics, other, showNotice } from "./page.js";
import { api, follow } from "./network.js";
import { Board } from "./board.js";
import * as sounds from "./sounds.js";
import * as review from "./review.js";

const STATUS_TEXT = {
  mate: () => "Checkmate", resign: (loser) => `${loser} resigned`, stalemate: () => "Stalemate",
  timeout: (loser) => `${loser} left the game`, draw: () => "Draw", outoftime: (loser) => `${loser} ran out of time`,
  aborted: () => "Game aborted", noStart: () => "The game never started",
  illegalMove: (loser) => `${loser} made an illegal move`, variantEnd: () => "Game over",
};

export const view = {
  account: null, gameId: null, state: null, receivedAt: 0, ply: 0, flipped: false,
  pending: null, stream: null, drawDeclinedAt: null,
};

let board = null;
// Told when the game shown changes (the lobby marks it in the games list).
let onGameOpened = () => {};

export function setUp(account, gameOpened) {
  view.account = account;
  onGameOpened = gameOpened;
  board = new Board($("board"), $("promotion"), send);
  renderBoard();
}

// ---- positions --------------------------------------------------------------------------------

function shownPosition() {
  const state = view.state;
  if (view.pending) return { fen: view.pending.fen, last: view.pending.uci, check: null };
  const ply = state.plies[view.ply - 1];
  if (!ply) return { fen: state.initialFen, last: null, check: state.plies.length === 0 ? state.check : null };
  return { fen: ply.fen, last: ply.uci, check: ply.check };
}

const live = () => view.state !== null && view.ply === view.state.plies.length;
const playing = () => view.state !== null && view.state.you !== null && view.state.status === "started";
// A new position comes first without its legal moves (null), which follow a moment after.
const myTurn = () => live() && playing() && !view.pending && view.state.you === view.state.turn
  && view.state.legalMoves !== null;
const orientation = () => (Boolean(view.state && view.state.you === "black") !== view.flipped ? "black" : "white");
const firstMover = (state) => (state.initialFen.split(" ")[1] === "b" ? "black" : "white");

// The move number and SAN of a ply as the move list shows them: "9. Nf3" or "9\u2026 Nf6".
function moveLabel(state, index) {
  const startsBlack = firstMover(state) === "black";
  const startNumber = Number(state.initialFen.split(" ")[5] || 1);
  const number = startNumber + Math.floor((index + (startsBlack ? 1 : 0)) / 2);
  const blackMove = (index + (startsBlack ? 1 : 0)) % 2 === 1;
  return { number, blackMove, text: `${number}${blackMove ? "\u2026" : "."} ${state.plies[index].san}` };
}

// ---- the board --------------------------------------------------------------------------------

function renderBoard() {
  if (!view.state) {
    board.show({ fen: view.account.startingFen, last: null, check: null },
      { orientation: "white", movable: null, legalMoves: [], ply: null });
    return;
  }
  const movable = live() && playing() ? view.state.you : null;
  board.show(shownPosition(), { orientation: orientation(), movable, legalMoves: myTurn() ? view.state.legalMoves : [],
    ply: view.ply + (view.pending ? 1 : 0) });
}

async function send(move, clickedAt) {
  const gameId = view.gameId;
  view.pending = { uci: move.uci, fen: move.fen, clickedAt, ply: view.state.plies.length + 1 };
  afterPaint(() => metrics.clickToShown.push(performance.now() - clickedAt));
  sounds.forSan(move.san);
  render();
  try {
    await api(`/api/board/game/${gameId}/move/${move.uci}`, {});
  } catch (error) {
    if (view.gameId === gameId) {
      view.pending = null;
      render();
      setStatus(`Move refused: ${error.message}`);
    }
  }
}

// ---- the game ---------------------------------------------------------------------------------

function onState(state) {
  const first = state.type === "gameFull";
  if (first) showNotice("");
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
    afterPaint(() => metrics.clickToConfirmed.push(performance.now() - pending.clickedAt));
  } else if (pending && state.status !== "started") {
    view.pending = null;
  }
  if (first || wasLive) view.ply = state.plies.length;
  const lastMover = state.plies.length % 2 === 1 ? firstMover(state) : other(firstMover(state));
  if (!first && state.plies.length > previous) {
    if (state.you && state.lastMoveAtMs !== null && lastMover !== state.you) {
      afterPaint(() => metrics.botMoveToShown.push(Date.now() - state.lastMoveAtMs));
    }
    if (lastMover !== state.you) sounds.forSan(state.plies[state.plies.length - 1].san);
  }
  if (!first && before && before.status === "started" && state.status !== "started") sounds.play("end");
  if (metrics.gameShownMs === null) afterPaint(() => { metrics.gameShownMs = performance.now(); });
  render();
  if ($("pgn-panel").open && (first || state.plies.length !== previous || state.status !== before?.status)) loadPgn();
}

export function render() {
  renderBoard();
  renderPlayers();
  const newPly = renderMoves();
  renderControls();
  renderChat();
  board.setArrows(review.decorate(view.ply));
  // Last, after every change to the page: scrolling lays the page out, and laying it out before
  // the other changes would make the frame lay it out twice.
  if (newPly) newPly.scrollIntoView({ block: "nearest" });
}

function playerName(color) {
  const player = view.state[color];
  if (view.state.you === color) return "You";
  return `${player.title ? player.title + " " : ""}${player.name}`;
}

function renderPlayers() {
  const bottom = orientation();
  for (const [id, color] of [["bottom-player", bottom], ["top-player", other(bottom)]]) {
    const row = $(id);
    row.dataset.color = color;
    row.querySelector(".name").textContent = `${color === "white" ? "\u25CB" : "\u25CF"} ${playerName(color)}`;
  }
  tickClocks();
}

function clockMs(color) {
  const state = view.state;
  const stored = color === "white" ? state.wtime : state.btime;
  if (state.clockRunning && state.turn === color && !view.pending) {
    return Math.max(0, stored - (performance.now() - view.receivedAt));
  }
  return Math.max(0, stored);
}

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
function tickCountdown() {
  const countdown = $("countdown");
  const state = view.state;
  const startBy = state.startByMs;
  if (startBy === null || state.status !== "started" || view.pending) { countdown.hidden = true; return; }
  const seconds = Math.max(0, Math.ceil((startBy - performance.timeOrigin - performance.now()) / 1000));
  const who = state.you === state.turn ? "You have" : `${state[state.turn].name} has`;
  countdown.textContent = `${who} ${seconds} s to make the first move, or the game is aborted.`;
  countdown.hidden = false;
}

export function tickClocks() {
  if (!view.state) return;
  tickCountdown();
  for (const id of ["top-player", "bottom-player"]) {
    const row = $(id);
    const color = row.dataset.color;
    const clock = row.querySelector(".clock");
    clock.hidden = false;
    if (!view.state.clock) { clock.textContent = "\u221E"; continue; }
    const ms = clockMs(color);
    clock.textContent = formatClock(ms);
    clock.dataset.ms = String(Math.round(ms));
    const running = view.state.clockRunning && view.state.turn === color && !view.pending;
    clock.classList.toggle("running", running);
    clock.classList.toggle("low", ms < 10000);
  }
}

// The move list as drawn: of which game and how many plies, so that an update only appends the
// plies that are new (a game's plies are never taken back).
const drawnMoves = { gameId: null, plies: 0 };

function renderMoves() {
  const list = $("moves");
  const state = view.state;
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
  return live() ? wanted : null;
}

function renderControls() {
  const state = view.state;
  const player = state.you !== null;
  // A spectator gets no player's buttons at all, not disabled ones.
  for (const id of ["resign", "abort", "rematch"]) $(id).hidden = !player;
  // Analysis of a game the person is playing never: the engine would play it for them.
  $("analyse-game").hidden = playing();
  $("review").hidden = state.status === "started" || state.plies.length === 0 || !["mate", "resign", "stalemate",
    "timeout", "draw", "outoftime", "variantEnd"].includes(state.status);
  $("resign").disabled = !playing() || state.plies.length < 2;
  $("abort").disabled = !state.abortable;
  $("draw").hidden = !view.account.drawOffers || !player;
  $("draw").disabled = !playing() || state.drawOffer !== null;
  renderDrawOffer(state);
  $("rematch").disabled = state.status === "started";
  $("first").disabled = $("back").disabled = view.ply === 0;
  $("last").disabled = $("forward").disabled = live();
  $("download-pgn").href = `/api/board/game/${state.id}/pgn`;
  $("chat-text").disabled = !player;
  const status = $("status");
  status.classList.toggle("over", state.status !== "started");
  if (state.status !== "started") {
    const loser = state.winner ? playerName(other(state.winner)) : "";
    const result = resultOf(state.winner, state.status);
    const reason = (STATUS_TEXT[state.status] || (() => state.status))(loser);
    const who = !state.winner ? "" : state.winner === state.you ? " \u00B7 You win" : ` \u00B7 ${playerName(state.winner)} wins`;
    status.textContent = `${result} \u00B7 ${reason}${who}`;
    status.dataset.result = result;
  } else {
    delete status.dataset.result;
    const turn = view.pending ? other(state.turn) : state.turn;
    // "Your move" once the page can take it: its legal moves follow the position by a moment.
    status.textContent = state.you === null ? `${playerName(turn)} to move`
      : turn !== state.you ? `${state[turn].name} is thinking\u2026` : myTurn() ? "Your move" : "Your move\u2026";
  }
  $("viewing").textContent = live() ? ""
    : view.ply === 0 ? "Viewing the start position" : `Viewing the position after ${moveLabel(state, view.ply - 1).text}`;
  const title = state.status !== "started" ? status.textContent
    : state.you === state.turn && !view.pending ? "Your move" : `${state[state.turn].name} to move`;
  setTitleAfterFrame(`${title} \u00B7 Knightmate`);
  $("new-game").hidden = playing();
  $("game-panel").hidden = false;
}

// Setting document.title takes milliseconds in Chromium (3 ms typical, 11 ms at worst in
// bench/page/web_latency.py), so the tab's title follows once the frame with the update is painted.
let titleWanted = document.title;
function setTitleAfterFrame(title) {
  if (title === titleWanted) return;
  titleWanted = title;
  afterPaint(() => { if (document.title !== titleWanted) document.title = titleWanted; });
}

// The standing draw offer, whoever made it, and a decline of ours.
function renderDrawOffer(state) {
  const theirs = playing() && state.drawOffer !== null && state.drawOffer !== state.you;
  const opponent = state.you ? playerName(other(state.you)) : "";
  const text = !playing() ? ""
    : theirs ? `${opponent} offers a draw.`
      : state.drawOffer === state.you ? `You offer a draw: ${opponent} accepts it, or declines it by moving.`
        : view.drawDeclinedAt === state.plies.length && !view.pending ? `${opponent} declined the draw.` : "";
  if ($("draw-text").textContent !== text) $("draw-text").textContent = text;
  $("draw-accept").hidden = $("draw-decline").hidden = !theirs;
  $("draw-offer").hidden = !text;
}

export function resultOf(winner, status) {
  if (winner) return winner === "white" ? "1-0" : "0-1";
  return ["aborted", "noStart"].includes(status) ? "*" : "\u00BD-\u00BD";
}

function renderChat() {
  const lines = $("chat-lines");
  const chat = view.state.chat;
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

export function setStatus(text) {
  $("status").textContent = text;
}

export function goTo(ply) {
  if (!view.state) return;
  view.ply = Math.max(0, Math.min(view.state.plies.length, ply));
  render();
}

export function flip() {
  view.flipped = !view.flipped;
  if (view.state) render();
}

export function openGame(gameId) {
  if (view.stream) view.stream.abort();
  view.gameId = gameId;
  view.state = null;
  view.pending = null;
  view.flipped = false;
  view.drawDeclinedAt = null;
  $("promotion").hidden = true;
  $("pgn").value = "";
  $("chat-lines").textContent = "";
  board.cancel();
  review.reset();
  const controller = new AbortController();
  view.stream = controller;
  follow(`/api/board/game/stream/${gameId}`, (line) => {
    if (view.gameId === gameId && (line.type === "gameFull" || line.type === "gameState")) onState(line);
  }, controller.signal);
  onGameOpened();
}

export function closeStream() {
  if (view.stream) view.stream.abort();
}

export function cancelPromotion() {
  if ($("promotion").hidden) return false;
  board.hidePromotion();
  render();
  return true;
}

// The PGN panel follows the game: the bot's own file once the game is over, the server's record
// of it (with its real headers) while it goes on.
let pgnAsked = 0;
export async function loadPgn() {
  if (!view.gameId) return;
  const asked = ++pgnAsked;
  const response = await fetch(`/api/board/game/${view.gameId}/pgn`, { credentials: "same-origin" }).catch(() => null);
  if (asked !== pgnAsked || !response) return;
  $("pgn").value = response.ok ? await response.text() : "";
}

// The game as the analysis board opens it: start, main line, the side the person sees it from.
export function forAnalysis() {
  return { initialFen: view.state.initialFen, plies: view.state.plies, flipped: orientation() === "black" };
}

export const gameActions = {
  resign: () => api(`/api/board/game/${view.gameId}/resign`, {}).catch((error) => setStatus(error.message)),
  abort: () => api(`/api/board/game/${view.gameId}/abort`, {}).catch((error) => setStatus(error.message)),
  draw: (answer) => api(`/api/board/game/${view.gameId}/draw/${answer}`, {}).catch((error) => setStatus(error.message)),
  chat: (text) => api(`/api/board/game/${view.gameId}/chat`, { text }).catch((error) => setStatus(error.message)),
};
