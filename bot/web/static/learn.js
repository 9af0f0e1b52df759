// @ts-check
// Learn from your mistakes, as Lichess has it: after a review, the person steps through their own
// inaccuracies, mistakes and blunders. At each, the game's board shows the position before the
// move and asks for a better one; each try goes to the server, whose engine judges it
// (/api/learn/try: accepted when it is the best move or keeps the win chance within the
// inaccuracy threshold of the best). A hint names the piece, the solution shows the review's
// better move, and a summary ends the round. Handed the review and the game view's goTo by
// review.js; it reads the game from state.js and imports neither review.js nor game.js.
import { el } from "./elements.js";
import { PIECE_NAMES } from "./page.js";
import { api } from "./network.js";
import { view } from "./state.js";
/** @import { AnalysedPosition, LegalMove } from "./network.js" */
/** @import { Arrow, Position } from "./board.js" */
/** @import { BoardOverride } from "./state.js" */
/** @import { ReviewedMove } from "./review.js" */

/**
 * @typedef {"find" | "judging" | "found" | "shown"} Phase  looking for a move, a try on its way to
 *   the engine, a better move found, the solution shown
 * @typedef {"found" | "shown" | "skipped"} Outcome
 *
 * @typedef {object} Exercise  one of the person's errors, to be bettered
 * @property {ReviewedMove} error
 * @property {Position} before  the position before the error
 * @property {AnalysedPosition | null} position  its legal moves, once the server sent them
 * @property {Phase} phase
 * @property {{ uci: string, fen: string } | null} shownMove  the move on the board after "found" or "shown"
 * @property {string | null} rejected  the last try refused, in UCI (a red arrow)
 * @property {boolean} hint
 *
 * @typedef {object} TryVerdict  GET /api/learn/try
 * @property {string} uci
 * @property {string} san
 * @property {boolean} accepted
 * @property {boolean} isBest
 * @property {"Inaccuracy" | "Mistake" | "Blunder" | null} judgement
 * @property {{ uci: string, san: string }} best
 */

const ARTICLES = { Inaccuracy: "an inaccuracy", Mistake: "a mistake", Blunder: "a blunder" };

// Where the exercise's words and buttons go: in the review panel beside the board where the two sit
// side by side (play.css, from 820 px), right under the board where the panel comes a screen
// further down (a phone), so the question and the board it is about are seen together.
const NARROW = window.matchMedia("(max-width: 819px)");

function placeExercise() {
  if (NARROW.matches) el.bottomPlayer.row.after(el.learn);
  else el.reviewPanel.append(el.learn);
}
NARROW.addEventListener("change", placeExercise);

// Learning's one state. Written only here.
const learn = {
  /** @type {ReviewedMove[]} */ errors: [], // the person's own, in the order played
  index: 0,
  /** @type {Exercise | null} */ current: null,
  /** @type {Outcome[]} */ outcomes: [],
  active: false,
  /** @type {(ply: number) => void} */ goTo: () => {},
};

/**
 * The person's own errors in *moves* that have a better move to find (none when only watching).
 * @param {ReviewedMove[]} moves
 */
export function errorsOf(moves) {
  const you = view.state ? view.state.you : null;
  return you === null ? [] : moves.filter((move) => move.judgement && move.better && move.color === you);
}

/**
 * Starts a round on the person's errors among *moves*.
 * @param {ReviewedMove[]} moves
 * @param {(ply: number) => void} goTo  the game view's
 */
export function start(moves, goTo) {
  learn.errors = errorsOf(moves);
  learn.index = 0;
  learn.outcomes = [];
  learn.goTo = goTo;
  learn.active = true;
  el.learn.hidden = false;
  el.learnStart.hidden = true;
  placeExercise();
  el.learn.scrollIntoView({ block: "nearest" });
  showExercise();
}

/** Ends the round (the person closed it, or another game or review came). */
export function stop() {
  const wasActive = learn.active;
  learn.active = false;
  learn.current = null;
  el.learn.hidden = true;
  if (wasActive && view.state) learn.goTo(view.ply);
}

