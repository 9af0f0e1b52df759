// @ts-check
// The analysis board: a position or game (pasted, or one finished or watched here) as a tree of
// variations, a pasted PGN's own (its comments and NAGs too) and those made by moving on the board,
// stepped with the keys or the step buttons; the engine's best lines from the server (MultiPV 1-3,
// scores from White's side, depth), its best move as an arrow and an evaluation bar. One search at
// a time, restarted at each position shown, stopped when the board is left. The rules are the
// server's: a paste is read into a tree there, each position's legal moves come from
// /api/analysis/position, and the tree is written back as PGN there (python-chess's writer).
import { el } from "./elements.js";
import { scrollWithin } from "./page.js";
import * as metrics from "./metrics.js";
import { api, readLines } from "./network.js";
import { Board } from "./board.js";
/** @import { AnalysedPosition, AnalysisGame, Color, LegalMove, Ply, Score, TreeMove } from "./network.js" */

/**
 * @typedef {object} TreeNode  a position of the tree and the move that led to it (none at the root)
 * @property {string} id
 * @property {TreeNode | null} parent
 * @property {TreeNode[]} children  the main line's move first
 * @property {string | null} uci
 * @property {string | null} san
 * @property {string} fen
 * @property {number} ply  moves from the root
 * @property {string} comment  PGN's comment after the move (at the root: before the first)
 * @property {string} startingComment  PGN's comment before a variation's first move
 * @property {number[]} nags  PGN's NAGs: $1 is "!", $6 "?!"
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
  /** @type {EngineInfo | null} */ heldInfo: null, // the newest report, while the lines are held
  /** @type {Color} */ orientation: "white",
  /** @type {Record<string, string>} */ headers: {}, // the game's PGN tags, written back with it
  /** @type {AnalysisGame[]} */ choices: [], // the games of a paste of several, until one is chosen
};
/** @type {Map<string, AnalysedPosition>} the server's answers, by FEN */
const positions = new Map();

export const isOpen = () => !el.analysis.hidden;

/**
 * @param {TreeNode | null} parent
 * @param {(LegalMove & Partial<TreeMove>) | null} move  null: the root, at *fen*
 * @param {string} [fen]
 * @returns {TreeNode}
 */
function makeNode(parent, move, fen = "") {
  return { id: String(shown.nextId++), parent, children: [], uci: move ? move.uci : null, san: move ? move.san : null,
    fen: move ? move.fen : fen, ply: parent ? parent.ply + 1 : 0, comment: move?.comment || "",
    startingComment: move?.startingComment || "", nags: move?.nags || [] };
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
 * Opens the board on a game finished or watched here, *initialFen* and its moves *plies*, at its end.
 * @param {string} initialFen
 * @param {Ply[]} plies
 * @param {{ flipped?: boolean, headers?: Record<string, string> }} [options]
 */
export function open(initialFen, plies, { flipped = false, headers = {} } = {}) {
  const moves = plies.map((ply, i) => ({ ...ply, parent: i - 1, comment: "", startingComment: "", nags: [] }));
  openGame({ headers, initialFen, comment: "", moves }, { flipped });
}

/**
 * Opens the board on *game*'s tree (a pasted PGN's, with its variations), at the main line's end.
 * @param {AnalysisGame} game
 * @param {{ flipped?: boolean }} [options]
 */
function openGame(game, { flipped = false } = {}) {
  if (!shown.board) shown.board = new Board(el.analysisBoard, el.analysisPromotion, played);
  const root = makeNode(null, null, game.initialFen);
  root.comment = game.comment;
  /** @type {TreeNode[]} */
  const nodes = [];
  for (const move of game.moves) { // each after the move it follows, siblings in PGN's order
    const parent = move.parent < 0 ? root : nodes[move.parent];
    const node = makeNode(parent, move);
    parent.children.push(node);
    nodes.push(node);
  }
  shown.root = root;
  shown.headers = game.headers;
  shown.choices = [];
  renderChoices();
  shown.orientation = flipped ? "black" : "white";
  el.analysis.hidden = false;
  el.main.hidden = true;
  window.scrollTo(0, 0); // the board from its top: the Analyse clicked may be far down a phone's page
  el.pasteMessage.textContent = "";
  el.analysisCopied.hidden = true;
  el.analysisCopyMessage.textContent = "";
  if (location.hash !== "#analysis") history.pushState(null, "", "#analysis");
  goTo(mainEnd(root));
}

export function close() {
  stopSearch();
  el.analysis.hidden = true;
  el.main.hidden = false;
}

function stopSearch() {
  if (shown.search) shown.search.abort();
  shown.search = null;
  releaseLines(); // a new position's lines are drawn as they come
}

/**
 * Lines redrawn several times a second move under the pointer: a person who aims at a move would
 * play the one drawn there a moment later. So a pointer moving over the lines holds them (the
 * depth, bar and arrows with them, all of one report), says when newer ones wait, and draws the newest
 * when it leaves.
 */
function holdLines() {
  if (shown.search) el.lines.classList.add("held"); // classList.add is a no-op on a held list
}

function releaseLines() {
  el.lines.classList.remove("held");
  delete el.lines.dataset.newerDepth;
  const info = shown.heldInfo;
  shown.heldInfo = null;
  if (info && shown.search) drawInfo(info);
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
      ply: node.ply });
  shown.board.setArrows([]);
  el.analysisStatus.textContent = position.outcome ? `${position.outcome.result} \u00B7 ${position.outcome.termination}` : "";
  analyse(node, position);
}

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
  el.evalText.textContent = ""; // the score's, or the outcome's words, come next
  if (position.outcome) { renderOutcome(position.outcome); return; }
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
  if (el.lines.classList.contains("held")) {
    shown.heldInfo = info;
    el.lines.dataset.newerDepth = String(info.depth); // the person sees that newer lines wait
    return;
  }
  drawInfo(info);
  metrics.analysisLineShown(info.sentAtMs); // one held back would time the pointer's rest, not the stream
}

