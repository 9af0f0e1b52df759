// Game review: a finished game's every move judged on the server (bot/analysis), with a progress
// bar; then the evaluation graph under the board (a click goes to that move), the inaccuracies,
// mistakes and blunders marked in the move list, the better move as an arrow on the position
// before an error, each side's counts and accuracy, and the annotated PGN to download.
import { $ } from "./page.js";
import { readLines } from "./network.js";
import { view, goTo, render } from "./game.js";

const SVG = "http://www.w3.org/2000/svg";
const SYMBOLS = { Inaccuracy: "?!", Mistake: "?", Blunder: "??" };
let reviewed = null; // {gameId, moves, evals, ...} of the review shown
let running = null; // the AbortController of the review under way

export function reset() {
  if (running) running.abort();
  running = null;
  reviewed = null;
  $("review-panel").hidden = true;
  $("review-graph").textContent = "";
}

export async function start() {
  const gameId = view.gameId;
  reset();
  const controller = new AbortController();
  running = controller;
  $("review-panel").hidden = false;
  $("review-progress").hidden = false;
  $("review-progress").value = 0;
  $("review-summary").textContent = "Reviewing every move\u2026";
  $("review-download").hidden = true;
  try {
    const response = await fetch(`/api/review/stream/${gameId}`, { credentials: "same-origin", signal: controller.signal });
    if (!response.ok) {
      $("review-summary").textContent = (await response.json().catch(() => ({}))).error || `${response.status}`;
      return;
    }
    await readLines(response, (line) => {
      if (running !== controller) return;
      if (line.type === "progress") {
        $("review-progress").max = line.total;
        $("review-progress").value = line.done;
      } else if (line.type === "review") {
        reviewed = { gameId, ...line };
        show();
      } else if (line.type === "end") {
        $("review-summary").textContent = `No review: ${line.reason}`;
      }
    });
  } catch (error) {
    if (!controller.signal.aborted) $("review-summary").textContent = "The server does not answer.";
  }
}

function side(name, counts) {
  const accuracy = counts.accuracy === null ? "\u2013" : `${counts.accuracy}%`;
  return `${name}: accuracy ${accuracy}, ${counts.inaccuracies} inaccuracies, ${counts.mistakes} mistakes, ${counts.blunders} blunders`;
}

function show() {
  $("review-progress").hidden = true;
  $("review-summary").textContent = `${side("White", reviewed.white)}. ${side("Black", reviewed.black)}.`;
  $("review-download").href = `/api/review/${reviewed.gameId}/pgn`;
  $("review-download").hidden = false;
  drawGraph();
  render();
}

function drawGraph() {
  const graph = $("review-graph");
  graph.textContent = "";
  const n = reviewed.evals.length;
  const width = Math.max(1, n - 1) * 10;
  graph.setAttribute("viewBox", `0 0 ${width} 100`);
  graph.setAttribute("preserveAspectRatio", "none");
  const y = (score) => 100 - score.winPercent; // White's share, worked out by the server
  const points = reviewed.evals.map((score, i) => `${i * 10},${y(score).toFixed(1)}`);
  const area = document.createElementNS(SVG, "polygon");
  area.setAttribute("points", `0,100 ${points.join(" ")} ${width},100`);
  area.setAttribute("class", "white-area");
  graph.appendChild(area);
  const middle = document.createElementNS(SVG, "line");
  Object.entries({ x1: 0, y1: 50, x2: width, y2: 50, class: "middle" }).forEach(([k, v]) => middle.setAttribute(k, v));
  graph.appendChild(middle);
  for (const move of reviewed.moves.filter((m) => m.judgement)) {
    const dot = document.createElementNS(SVG, "circle");
    Object.entries({ cx: move.ply * 10, cy: y(reviewed.evals[move.ply]), r: 3.5, class: `error ${move.judgement.toLowerCase()}`,
      "data-ply": move.ply }).forEach(([k, v]) => dot.setAttribute(k, v));
    graph.appendChild(dot);
  }
  const cursor = document.createElementNS(SVG, "line");
  cursor.setAttribute("class", "cursor");
  graph.appendChild(cursor);
}

// The graph's click: the position at that point of the game.
function onGraphClick(event) {
  if (!reviewed) return;
  const box = $("review-graph").getBoundingClientRect();
  goTo(Math.round(((event.clientX - box.left) / box.width) * (reviewed.evals.length - 1)));
}

// Called by game.js's render: marks in the move list, the graph's cursor, the better move's arrow.
export function decorate(ply) {
  if (!reviewed || reviewed.gameId !== view.gameId) return [];
  for (const move of reviewed.moves) {
    const cell = document.querySelector(`#moves [data-ply="${move.ply}"]`);
    if (!cell || !move.judgement || cell.dataset.judgement) continue;
    cell.dataset.judgement = move.judgement.toLowerCase();
    cell.title = `${move.judgement}${move.better ? `: ${move.better.san} was better` : ""}`;
    cell.appendChild(Object.assign(document.createElement("span"), { className: "nag", textContent: SYMBOLS[move.judgement] }));
  }
  const cursor = $("review-graph").querySelector(".cursor");
  if (cursor) {
    for (const [k, v] of Object.entries({ x1: ply * 10, x2: ply * 10, y1: 0, y2: 100 })) cursor.setAttribute(k, v);
  }
  const error = reviewed.moves.find((m) => m.ply === ply + 1 && m.better);
  return error ? [{ from: error.better.uci.slice(0, 2), to: error.better.uci.slice(2, 4), brush: "green" }] : [];
}

export function wire() {
  $("review").addEventListener("click", start);
  $("review-graph").addEventListener("click", onGraphClick);
}
