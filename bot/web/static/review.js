// @ts-check
// Game review: a finished game's every move judged on the server (bot/analysis), with a progress
// bar; then the evaluation graph under the board (a click goes to that move), the inaccuracies,
// mistakes and blunders marked in the move list, the better move as an arrow on the position
// before an error, each side's counts and accuracy, and the annotated PGN to download. It knows
// the game view only through state.js and the hooks play.js hands over: no import of game.js.
import { el } from "./elements.js";
import { readLines } from "./network.js";
import { view } from "./state.js";
/** @import { Score } from "./network.js" */
/** @import { Arrow } from "./board.js" */
/** @import { GameOverlay } from "./state.js" */

/**
 * @typedef {object} ReviewedMove
 * @property {number} ply  1 for the first move
 * @property {string} san
 * @property {"Inaccuracy" | "Mistake" | "Blunder" | null} judgement
 * @property {{ uci: string, san: string } | null} better
 *
 * @typedef {{ inaccuracies: number, mistakes: number, blunders: number, accuracy: number | null }} SideCounts
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

// The review's one state. Written only here.
const review = {
  /** @type {Review | null} */ shown: null,
  /** @type {AbortController | null} */ running: null, // the review under way
  /** @type {(ply: number) => void} */ goTo: () => {}, // the game view's, handed over by wire()
};

export function reset() {
  if (review.running) review.running.abort();
  review.running = null;
  review.shown = null;
  el.reviewPanel.hidden = true;
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

/**
 * @param {string} name
 * @param {SideCounts} counts
 */
function side(name, counts) {
  const accuracy = counts.accuracy === null ? "\u2013" : `${counts.accuracy}%`;
  return `${name}: accuracy ${accuracy}, ${counts.inaccuracies} inaccuracies, ${counts.mistakes} mistakes, ${counts.blunders} blunders`;
}

/** @param {Review} reviewed */
function show(reviewed) {
  review.shown = reviewed;
  el.reviewProgress.hidden = true;
  el.reviewSummary.textContent = `${side("White", reviewed.white)}. ${side("Black", reviewed.black)}.`;
  el.reviewDownload.href = `/api/review/${reviewed.gameId}/pgn`;
  el.reviewDownload.hidden = false;
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

/** @param {Review} reviewed */
function drawGraph(reviewed) {
  const graph = el.reviewGraph;
  graph.textContent = "";
  const n = reviewed.evals.length;
  const width = Math.max(1, n - 1) * 10;
  graph.setAttribute("viewBox", `0 0 ${width} 100`);
  graph.setAttribute("preserveAspectRatio", "none");
  const y = (/** @type {Score} */ score) => 100 - score.winPercent; // White's share, worked out by the server
  const points = reviewed.evals.map((score, i) => `${i * 10},${y(score).toFixed(1)}`);
  graph.appendChild(svg("polygon", { points: `0,100 ${points.join(" ")} ${width},100`, class: "white-area" }));
  graph.appendChild(svg("line", { x1: 0, y1: 50, x2: width, y2: 50, class: "middle" }));
  for (const move of reviewed.moves) {
    if (!move.judgement) continue;
    graph.appendChild(svg("circle", { cx: move.ply * 10, cy: y(reviewed.evals[move.ply]), r: 3.5,
      class: `error ${move.judgement.toLowerCase()}`, "data-ply": move.ply }));
  }
  graph.appendChild(svg("line", { class: "cursor" }));
}

// The graph's click: the position at that point of the game.
/** @param {MouseEvent} event */
function onGraphClick(event) {
  if (!review.shown) return;
  const box = el.reviewGraph.getBoundingClientRect();
  review.goTo(Math.round(((event.clientX - box.left) / box.width) * (review.shown.evals.length - 1)));
}

/**
 * Called by the game view's render: marks in the move list, the graph's cursor, the better move's arrow.
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
    cell.title = `${move.judgement}${move.better ? `: ${move.better.san} was better` : ""}`;
    cell.appendChild(Object.assign(document.createElement("span"), { className: "nag", textContent: SYMBOLS[move.judgement] }));
  }
  const cursor = el.reviewGraph.querySelector(".cursor");
  if (cursor) {
    for (const [k, v] of Object.entries({ x1: ply * 10, x2: ply * 10, y1: 0, y2: 100 })) cursor.setAttribute(k, String(v));
  }
  const error = reviewed.moves.find((m) => m.ply === ply + 1 && m.better);
  return error && error.better ? [{ from: error.better.uci.slice(0, 2), to: error.better.uci.slice(2, 4), brush: "green" }] : [];
}

/**
 * The review as the game view's overlay: drawn over each render, dropped when another game opens.
 * @type {GameOverlay}
 */
export const overlay = { decorate, reset };

/**
 * @param {(ply: number) => void} goTo  the game view's: shows that ply of the game, drawn again
 */
export function wire(goTo) {
  review.goTo = goTo;
  el.review.addEventListener("click", start);
  el.reviewGraph.addEventListener("click", onGraphClick);
}
