// @ts-check
// Game review: a finished game's every move judged on the server (bot/analysis), with a progress
// bar; then the evaluation graph above the move list (a click goes to that move), the
// inaccuracies, mistakes and blunders marked in the move list with the better move, its arrow on
// the position before an error, each side's counts and accuracy, the annotated PGN to download,
// and learning from one's mistakes (learn.js). It knows
// the game view only through state.js and the hooks play.js hands over: no import of game.js.
import { el } from "./elements.js";
import { readLines } from "./network.js";
import { view } from "./state.js";
import * as learn from "./learn.js";
/** @import { Color, Score } from "./network.js" */
/** @import { Arrow } from "./board.js" */
/** @import { GameOverlay } from "./state.js" */

/**
 * @typedef {object} ReviewedMove
 * @property {number} ply  1 for the first move
 * @property {string} san
 * @property {Color} color  the mover
 * @property {"Inaccuracy" | "Mistake" | "Blunder" | null} judgement
 * @property {{ uci: string, san: string, fen: string, piece: string | null } | null} better  the engine's
 *   move instead of an error, the position after it and the letter of its piece
 * @property {string | null} comment  "Blunder. Bxg4 was best.", as the annotated PGN writes it
 *
 * @typedef {{ inaccuracies: number, mistakes: number, blunders: number, accuracy: number | null,
 *   summary: string }} SideCounts  accuracy in whole percent; summary worded as the PGN words it
 *
 * @typedef {object} Review  the stream's review line, and the game it is of
 * @property {string} gameId
 * @property {Score[]} evals  the start position first, then one after each move
 * @property {ReviewedMove[]} moves
 * @property {SideCounts} white
 * @property {SideCounts} black
 */

const SVG = "http://www.w3.org/2000/svg";
const SYMBOLS = { Inaccuracy: "?!", Mistake: "?", Blunder: "??" };
const MARK_RADIUS_PX = 4.5; // a mark on the graph: a round dot of this size at any width

// The review's one state. Written only here.
const review = {
  /** @type {Review | null} */ shown: null,
  /** @type {AbortController | null} */ running: null, // the review under way
  /** @type {(ply: number) => void} */ goTo: () => {}, // the game view's, handed over by wire()
};

export function reset() {
  learn.stop();
  el.learnStart.hidden = true;
  if (review.running) review.running.abort();
  review.running = null;
  review.shown = null;
  el.reviewPanel.hidden = true;
  el.reviewGraph.toggleAttribute("hidden", true); // an SVG element has the attribute, not the property
  el.reviewGraph.textContent = "";
}

async function start() {
  const gameId = view.gameId;
  if (!gameId) return;
  reset();
  const controller = new AbortController();
  review.running = controller;
  el.reviewPanel.hidden = false;
  el.reviewProgress.hidden = false;
  el.reviewProgress.value = 0;
  el.reviewSummary.textContent = "Reviewing every move\u2026";
  el.reviewDownload.hidden = true;
  el.reviewPanel.scrollIntoView({ block: "nearest" }); // the progress in view: the review is under way
  try {
    const response = await fetch(`/api/review/stream/${gameId}`, { credentials: "same-origin", signal: controller.signal });
    if (!response.ok) {
      el.reviewSummary.textContent = (await response.json().catch(() => ({}))).error || `${response.status}`;
      return;
    }
    await readLines(response, (line) => {
      if (review.running !== controller) return;
      if (line.type === "progress") {
        el.reviewProgress.max = line.total;
        el.reviewProgress.value = line.done;
      } else if (line.type === "review") {
        show({ gameId, evals: line.evals, moves: line.moves, white: line.white, black: line.black });
      } else if (line.type === "end") {
        el.reviewSummary.textContent = `No review: ${line.reason}`;
      }
    });
  } catch (error) {
    if (!controller.signal.aborted) el.reviewSummary.textContent = "The server does not answer.";
  }
}

/** @param {Review} reviewed */
function show(reviewed) {
  review.shown = reviewed;
  el.reviewProgress.hidden = true;
  el.reviewSummary.textContent = `White: ${reviewed.white.summary}.\nBlack: ${reviewed.black.summary}.`;
  el.reviewDownload.href = `/api/review/${reviewed.gameId}/pgn`;
  el.reviewDownload.hidden = false;
  el.learnStart.hidden = learn.errorsOf(reviewed.moves).length === 0;
  el.reviewGraph.toggleAttribute("hidden", false);
  drawGraph(reviewed);
  review.goTo(view.ply); // the game view drawn again, now with the review's marks
}

/**
 * An SVG element of the graph with *attributes*.
 * @param {string} tag
 * @param {Record<string, string | number>} attributes
 */
function svg(tag, attributes) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  return element;
}

/**
 * The graph in the graph's own pixels (drawn again when its size changes), so that its marks are
 * round dots whatever the game's length and the screen's width.
 * @param {Review} reviewed
 */