/** @param {EngineInfo} info */
function drawInfo(info) {
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
        item.appendChild(document.createTextNode(` ${number}${white ? "." : "..."} `)); // as the move list writes it
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
}

/**
 * The bar: White's share of the winning chances, as the server worked it out with the score (the
 * curve the review's verdicts go by), full at a mate.
 * @param {Score} score
 */
function renderEval(score) {
  el.evalWhite.style.width = `${score.winPercent.toFixed(1)}%`;
  el.evalText.textContent = scoreText(score);
}

/**
 * The bar at the end of the game: the winner's all of it and the words, "Checkmate: White wins",
 * "Stalemate: draw"; there is nothing for the engine to search.
 * @param {{ result: string, termination: string }} outcome  python-chess's result and termination
 */
function renderOutcome({ result, termination }) {
  const how = termination.replace(/_/g, " ");
  const text = `${how[0].toUpperCase()}${how.slice(1)}`;
  const verdict = { "1-0": ["100%", "White wins"], "0-1": ["0%", "Black wins"] }[result] || ["50%", "draw"];
  el.evalWhite.style.width = verdict[0];
  el.evalText.textContent = `${text}: ${verdict[1]}`;
}

// ---- the tree -------------------------------------------------------------------------------------

/** PGN's NAGs as the move list shows them; one without a glyph shows as written ($n). */
const NAG_GLYPHS = /** @type {Record<number, string>} */ ({ 1: "!", 2: "?", 3: "!!", 4: "??", 5: "!?", 6: "?!", 7: "\u25A1",
  10: "=", 13: "\u221E", 14: "\u2A72", 15: "\u2A71", 16: "\u00B1", 17: "\u2213", 18: "+\u2212", 19: "\u2212+",
  22: "\u2A00", 23: "\u2A00", 32: "\u27F3", 33: "\u27F3", 36: "\u2192", 37: "\u2192", 40: "\u2191", 41: "\u2191",
  132: "\u21C6", 133: "\u21C6", 140: "\u2206", 146: "N" });

function renderTree() {
  if (!shown.root || !shown.current) return;
  const tree = el.tree;
  tree.textContent = "";
  if (shown.root.comment) append(tree, textSpan("comment", shown.root.comment));
  appendLine(shown.root, tree, true);
  const current = tree.querySelector(`[data-node="${shown.current.id}"]`);
  if (current) { current.classList.add("current"); scrollWithin(tree, current); }
}

