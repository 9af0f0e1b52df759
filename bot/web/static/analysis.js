// The analysis board: a position or game (pasted, or one finished or watched here) as a tree of
// variations made by moving on the board, stepped with the keys; the engine's best lines from
// the server (MultiPV 1-3, scores from White's side, depth), its best move as an arrow and an
// evaluation bar. One search at a time, restarted at each position shown, stopped when the board
// is left. The rules are the server's: each position's legal moves come from /api/analysis/position.
import { $, afterPaint, metrics } from "./page.js";
import { api, readLines } from "./network.js";
import { Board } from "./board.js";

let board = null;
let root = null;
let current = null;
let nextId = 0;
let search = null; // the AbortController of the stream of the position shown
const positions = new Map(); // fen -> the server's position (legal moves, check, outcome)
const nodes = new Map(); // id -> node
let orientation = "white";

export const isOpen = () => !$("analysis").hidden;

function makeNode(parent, move) {
  const node = { id: String(nextId++), parent, children: [], uci: move ? move.uci : null, san: move ? move.san : null,
    fen: move ? move.fen : parent };
  nodes.set(node.id, node);
  return node;
}

// Opens the board on *initialFen* with the main line *plies* ([{uci, san, fen}]), at its end.
export function open(initialFen, plies, { flipped = false } = {}) {
  if (!board) board = new Board($("analysis-board"), $("analysis-promotion"), played);
  nodes.clear();
  root = makeNode(null, null);
  root.fen = initialFen;
  root.parent = null;
  let node = root;
  for (const ply of plies) {
    const child = makeNode(node, ply);
    node.children.push(child);
    node = child;
  }
  orientation = flipped ? "black" : "white";
  $("analysis").hidden = false;
  $("main").hidden = true;
  $("paste-message").textContent = "";
  if (location.hash !== "#analysis") history.pushState(null, "", "#analysis");
  goTo(node);
}

export function close() {
  stopSearch();
  $("analysis").hidden = true;
  $("main").hidden = false;
}

function stopSearch() {
  if (search) search.abort();
  search = null;
}

async function positionOf(fen) {
  if (!positions.has(fen)) positions.set(fen, await api(`/api/analysis/position?fen=${encodeURIComponent(fen)}`));
  return positions.get(fen);
}

async function goTo(node) {
  current = node;
  renderTree();
  const position = await positionOf(node.fen);
  if (current !== node) return;
  board.show({ fen: node.fen, last: node.uci, check: position.check },
    { orientation, movable: position.outcome ? null : position.turn, legalMoves: position.legalMoves, ply: depthOf(node) });
  board.setArrows([]);
  $("analysis-status").textContent = position.outcome ? `${position.outcome.result} \u00B7 ${position.outcome.termination}` : "";
  analyse(node, position);
}

const depthOf = (node) => (node.parent ? depthOf(node.parent) + 1 : 0);

// The person moved on the board: the move's node, new or already there, becomes the current one.
function played(move) {
  let child = current.children.find((c) => c.uci === move.uci);
  if (!child) {
    child = makeNode(current, move);
    current.children.push(child);
  }
  goTo(child);
}

// Plays a line of the engine's from the current node up to its move *upTo*.
function playLine(line, upTo) {
  let node = current;
  for (let i = 0; i <= upTo; i++) {
    let child = node.children.find((c) => c.uci === line.uci[i]);
    if (!child) {
      child = makeNode(node, { uci: line.uci[i], san: line.san[i], fen: line.fen[i] });
      node.children.push(child);
    }
    node = child;
  }
  goTo(node);
}

export function step(key) {
  if (!current) return false;
  const target = { ArrowLeft: current.parent, ArrowRight: current.children[0], Home: root,
    End: mainEnd(current) }[key];
  if (target === undefined) return false;
  if (target) goTo(target);
  return true;
}

function mainEnd(node) {
  while (node.children.length) node = node.children[0];
  return node;
}

// ---- the engine ---------------------------------------------------------------------------------

async function analyse(node, position) {
  stopSearch();
  $("lines").textContent = "";
  $("analysis-depth").textContent = "";
  if (position.outcome) { renderEval(null); return; }
  const controller = new AbortController();
  search = controller;
  const multipv = $("multipv").value;
  $("analysis-depth").textContent = "Thinking\u2026";
  try {
    const response = await fetch(`/api/analysis/stream?fen=${encodeURIComponent(node.fen)}&multipv=${multipv}`,
      { credentials: "same-origin", signal: controller.signal });
    if (!response.ok) {
      $("analysis-depth").textContent = (await response.json().catch(() => ({}))).error || `${response.status}`;
      return;
    }
    await readLines(response, (line) => {
      if (search !== controller) return;
      if (line.type === "info") showInfo(line);
      else if (line.type === "end") $("analysis-depth").textContent += ` \u00B7 stopped: ${line.reason}`;
    });
  } catch (error) {
    if (!controller.signal.aborted) $("analysis-depth").textContent = "The server does not answer.";
  }
}

