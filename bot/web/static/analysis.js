// @ts-check
// The analysis board: a position or game (pasted, or one finished or watched here) as a tree of
// variations made by moving on the board, stepped with the keys or the step buttons; the engine's best lines from
// the server (MultiPV 1-3, scores from White's side, depth), its best move as an arrow and an
// evaluation bar. One search at a time, restarted at each position shown, stopped when the board
// is left. The rules are the server's: each position's legal moves come from /api/analysis/position.
import { el } from "./elements.js";
import * as metrics from "./metrics.js";
import { api, readLines } from "./network.js";
import { Board } from "./board.js";
/** @import { AnalysedPosition, Color, LegalMove, Ply, Score } from "./network.js" */

/**
 * @typedef {object} TreeNode  a position of the tree and the move that led to it (none at the root)
 * @property {string} id
 * @property {TreeNode | null} parent
 * @property {TreeNode[]} children  the main line's move first
 * @property {string | null} uci
 * @property {string | null} san
 * @property {string} fen
 *
 * @typedef {Score & { uci: string[], san: string[], fen: string[] }} EngineLine
 * @typedef {{ depth: number, nodes: number, lines: EngineLine[], sentAtMs: number }} EngineInfo
 */

// The analysis board's one state. Written only here.
const shown = {
  /** @type {Board | null} */ board: null, // made when first opened: chessgroundx measures its element
  /** @type {TreeNode | null} */ root: null,
  /** @type {TreeNode | null} */ current: null,
  nextId: 0,
  /** @type {AbortController | null} */ search: null, // the stream of the position shown
  /** @type {Color} */ orientation: "white",
};
/** @type {Map<string, AnalysedPosition>} the server's answers, by FEN */
const positions = new Map();

export const isOpen = () => !el.analysis.hidden;

/**
 * @param {TreeNode | null} parent
 * @param {LegalMove | null} move  null: the root, at *fen*
 * @param {string} [fen]
 * @returns {TreeNode}
 */
function makeNode(parent, move, fen = "") {
  return { id: String(shown.nextId++), parent, children: [], uci: move ? move.uci : null, san: move ? move.san : null,
    fen: move ? move.fen : fen };
}

/** The child of *node* by *move*, made if it is not there yet (a side line after the others). */
function childOf(/** @type {TreeNode} */ node, /** @type {LegalMove} */ move) {
  let child = node.children.find((c) => c.uci === move.uci);
  if (!child) {
    child = makeNode(node, move);
    node.children.push(child);
  }
  return child;
}

/**
 * Opens the board on *initialFen* with the main line *plies*, at its end.
 * @param {string} initialFen
 * @param {Ply[]} plies
 * @param {{ flipped?: boolean }} [options]
 */
export function open(initialFen, plies, { flipped = false } = {}) {
  if (!shown.board) shown.board = new Board(el.analysisBoard, el.analysisPromotion, played);
  const root = makeNode(null, null, initialFen);
  shown.root = root;
  let node = root;
  for (const ply of plies) node = childOf(node, ply);
  shown.orientation = flipped ? "black" : "white";
  el.analysis.hidden = false;
  el.main.hidden = true;
  el.pasteMessage.textContent = "";
  if (location.hash !== "#analysis") history.pushState(null, "", "#analysis");
  goTo(node);
}

export function close() {
  stopSearch();
  el.analysis.hidden = true;
  el.main.hidden = false;
}

function stopSearch() {
  if (shown.search) shown.search.abort();
  shown.search = null;
}

/**
 * @param {string} fen
 * @returns {Promise<AnalysedPosition>}
 */
async function positionOf(fen) {
  const known = positions.get(fen);
  if (known) return known;
  const position = await api(`/api/analysis/position?fen=${encodeURIComponent(fen)}`);
  positions.set(fen, position);
  return position;
}

/** @param {TreeNode} node */
async function goTo(node) {
  shown.current = node;
  renderTree();
  el.analysisFirst.disabled = el.analysisBack.disabled = node.parent === null;
  el.analysisForward.disabled = el.analysisLast.disabled = node.children.length === 0;
  const position = await positionOf(node.fen);
  if (shown.current !== node || !shown.board) return;
  shown.board.show({ fen: node.fen, last: node.uci, check: position.check },
    { orientation: shown.orientation, movable: position.outcome ? null : position.turn, legalMoves: position.legalMoves,
      ply: depthOf(node) });
  shown.board.setArrows([]);
  el.analysisStatus.textContent = position.outcome ? `${position.outcome.result} \u00B7 ${position.outcome.termination}` : "";
  analyse(node, position);
}

/** @returns {number} */
const depthOf = (/** @type {TreeNode} */ node) => (node.parent ? depthOf(node.parent) + 1 : 0);

/**
 * The person moved on the board: the move's node, new or already there, becomes the current one.
 * @param {LegalMove} move
 */
function played(move) {
  if (shown.current) goTo(childOf(shown.current, move));
}

/**
 * Plays a line of the engine's from the current node up to its move *upTo*.
 * @param {EngineLine} line
 * @param {number} upTo
 */
function playLine(line, upTo) {
  if (!shown.current) return;
  let node = shown.current;
  for (let i = 0; i <= upTo; i++) node = childOf(node, { uci: line.uci[i], san: line.san[i], fen: line.fen[i] });
  goTo(node);
}

/**
 * Steps through the tree by *key*; whether the key was one of the board's.
 * @param {string} key
 */
export function step(key) {
  const current = shown.current;
  if (!current || !shown.root) return false;
  /** @type {Record<string, TreeNode | null | undefined>} */
  const targets = { ArrowLeft: current.parent, ArrowRight: current.children[0], Home: shown.root, End: mainEnd(current) };
  const target = targets[key];
  if (target === undefined) return false; // not a key of the board's, or no move on
  if (target) goTo(target);
  return true;
}

