// @ts-check
// The board: chessgroundx 10.7.4 (vendor/README.md), given the positions, the legal destinations
// the server sent and the side the person plays. It knows no rules: a move is one of the server's
// legal moves or nothing. Premoves are the geometry of Knightmate's pieces (premoveTargets); the
// server's legal moves decide when the turn comes. Arrows and circles are drawn with the right
// button, as on pychess.org and Lichess. The board's types: vendor/chessgroundx.d.ts (ours).
import { Chessground } from "./vendor/chessgroundx.js";
import { PIECE_NAMES } from "./page.js";
/** @import { Api, BoardState, Color, Key, MoveMetadata } from "./vendor/chessgroundx.js" */
/** @import { LegalMove } from "./network.js" */

/**
 * @typedef {{ fen: string, last: string | null, check: string | null }} Position  as shown: the
 *   last move in UCI, the royal square in check
 * @typedef {{ from: string, to: string | null, brush: string }} Arrow  to: null for a circle
 * @typedef {(move: LegalMove, clickedAt: number) => void} OnMove
 */

const FILES = "abcdefgh";
const PROMOTION_ORDER = ["q", "r", "b", "m"]; // the queen first, as every chess site has it

const KNIGHT_LEAPS = [[1, 2], [2, 1], [2, -1], [1, -2], [-1, -2], [-2, -1], [-2, 1], [-1, 2]];
const STEPS = [[1, 0], [1, 1], [0, 1], [-1, 1], [-1, 0], [-1, -1], [0, -1], [1, -1]];

// Where a piece might go on a later turn, whatever stands between: the squares a premove may aim
// at. The royal knight leaps and castles by two squares; the commoner steps like a king.
/**
 * @param {BoardState} boardState
 * @param {Key} key
 * @param {boolean} canCastle
 * @returns {Key[]}
 */
function premoveTargets(boardState, key, canCastle) {
  const piece = boardState.pieces.get(key);
  if (!piece) return [];
  const x = FILES.indexOf(key[0]);
  const y = Number(key[1]) - 1;
  /** @type {Key[]} */
  const targets = [];
  const add = (/** @type {number} */ dx, /** @type {number} */ dy) => {
    const tx = x + dx;
    const ty = y + dy;
    if (tx >= 0 && tx < 8 && ty >= 0 && ty < 8) targets.push(FILES[tx] + (ty + 1));
  };
  const slide = (/** @type {number[][]} */ directions) => {
    for (const [dx, dy] of directions) for (let n = 1; n < 8; n++) add(dx * n, dy * n);
  };
  const role = piece.role[0];
  const forward = piece.color === "white" ? 1 : -1;
  if (role === "p") {
    add(0, forward); add(1, forward); add(-1, forward);
    if (y === (piece.color === "white" ? 1 : 6)) add(0, 2 * forward);
  } else if (role === "m") {
    for (const [dx, dy] of STEPS) add(dx, dy);
  } else if (role === "k") {
    for (const [dx, dy] of KNIGHT_LEAPS) add(dx, dy);
    if (canCastle && x === 4 && y === (piece.color === "white" ? 0 : 7)) { add(2, 0); add(-2, 0); }
  } else {
    const straight = STEPS.filter(([dx, dy]) => dx === 0 || dy === 0);
    const diagonal = STEPS.filter(([dx, dy]) => dx !== 0 && dy !== 0);
    slide(role === "r" ? straight : role === "b" ? diagonal : STEPS);
  }
  return targets;
}

export class Board {
  /**
   * @param {HTMLElement} element
   * @param {HTMLElement} picker  the promotion's chooser
   * @param {OnMove} onMove  the person played one of the legal moves (a promotion after the picker)
   */
  constructor(element, picker, onMove) {
    this.element = element;
    this.picker = picker;
    this.onMove = onMove;
    /** @type {LegalMove[]} */
    this.legalMoves = [];
    this.inputAt = 0;
    /** @type {string | null} the position last set, as fen, last move and check */
    this.shown = null;
    // The time of the click or drop that made a move: chessgroundx's callback carries no event.
    // And the board's place on the page, taken afresh at each press: chessgroundx keeps it from
    // the last resize or scroll, and the page moves the board without either (a scroll bar that
    // comes with the game panel, the clocks' row), which made clicks land a square off.
    for (const type of ["mousedown", "mouseup", "touchstart", "touchend"]) {
      element.addEventListener(type, (event) => {
        this.inputAt = event.timeStamp;
        if (type === "mousedown" || type === "touchstart") this.ground.state.dom.bounds.clear();
      }, { capture: true, passive: true });
    }
    /** @type {Api} */
    this.ground = Chessground(element, {
      coordinates: true,
      autoCastle: true,
      animation: { enabled: true, duration: 120 },
      movable: { free: false, showDests: true, events: { after: (from, to, meta) => this.played(from, to, meta) } },
      premovable: { enabled: true, castle: true, premoveFunc: premoveTargets },
      draggable: { enabled: true, showGhost: true },
      drawable: { enabled: true, eraseOnClick: true },
      highlight: { lastMove: true, check: true },
    });
    Object.assign(element, { kmBoard: this.ground }); // for the tests' and bench's scripts
  }