/**
 * @param {string} className
 * @param {string} text
 */
const textSpan = (className, text) => Object.assign(document.createElement("span"), { className, textContent: text });

/**
 * Adds *item* to *container*, a space between it and the one before (none after a bracket): the
 * list reads as PGN does, "(12... Qxf5+ 13. Nd3)".
 * @param {HTMLElement} container
 * @param {HTMLElement} item
 */
function append(container, item) {
  const last = container.lastChild;
  // A number stays on the line of its move: the space after it does not break.
  const space = last instanceof HTMLElement && last.className === "number" ? "\u00A0" : " ";
  if (last && last.textContent !== "(") container.appendChild(document.createTextNode(space));
  container.appendChild(item);
}

/**
 * A move with what PGN writes around it: a variation's opening comment, its number ("12." before
 * White's move, "12..." before Black's where *numbered*: a line's first move, or the first after
 * a side line or a comment, as Lichess writes them), its NAGs' glyphs and its comment.
 * @param {HTMLElement} container
 * @param {TreeNode} node  a node with a parent: a move
 * @param {boolean} numbered
 */
function appendMove(container, node, numbered) {
  if (node.startingComment) append(container, textSpan("comment", node.startingComment));
  const [, turn, , , , fullmove] = node.parent ? node.parent.fen.split(" ") : [];
  if (turn === "w" || numbered) append(container, textSpan("number", `${fullmove}${turn === "w" ? "." : "..."}`));
  const move = textSpan("move", node.san || "");
  move.dataset.node = node.id;
  for (const nag of node.nags) move.appendChild(textSpan("nag", NAG_GLYPHS[nag] || `$${nag}`));
  move.addEventListener("click", () => goTo(node));
  append(container, move);
  if (node.comment) append(container, textSpan("comment", node.comment));
}

/**
 * The line from *parent* on, each side line in brackets after the move it is the other choice to
 * (nested ones in theirs).
 * @param {TreeNode} parent
 * @param {HTMLElement} container
 * @param {boolean} numbered  the line's first move numbered even if it is Black's
 */
function appendLine(parent, container, numbered) {
  let node = parent;
  while (node.children.length) {
    const [main, ...sides] = node.children;
    appendMove(container, main, numbered);
    numbered = Boolean(main.comment);
    for (const side of sides) {
      const variation = textSpan("variation", "(");
      appendMove(variation, side, true);
      appendLine(side, variation, Boolean(side.comment));
      variation.appendChild(document.createTextNode(")"));
      append(container, variation);
      numbered = true;
    }
    node = main;
  }
}

/**
 * The tree as the server reads it back (/api/analysis/pgn): each move after the one it follows,
 * as bare UCI where it follows the move before it and has no comment or NAG (a long game stays
 * far under the server's limit on what it is sent).
 */
function treeJson() {
  if (!shown.root) return null;
  /** @type {(string | { uci: string, parent: number, comment: string, startingComment: string, nags: number[] })[]} */
  const moves = [];
  /** @type {[TreeNode, number][]} */
  const stack = shown.root.children.map((child) => /** @type {[TreeNode, number]} */ ([child, -1])).reverse();
  for (let next = stack.pop(); next; next = stack.pop()) {
    const [node, parent] = next;
    const uci = node.uci || "";
    const plain = parent === moves.length - 1 && !node.comment && !node.startingComment && node.nags.length === 0;
    moves.push(plain ? uci : { uci, parent, comment: node.comment, startingComment: node.startingComment, nags: node.nags });
    const index = moves.length - 1;
    for (const child of [...node.children].reverse()) stack.push([child, index]);
  }
  return { headers: shown.headers, initialFen: shown.root.fen, comment: shown.root.comment, moves };
}

// ---- copying --------------------------------------------------------------------------------------

/**
 * Puts *text* on the clipboard where the browser lets the page, and in the box under the buttons
 * either way, selected, to copy by hand where it does not (a page on plain http from another
 * machine has no Clipboard API).
 * @param {string} what  "FEN" or "PGN"
 * @param {string} text
 */