/** @param {TreeNode} node */
function mainEnd(node) {
  while (node.children.length) node = node.children[0];
  return node;
}

// ---- the engine ---------------------------------------------------------------------------------

/**
 * @param {TreeNode} node
 * @param {AnalysedPosition} position
 */
async function analyse(node, position) {
  stopSearch();
  el.lines.textContent = "";
  el.analysisDepth.textContent = "";
  if (position.outcome) { renderEval(null); return; }
  const controller = new AbortController();
  shown.search = controller;
  const multipv = el.multipv.value;
  el.analysisDepth.textContent = "Thinking\u2026";
  try {
    const response = await fetch(`/api/analysis/stream?fen=${encodeURIComponent(node.fen)}&multipv=${multipv}`,
      { credentials: "same-origin", signal: controller.signal });
    if (!response.ok) {
      el.analysisDepth.textContent = (await response.json().catch(() => ({}))).error || `${response.status}`;
      return;
    }
    await readLines(response, (line) => {
      if (shown.search !== controller) return;
      if (line.type === "info") showInfo(line);
      else if (line.type === "end") el.analysisDepth.textContent += ` \u00B7 stopped: ${line.reason}`;
    });
  } catch (error) {
    if (!controller.signal.aborted) el.analysisDepth.textContent = "The server does not answer.";
  }
}

/** @param {Score} score */
function scoreText(score) {
  if (score.mate !== null) return `#${score.mate}`;
  const pawns = (score.cp || 0) / 100;
  return `${pawns > 0 ? "+" : ""}${pawns.toFixed(2)}`;
}

/** @param {EngineInfo} info */
function showInfo(info) {
  if (!shown.current || !shown.board) return;
  const list = el.lines;
  list.textContent = "";
  const [, turn, , , , fullmove] = shown.current.fen.split(" ");
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
  el.analysisDepth.textContent = `Depth ${info.depth} \u00B7 ${(info.nodes / 1000).toFixed(0)} k nodes`;
  el.analysisDepth.dataset.depth = String(info.depth);
  renderEval(info.lines[0]);
  shown.board.setArrows(info.lines.slice(0, 3).map((line, i) => ({ from: line.uci[0].slice(0, 2), to: line.uci[0].slice(2, 4),
    brush: i === 0 ? "blue" : "paleGrey" })));
  metrics.analysisLineShown(info.sentAtMs);
}

/**
 * The bar: White's share of the winning chances, as the server worked it out with the score (the
 * curve the review's verdicts go by), full at a mate.
 * @param {Score | null} score
 */
function renderEval(score) {
  el.evalWhite.style.width = score ? `${score.winPercent.toFixed(1)}%` : "50%";
  el.evalText.textContent = score ? scoreText(score) : "";
}

// ---- the tree -------------------------------------------------------------------------------------

function renderTree() {
  if (!shown.root || !shown.current) return;
  const tree = el.tree;
  tree.textContent = "";
  appendLine(shown.root, tree);
  const current = tree.querySelector(`[data-node="${shown.current.id}"]`);
  if (current) { current.classList.add("current"); current.scrollIntoView({ block: "nearest" }); }
}

/**
 * "12. " before White's move, "12… " before Black's where *always* (a line's first move).
 * @param {string} parentFen
 * @param {boolean} always
 */
function moveNumber(parentFen, always) {
  const [, turn, , , , fullmove] = parentFen.split(" ");
  if (turn === "w") return `${fullmove}. `;
  return always ? `${fullmove}\u2026 ` : "";
}

/**
 * @param {HTMLElement} container
 * @param {TreeNode} node  a node with a parent: a move
 * @param {boolean} always  the move number even before Black's move
 */
function appendMove(container, node, always) {
  const number = node.parent ? moveNumber(node.parent.fen, always) : "";
  if (number) container.appendChild(Object.assign(document.createElement("span"), { className: "number", textContent: number }));
  const move = Object.assign(document.createElement("span"), { className: "move", textContent: node.san });
  move.dataset.node = node.id;
  move.addEventListener("click", () => goTo(node));
  container.appendChild(move);
  container.appendChild(document.createTextNode(" "));
}

/**
 * The main line from *parent* on, each side line in brackets after the move it is the other choice to.
 * @param {TreeNode} parent
 * @param {HTMLElement} container
 */
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
  const text = el.paste.value;
  const message = el.pasteMessage;
  if (text.length > 20000) {
    message.textContent = `That paste is ${text.length} characters long; a FEN or a PGN game is at most 20000.`;
    return;
  }
  try {
    /** @type {{ initialFen: string, plies: Ply[] }} */
    const game = await api("/api/analysis/import", { text });
    open(game.initialFen, game.plies);
  } catch (error) {
    message.textContent = error instanceof Error ? error.message : String(error);
  }
}

export function wire() {
  el.analysePaste.addEventListener("click", importPaste);
  el.closeAnalysis.addEventListener("click", () => { history.back(); });
  // The step buttons, as the keys step (a phone has no keys).
  for (const [button, key] of /** @type {const} */ ([[el.analysisFirst, "Home"], [el.analysisBack, "ArrowLeft"],
    [el.analysisForward, "ArrowRight"], [el.analysisLast, "End"]])) button.addEventListener("click", () => step(key));
  el.multipv.addEventListener("change", () => { if (shown.current) goTo(shown.current); });
  el.analysisFlip.addEventListener("click", () => {
    shown.orientation = shown.orientation === "white" ? "black" : "white";
    if (shown.current) goTo(shown.current);
  });
  window.addEventListener("pagehide", stopSearch);
}