export const isActive = () => learn.active;

/**
 * The position before the ply *ply* (1 for the first move) of the game shown.
 * @param {number} ply
 * @returns {Position}
 */
function positionBefore(ply) {
  const state = view.state;
  if (!state) throw new Error("learn.js: no game shown");
  const previous = state.plies[ply - 2];
  return previous ? { fen: previous.fen, last: previous.uci, check: previous.check }
    : { fen: state.initialFen, last: null, check: null };
}

async function showExercise() {
  const error = learn.errors[learn.index];
  if (!error) { finish(); return; }
  /** @type {Exercise} */
  const exercise = { error, before: positionBefore(error.ply), position: null, phase: "find", shownMove: null,
    rejected: null, hint: false };
  learn.current = exercise;
  const label = moveLabel(error);
  say(`${learn.index + 1} of ${learn.errors.length}: ${label} was ${ARTICLES[error.judgement || "Inaccuracy"]}. `
    + "Find a better move.");
  setButtons({ hint: true, solution: true, next: true });
  learn.goTo(error.ply - 1);
  const position = /** @type {AnalysedPosition} */ (await api(`/api/analysis/position?fen=${encodeURIComponent(exercise.before.fen)}`));
  if (learn.current !== exercise) return;
  exercise.position = position;
  learn.goTo(error.ply - 1); // the board takes moves now
}

/**
 * "12. Qg4??" or "12… Qg4??".
 * @param {ReviewedMove} error
 */
function moveLabel(error) {
  const state = view.state;
  const ply = state ? state.plies[error.ply - 1] : null;
  const number = ply ? ply.fen.split(" ")[5] : "";
  const symbol = { Inaccuracy: "?!", Mistake: "?", Blunder: "??" }[error.judgement || "Inaccuracy"];
  // The FEN after a White move still has its number; after a Black move, the next one.
  return error.color === "white" ? `${number}. ${error.san}${symbol}` : `${Number(number) - 1}\u2026 ${error.san}${symbol}`;
}

/**
 * A try on the board: judged by the server's engine.
 * @param {LegalMove} move
 */
async function tryMove(move) {
  const exercise = learn.current;
  if (!exercise || exercise.phase !== "find") return;
  exercise.phase = "judging";
  exercise.shownMove = move;
  say(`${move.san}\u2026 the engine is looking at it.`);
  learn.goTo(exercise.error.ply - 1);
  /** @type {TryVerdict} */
  let verdict;
  try {
    verdict = await api(`/api/learn/try?fen=${encodeURIComponent(exercise.before.fen)}&uci=${move.uci}`);
  } catch (error) {
    if (learn.current !== exercise) return;
    exercise.phase = "find";
    exercise.shownMove = null;
    say(error instanceof Error ? error.message : String(error));
    learn.goTo(exercise.error.ply - 1);
    return;
  }
  if (learn.current !== exercise) return;
  if (verdict.accepted) {
    exercise.phase = "found";
    learn.outcomes[learn.index] = "found";
    say(verdict.isBest ? `${verdict.san}: the best move. Well found!`
      : `${verdict.san}: a good move (${verdict.best.san} was the engine's first choice).`);
    setButtons({ hint: false, solution: false, next: true });
  } else {
    exercise.phase = "find";
    exercise.shownMove = null;
    exercise.rejected = verdict.uci;
    say(`${verdict.san} would be ${ARTICLES[verdict.judgement || "Inaccuracy"]} too. Try another move.`);
  }
  learn.goTo(exercise.error.ply - 1);
}

function hint() {
  const exercise = learn.current;
  if (!exercise || exercise.phase !== "find" || !exercise.error.better) return;
  exercise.hint = true;
  const piece = exercise.error.better.piece;
  say(`Hint: move your ${piece ? PIECE_NAMES[piece] : "piece"} (circled).`);
  learn.goTo(exercise.error.ply - 1);
}