function drawGraph(reviewed) {
  const graph = el.reviewGraph;
  graph.textContent = "";
  const width = graph.clientWidth || 1;
  const height = graph.clientHeight || 1;
  graph.setAttribute("viewBox", `0 0 ${width} ${height}`);
  const x = xOf(reviewed);
  const y = (/** @type {Score} */ score) => ((100 - score.winPercent) / 100) * height; // White's share, from the server
  const points = reviewed.evals.map((score, i) => `${x(i).toFixed(1)},${y(score).toFixed(1)}`);
  graph.appendChild(svg("polygon", { points: `0,${height} ${points.join(" ")} ${width},${height}`, class: "white-area" }));
  graph.appendChild(svg("line", { x1: 0, y1: height / 2, x2: width, y2: height / 2, class: "middle" }));
  for (const move of reviewed.moves) {
    if (!move.judgement) continue;
    const cy = Math.min(height - MARK_RADIUS_PX, Math.max(MARK_RADIUS_PX, y(reviewed.evals[move.ply])));
    graph.appendChild(svg("circle", { cx: x(move.ply), cy, r: MARK_RADIUS_PX,
      class: `error ${move.judgement.toLowerCase()}`, "data-ply": move.ply }));
  }
  graph.appendChild(svg("line", { class: "cursor" }));
  placeCursor(view.ply);
}

/**
 * Where ply *i* is across the graph, in its pixels.
 * @param {Review} reviewed
 */
function xOf(reviewed) {
  const inner = Math.max(1, el.reviewGraph.clientWidth - 2 * MARK_RADIUS_PX); // the first and last marks whole
  return (/** @type {number} */ i) => MARK_RADIUS_PX + (i / Math.max(1, reviewed.evals.length - 1)) * inner;
}

/** @param {number} ply */
function placeCursor(ply) {
  const cursor = el.reviewGraph.querySelector(".cursor");
  if (!cursor || !review.shown) return;
  const x = xOf(review.shown)(ply);
  for (const [k, v] of Object.entries({ x1: x, x2: x, y1: 0, y2: el.reviewGraph.clientHeight })) cursor.setAttribute(k, String(v));
}

// The graph's click: the position at that point of the game.
/** @param {MouseEvent} event */
function onGraphClick(event) {
  if (!review.shown) return;
  const box = el.reviewGraph.getBoundingClientRect();
  const across = (event.clientX - box.left - MARK_RADIUS_PX) / Math.max(1, box.width - 2 * MARK_RADIUS_PX);
  review.goTo(Math.round(across * (review.shown.evals.length - 1)));
}

/**
 * Called by the game view's render: marks and sentences in the move list, the graph's cursor, the
 * better move's arrow.
 * @param {number} ply
 * @returns {Arrow[]}
 */
function decorate(ply) {
  const reviewed = review.shown;
  if (!reviewed || reviewed.gameId !== view.gameId) return [];
  for (const move of reviewed.moves) {
    const cell = el.moves.querySelector(`[data-ply="${move.ply}"]`);
    if (!(cell instanceof HTMLElement) || !move.judgement || cell.dataset.judgement) continue;
    cell.dataset.judgement = move.judgement.toLowerCase();
    cell.appendChild(Object.assign(document.createElement("span"), { className: "nag", textContent: SYMBOLS[move.judgement] }));
    if (move.comment) addComment(cell, move.comment);
  }
  placeCursor(ply);
  if (learn.isActive()) return learn.decorate(ply); // not the better move's arrow: that is the answer
  const error = reviewed.moves.find((m) => m.ply === ply + 1 && m.better);
  return error && error.better ? [{ from: error.better.uci.slice(0, 2), to: error.better.uci.slice(2, 4), brush: "green" }] : [];
}

/**
 * The error's sentence on a line of its own under the move, as Lichess sets a comment; a White
 * move's reply goes on after it, behind "…".
 * @param {HTMLElement} cell
 * @param {string} text
 */
function addComment(cell, text) {
  const reply = cell.nextElementSibling;
  const comment = Object.assign(document.createElement("span"), { className: "comment", textContent: text });
  cell.after(comment);
  if (!reply) return;
  const number = cell.parentElement?.querySelector(".number")?.textContent || "";
  comment.after(Object.assign(document.createElement("span"), { className: "number", textContent: number }),
    Object.assign(document.createElement("span"), { className: "ply", textContent: "\u2026" }));
}

/**
 * The review as the game view's overlay: drawn over each render, dropped when another game opens.
 * @type {GameOverlay}
 */
export const overlay = { decorate, board: learn.board, reset };

/**
 * @param {(ply: number) => void} goTo  the game view's: shows that ply of the game, drawn again
 */
export function wire(goTo) {
  review.goTo = goTo;
  el.review.addEventListener("click", start);
  el.reviewGraph.addEventListener("click", onGraphClick);
  el.learnStart.addEventListener("click", () => { if (review.shown) learn.start(review.shown.moves, review.goTo); });
  learn.wire();
  new ResizeObserver(() => { if (review.shown && !el.reviewGraph.hasAttribute("hidden")) drawGraph(review.shown); }).observe(el.reviewGraph);
}