async function copy(what, text) {
  const box = el.analysisCopied;
  box.value = text;
  box.hidden = false;
  box.dataset.copied = what;
  box.select();
  let copied = false;
  try {
    if (navigator.clipboard) { await navigator.clipboard.writeText(text); copied = true; }
  } catch (error) {
    copied = false; // refused (no permission, the page not focused): the box holds it
  }
  el.analysisCopyMessage.textContent = copied ? `The ${what} is on the clipboard.` : `Copy the ${what} from the box.`;
}

async function copyPgn() {
  const tree = treeJson();
  if (!tree) return;
  try {
    const { pgn } = await api("/api/analysis/pgn", { tree: JSON.stringify(tree) });
    await copy("PGN", pgn);
  } catch (error) {
    el.analysisCopyMessage.textContent = error instanceof Error ? error.message : String(error);
  }
}

// ---- opening it -----------------------------------------------------------------------------------

async function importPaste() {
  const text = el.paste.value;
  const message = el.pasteMessage;
  shown.choices = [];
  renderChoices();
  message.classList.remove("ok");
  if (text.length > 20000) {
    message.textContent = `That paste is ${text.length} characters long; a FEN or a PGN game is at most 20000.`;
    return;
  }
  try {
    /** @type {{ games: AnalysisGame[] }} */
    const { games } = await api("/api/analysis/import", { text });
    if (games.length === 1) { openGame(games[0]); return; }
    message.textContent = `That paste holds ${games.length} games: choose one.`;
    message.classList.add("ok"); // a question, not an error
    shown.choices = games;
    renderChoices();
  } catch (error) {
    message.textContent = error instanceof Error ? error.message : String(error);
  }
}

/**
 * A game as the chooser names it: "A - B, 1-0, Club championship, 2024.05.01".
 * @param {Record<string, string>} headers
 */
function gameName(headers) {
  const players = `${headers.White || "?"} - ${headers.Black || "?"}`;
  return [players, headers.Result, headers.Event, headers.Date].filter((part) => part && part !== "*").join(", ");
}

/** The games of a paste of several, to choose one of; one that cannot be read says why. */
function renderChoices() {
  const list = el.pasteGames;
  list.textContent = "";
  list.hidden = shown.choices.length === 0;
  shown.choices.forEach((game, index) => {
    const item = document.createElement("li");
    const choice = Object.assign(document.createElement("button"), { type: "button", textContent: gameName(game.headers) });
    choice.dataset.game = String(index + 1);
    if (game.error) {
      choice.disabled = true;
      item.append(choice, textSpan("problem", game.error));
    } else {
      choice.addEventListener("click", () => openGame(game));
      item.append(choice);
    }
    list.appendChild(item);
  });
}

export function wire() {
  el.analysePaste.addEventListener("click", importPaste);
  el.analysisCopyFen.addEventListener("click", () => { if (shown.current) copy("FEN", shown.current.fen); });
  el.analysisCopyPgn.addEventListener("click", copyPgn);
  // A click beside the promotion's circles takes the move back, as on the game's board.
  el.analysisPromotion.addEventListener("click", (event) => {
    if (event.target !== el.analysisPromotion || !shown.board || !shown.current) return;
    shown.board.hidePromotion();
    goTo(shown.current);
  });
  el.closeAnalysis.addEventListener("click", () => { history.back(); });
  // The step buttons, as the keys step (a phone has no keys).
  for (const [button, key] of /** @type {const} */ ([[el.analysisFirst, "Home"], [el.analysisBack, "ArrowLeft"],
    [el.analysisForward, "ArrowRight"], [el.analysisLast, "End"]])) button.addEventListener("click", () => step(key));
  el.multipv.addEventListener("change", () => { if (shown.current) goTo(shown.current); });
  el.lines.addEventListener("pointermove", holdLines);
  el.lines.addEventListener("pointerleave", releaseLines);
  el.analysisFlip.addEventListener("click", () => {
    shown.orientation = shown.orientation === "white" ? "black" : "white";
    if (shown.current) goTo(shown.current);
  });
  window.addEventListener("pagehide", stopSearch);
}