function showSolution() {
  const exercise = learn.current;
  const better = exercise ? exercise.error.better : null;
  if (!exercise || !better || exercise.phase === "judging") return;
  exercise.phase = "shown";
  exercise.shownMove = { uci: better.uci, fen: better.fen };
  learn.outcomes[learn.index] ??= "shown";
  say(`The solution: ${better.san}.`);
  setButtons({ hint: false, solution: false, next: true });
  learn.goTo(exercise.error.ply - 1);
}

function next() {
  if (!learn.current) return;
  learn.outcomes[learn.index] ??= "skipped";
  learn.index += 1;
  showExercise();
}

function finish() {
  learn.current = null;
  const total = learn.errors.length;
  const count = (/** @type {Outcome} */ outcome) => learn.outcomes.filter((o) => o === outcome).length;
  const found = count("found");
  const shown = count("shown");
  const skipped = count("skipped");
  const rest = [shown ? `${shown} solution${shown === 1 ? "" : "s"} shown` : "", skipped ? `${skipped} skipped` : ""]
    .filter(Boolean).join(", ");
  say(total === 0 ? "No mistakes of yours to learn from in this game."
    : `Done: you found ${found} of ${total} better move${total === 1 ? "" : "s"}${rest ? ` (${rest})` : ""}.`);
  el.learnText.dataset.found = String(found);
  setButtons({ hint: false, solution: false, next: false });
  if (view.state) learn.goTo(view.ply);
}

/** @param {string} text */
function say(text) {
  el.learnText.textContent = text;
}

/** @param {{ hint: boolean, solution: boolean, next: boolean }} shown */
function setButtons(shown) {
  el.learnHint.hidden = !shown.hint;
  el.learnSolution.hidden = !shown.solution;
  el.learnNext.hidden = !shown.next;
  el.learnStop.textContent = shown.next ? "Stop" : "Close";
}

/**
 * What the game's board shows at *ply* while a round is on: the exercise's position, taking moves
 * while a better one is looked for.
 * @param {number} ply
 * @returns {BoardOverride | null}
 */
export function board(ply) {
  const exercise = learn.current;
  if (!learn.active || !exercise || ply !== exercise.error.ply - 1) return null;
  const color = exercise.error.color;
  if (exercise.shownMove) {
    const { uci, fen } = exercise.shownMove;
    return { position: { fen, last: uci, check: null }, movable: null, legalMoves: [], onMove: () => {} };
  }
  const position = exercise.position;
  const movable = exercise.phase === "find" && position ? color : null;
  return { position: { ...exercise.before, check: position ? position.check : exercise.before.check }, movable,
    legalMoves: movable && position ? position.legalMoves : [], onMove: tryMove };
}

/**
 * The board's marks at *ply* while a round is on: the refused try, the hint's piece, the move found
 * or shown. Never the review's better move: that is the answer.
 * @param {number} ply
 * @returns {Arrow[]}
 */
export function decorate(ply) {
  const exercise = learn.current;
  if (!exercise || ply !== exercise.error.ply - 1) return [];
  /** @type {Arrow[]} */
  const arrows = [];
  const better = exercise.error.better;
  if (exercise.shownMove) {
    arrows.push({ from: exercise.shownMove.uci.slice(0, 2), to: exercise.shownMove.uci.slice(2, 4), brush: "green" });
  } else {
    if (exercise.rejected) arrows.push({ from: exercise.rejected.slice(0, 2), to: exercise.rejected.slice(2, 4), brush: "red" });
    if (exercise.hint && better) arrows.push({ from: better.uci.slice(0, 2), to: null, brush: "green" });
  }
  return arrows;
}

export function wire() {
  el.learnHint.addEventListener("click", hint);
  el.learnSolution.addEventListener("click", showSolution);
  el.learnNext.addEventListener("click", next);
  el.learnStop.addEventListener("click", stop);
}