  /**
   * Shows *position*; *movable* is the colour the person may move or premove (null: nobody),
   * *legalMoves* the server's moves of this position (empty while not the person's), *ply* the
   * ply the tests read off the element (null: none).
   * @param {Position} position
   * @param {{ orientation: Color, movable: Color | null, legalMoves: LegalMove[], ply: number | null }} how
   */
  show(position, { orientation, movable, legalMoves, ply }) {
    this.legalMoves = legalMoves;
    /** @type {Map<Key, Key[]>} */
    const dests = new Map();
    for (const move of legalMoves) {
      const from = move.uci.slice(0, 2);
      const to = move.uci.slice(2, 4);
      const targets = dests.get(from) || [];
      if (!targets.includes(to)) targets.push(to);
      dests.set(from, targets);
    }
    /** @type {Color} */
    const turnColor = position.fen.split(" ")[1] === "b" ? "black" : "white";
    // Set again only when it changed: setting a position ends a drag under way.
    const shown = `${position.fen} ${position.last} ${position.check}`;
    if (this.shown !== shown) {
      this.shown = shown;
      this.ground.set({ fen: position.fen, lastMove: position.last ? [position.last.slice(0, 2), position.last.slice(2, 4)] : undefined,
        check: position.check ? [position.check] : false });
    }
    if (ply !== null) {
      this.element.dataset.fen = position.fen;
      this.element.dataset.ply = String(ply);
    }
    this.ground.set({ orientation, turnColor, movable: { color: movable || undefined, dests } });
    if (!movable) this.ground.cancelPremove();
    this.element.classList.toggle("interactive", legalMoves.length > 0);
    if (legalMoves.length > 0 && this.ground.state.premovable.current) this.ground.playPremove();
  }

  /**
   * @param {Key} from
   * @param {Key} to
   * @param {MoveMetadata} meta
   */
  played(from, to, meta) {
    const candidates = this.legalMoves.filter((m) => m.uci.slice(0, 4) === from + to);
    if (candidates.length === 0) return;
    const clickedAt = meta.premove ? performance.now() : this.inputAt || performance.now();
    if (candidates.length === 1) this.onMove(candidates[0], clickedAt);
    else if (meta.premove) this.onMove(candidates.find((m) => m.uci[4] === "q") || candidates[0], clickedAt);
    else this.showPromotion(candidates);
  }

  /**
   * The chooser as Lichess has it: a column of circles on the promotion square's file, the queen
   * on the square itself and the others towards the middle of the board, so the finger or the
   * mouse that made the move is already at the queen.
   * @param {LegalMove[]} candidates  the same move to each piece it may promote to
   */
  showPromotion(candidates) {
    const picker = this.picker;
    picker.textContent = "";
    const color = this.ground.state.turnColor === "white" ? "black" : "white"; // chessgroundx already moved
    const byPiece = Object.fromEntries(candidates.map((m) => [m.uci[4], m]));
    const white = this.ground.state.orientation === "white";
    const target = candidates[0].uci.slice(2, 4);
    const column = white ? FILES.indexOf(target[0]) : 7 - FILES.indexOf(target[0]);
    const row = white ? 8 - Number(target[1]) : Number(target[1]) - 1; // from the top
    const towardsMiddle = row < 4 ? 1 : -1;
    // The squares as drawn: chessgroundx sizes its board to whole pixels, a little inside the picker.
    picker.hidden = false;
    const outer = picker.getBoundingClientRect();
    const inner = this.element.querySelector("cg-board")?.getBoundingClientRect() || outer;
    const size = inner.width / 8;
    for (const [index, type] of PROMOTION_ORDER.filter((t) => byPiece[t]).entries()) {
      const button = document.createElement("button");
      Object.assign(button.style, { width: `${size}px`, height: `${size}px`, left: `${inner.left - outer.left + column * size}px`,
        top: `${inner.top - outer.top + (row + index * towardsMiddle) * size}px` });
      button.type = "button";
      button.dataset.promotion = type;
      button.title = `Promote to a ${PIECE_NAMES[type]} (${byPiece[type].san})`;
      const icon = document.createElement("img");
      icon.src = `/static/pieces/${color[0]}${type}.svg`;
      icon.alt = "";
      button.appendChild(icon);
      const label = document.createElement("span");
      label.className = "label";
      label.textContent = PIECE_NAMES[type];
      button.appendChild(label);
      button.addEventListener("click", (event) => {
        event.stopPropagation();
        picker.hidden = true;
        this.onMove(byPiece[type], event.timeStamp);
      });
      picker.appendChild(button);
    }
  }

  // The picker closed without a choice: the next show() puts the pawn back.
  hidePromotion() {
    this.picker.hidden = true;
    this.shown = null;
  }

  /**
   * Arrows and circles of the engine's ideas.
   * @param {Arrow[]} arrows
   */
  setArrows(arrows) {
    if (arrows.length === 0 && this.ground.state.drawable.autoShapes.length === 0) return;
    this.ground.setAutoShapes(arrows.map((a) => ({ orig: a.from, dest: a.to || undefined, brush: a.brush })));
  }

  cancel() {
    this.ground.cancelMove();
  }
}