function scoreText(line) {
  if (line.mate !== null) return `#${line.mate}`;
  const pawns = line.cp / 100;
  return `${pawns > 0 ? "+" : ""}${pawns.toFixed(2)}`;
}

function showInfo(info) {
  const list = $("lines");
  list.textContent = "";
  const fen = current.fen;
  const [, turn, , , , fullmove] = fen.split(" ");
  info.lines.forEach((line, index) => {
    const item = document.createElement("li");
    item.dataset.line = String(index + 1);
    item.appendChild(Object.assign(document.createElement("span"), { className: "score", textContent: scoreText(line) }));
    let number = Number(fullmove);
    let white = turn === "w";
    line.san.forEach((san, i) => {
      if (white || i === 0) {
        item.appendChild(document.createTextNode(` ${number}${white ? "." : "\u2026"} `));
      }
      const move = Object.assign(document.createElement("span"), { className: "move", textContent: san });
      move.dataset.index = String(i);
      move.dataset.uci = line.uci[i];
      move.addEventListener("click", () => playLine(line, i));
      item.appendChild(move);
      item.appendChild(document.createTextNode(" "));
      if (!white) number += 1;
      white = !white;
    });
    list.appendChild(item);
  });
  $("analysis-depth").textContent = `Depth ${info.depth} \u00B7 ${(info.nodes / 1000).toFixed(0)} k nodes`;
  $("analysis-depth").dataset.depth = String(info.depth);
  renderEval(info.lines[0]);
  board.setArrows(info.lines.slice(0, 3).map((line, i) => ({ from: line.uci[0].slice(0, 2), to: line.uci[0].slice(2, 4),
    brush: i === 0 ? "blue" : "paleGrey" })));
  afterPaint(() => metrics.analysisLineMs.push(Date.now() - info.sentAtMs));
}

// The bar: White's share of the winning chances, as the server worked it out with the score (the
// curve the review's verdicts go by), full at a mate.
function renderEval(line) {
  const bar = $("eval-white");
  if (!line) { bar.style.width = "50%"; $("eval-text").textContent = ""; return; }
  bar.style.width = `${line.winPercent.toFixed(1)}%`;
  $("eval-text").textContent = scoreText(line);
}

// ---- the tree -------------------------------------------------------------------------------------

function renderTree() {
  const tree = $("tree");
  tree.textContent = "";
  appendLine(root, tree);
  const shown = tree.querySelector(`[data-node="${current.id}"]`);
  if (shown) { shown.classList.add("current"); shown.scrollIntoView({ block: "nearest" }); }
}

function moveNumber(parentFen, always) {
  const [, turn, , , , fullmove] = parentFen.split(" ");
  if (turn === "w") return `${fullmove}. `;
  return always ? `${fullmove}\u2026 ` : "";
}

function appendMove(container, node, always) {
  const number = moveNumber(node.parent.fen, always);
  if (number) container.appendChild(Object.assign(document.createElement("span"), { className: "number", textContent: number }));
  const move = Object.assign(document.createElement("span"), { className: "move", textContent: node.san });
  move.dataset.node = node.id;
  move.addEventListener("click", () => goTo(node));
  container.appendChild(move);
  container.appendChild(document.createTextNode(" "));
}

// The main line from *parent* on, each side line in brackets after the move it is the other choice to.
function appendLine(parent, container) {
  let node = parent;
  let always = true;
  while (node.children.length) {
    const [main, ...sides] = node.children;
    appendMove(container, main, always);
    always = false;
    for (const side of sides) {
      const variation = Object.assign(document.createElement("span"), { className: "variation" });
      variation.appendChild(document.createTextNode("("));
      appendMove(variation, side, true);
      appendLine(side, variation);
      variation.appendChild(document.createTextNode(")"));
      container.appendChild(variation);
      always = true;
    }
    node = main;
  }
}

// ---- opening it -----------------------------------------------------------------------------------

async function importPaste() {
  const text = $("paste").value;
  const message = $("paste-message");
  if (text.length > 20000) {
    message.textContent = `That paste is ${text.length} characters long; a FEN or a PGN game is at most 20000.`;
    return;
  }
  try {
    const game = await api("/api/analysis/import", { text });
    open(game.initialFen, game.plies);
  } catch (error) {
    message.textContent = error.message;
  }
}

export function wire() {
  $("analyse-paste").addEventListener("click", importPaste);
  $("close-analysis").addEventListener("click", () => { history.back(); });
  $("multipv").addEventListener("change", () => { if (current) goTo(current); });
  $("analysis-flip").addEventListener("click", () => {
    orientation = orientation === "white" ? "black" : "white";
    if (current) goTo(current);
  });
  window.addEventListener("pagehide", stopSearch);
}
