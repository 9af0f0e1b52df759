// @ts-check
// Puzzles, as on Lichess: the opponent's move is played for the person, who then plays the
// solution, each of the opponent's replies played for them; a move that is not the solution's
// fails the puzzle and the solution is played out on the board. Each puzzle played rates the
// person (puzzle-rating.js, kept in this browser). The list comes from /api/puzzles, filtered by
// theme and rating; the next puzzle is the one not yet played here nearest the person's rating.
// The rules are the server's: each position the person moves in carries its legal moves and the
// moves that solve it (bot/web/puzzle_set.py).
import { el } from "./elements.js";
import { api } from "./network.js";
import { Board } from "./board.js";
import * as rating from "./puzzle-rating.js";
import * as sounds from "./sounds.js";
/** @import { Color, LegalMove } from "./network.js" */
/** @import { RatingChange } from "./puzzle-rating.js" */

/**
 * @typedef {{ id: string, rating: number, ratingDeviation: number, themes: string[] }} PuzzleSummary
 *
 * @typedef {object} PuzzleListing  GET /api/puzzles: the puzzles asked for, easiest first
 * @property {PuzzleSummary[]} puzzles
 * @property {number} count  how many match (the list holds the first MAX_LISTED, puzzle_set.py)
 * @property {{ theme: string, count: number }[]} themes  of the whole set
 *
 * @typedef {object} PuzzleStep  a move of the puzzle's line and the position after it
 * @property {string} uci
 * @property {string} san
 * @property {"opponent" | "you"} by
 * @property {string} fen
 * @property {string | null} check
 * @property {LegalMove[]} [legalMoves]  by "you": the position's legal moves, before the move
 * @property {string[]} [accepted]  by "you": the moves that solve it
 *
 * @typedef {PuzzleSummary & { gameUrl: string, initialFen: string, check: string | null, you: Color,
 *   steps: PuzzleStep[] }} Puzzle  GET /api/puzzles/<id>
 *
 * @typedef {"opponent" | "you" | "wrong" | "solution"} MoveKind  how the move list marks a move
 */

/** The pause before the opponent's move is played, so that the person sees it come. */
const OPPONENT_DELAY_MS = 500;
/** The pause between the moves of a solution played out. */
const SOLUTION_STEP_MS = 700;

// The puzzles' one state. Written only here.
const shown = {
  /** @type {Board | null} */ board: null, // made when first opened: chessgroundx measures its element
  /** @type {PuzzleListing | null} */ listing: null,
  /** @type {Puzzle | null} */ puzzle: null,
  step: 0, // the index of the line's next move
  /** @type {"solved" | "failed" | null} */ outcome: null,
  /** @type {number | undefined} */ timer: undefined, // the opponent's move or the solution, coming
};

export const isOpen = () => !el.puzzles.hidden;

export async function open() {
  if (!shown.board) shown.board = new Board(el.puzzleBoard, el.puzzlePromotion, played);
  el.puzzles.hidden = false;
  el.main.hidden = true;
  if (location.hash !== "#puzzles") history.pushState(null, "", "#puzzles");
  window.scrollTo(0, 0); // the button that opened it may be far down a phone's page
  renderRating(null);
  await loadList();
  if (!shown.puzzle) await next();
  else if (!shown.outcome) start(shown.puzzle); // left halfway (its timers stopped): from its start again
}

export function close() {
  clearTimeout(shown.timer);
  el.puzzles.hidden = true;
  el.main.hidden = false;
}

// ---- the list -------------------------------------------------------------------------------------

async function loadList() {
  const query = new URLSearchParams({ theme: el.puzzleTheme.value, min: el.puzzleMin.value, max: el.puzzleMax.value });
  try {
    shown.listing = await api(`/api/puzzles?${query}`);
    el.puzzleMessage.textContent = "";
  } catch (error) {
    el.puzzleMessage.textContent = error instanceof Error ? error.message : String(error);
    return;
  }
  renderList();
}

function renderList() {
  const listing = shown.listing;
  if (!listing) return;
  const chosen = el.puzzleTheme.value;
  el.puzzleTheme.replaceChildren(new Option("any", ""),
    ...listing.themes.map((t) => new Option(`${t.theme} (${t.count})`, t.theme, false, t.theme === chosen)));
  el.puzzleTheme.value = chosen;
  const { played } = rating.load();
  el.puzzleCount.textContent = listing.count === 1 ? "1 puzzle matches" : `${listing.count} puzzles match`;
  el.puzzleCount.dataset.count = String(listing.count);
  el.puzzleList.replaceChildren(...listing.puzzles.map((summary) => {
    const item = document.createElement("li");
    const pick = Object.assign(document.createElement("button"), { type: "button",
      textContent: `${summary.rating} \u00B7 ${summary.themes.slice(0, 3).join(", ") || summary.id}` });
    pick.dataset.puzzle = summary.id;
    if (summary.id in played) pick.dataset.played = played[summary.id] ? "solved" : "failed";
    if (shown.puzzle && shown.puzzle.id === summary.id) pick.classList.add("current");
    pick.addEventListener("click", () => play(summary.id));
    item.appendChild(pick);
    return item;
  }));
}

/** The next puzzle: of those listed, one not played here, nearest the person's rating. */
function pick() {
  const listing = shown.listing;
  if (!listing || listing.puzzles.length === 0) return null;
  const { glicko, played } = rating.load();
  const fresh = listing.puzzles.filter((p) => !(p.id in played) && (!shown.puzzle || p.id !== shown.puzzle.id));
  const pool = fresh.length ? fresh : listing.puzzles;
  return pool.reduce((best, p) => (Math.abs(p.rating - glicko.rating) < Math.abs(best.rating - glicko.rating) ? p : best));
}

async function next() {
  const choice = pick();
  if (!choice) {
    const none = shown.listing && shown.listing.themes.length === 0;
    setStatus(null, none ? "This page has no puzzles yet: its operator adds them with game.puzzle_files."
      : "No puzzle matches these filters.");
    return;
  }
  await play(choice.id);
}

/** @param {string} id */
async function play(id) {
  try {
    start(await api(`/api/puzzles/${encodeURIComponent(id)}`));
  } catch (error) {
    el.puzzleMessage.textContent = error instanceof Error ? error.message : String(error);
  }
}

// ---- one puzzle -----------------------------------------------------------------------------------

/** @param {Puzzle} puzzle */
function start(puzzle) {
  clearTimeout(shown.timer);
  shown.puzzle = puzzle;
  shown.step = 0;
  shown.outcome = null;
  el.puzzleMoves.textContent = "";
  el.puzzleInfo.textContent = `Puzzle ${puzzle.id} \u00B7 rated ${puzzle.rating} \u00B7 ${puzzle.themes.join(", ")}`;
  const fromGame = /^https?:\/\//.test(puzzle.gameUrl);
  el.puzzleGame.hidden = !fromGame;
  el.puzzleGame.href = fromGame ? puzzle.gameUrl : "#";
  el.puzzleSolution.disabled = false;
  setStatus(null, `You play ${puzzle.you}: watch the opponent's move.`);
  renderRating(null);
  renderList();
  showPosition({ fen: puzzle.initialFen, last: null, check: puzzle.check }, null);
  later(OPPONENT_DELAY_MS, playOpponent);
}

/**
 * Runs *then* after *delayMs*, unless another puzzle was started meanwhile.
 * @param {number} delayMs
 * @param {() => void} then
 */
function later(delayMs, then) {
  const puzzle = shown.puzzle;
  shown.timer = setTimeout(() => { if (shown.puzzle === puzzle) then(); }, delayMs);
}

/**
 * Shows *position*, with the person's legal moves when it is theirs to move.
 * @param {{ fen: string, last: string | null, check: string | null }} position
 * @param {LegalMove[] | null} legalMoves
 */
function showPosition(position, legalMoves) {
  if (!shown.board || !shown.puzzle) return;
  shown.board.show(position, { orientation: shown.puzzle.you, movable: legalMoves ? shown.puzzle.you : null,
    legalMoves: legalMoves || [], ply: shown.step });
}

/** The opponent's move of the line, then the person's turn. */
function playOpponent() {
  const puzzle = shown.puzzle;
  if (!puzzle || shown.outcome) return;
  const step = puzzle.steps[shown.step];
  shown.step += 1;
  addMove(step.san, "opponent");
  const yours = puzzle.steps[shown.step];
  showPosition({ fen: step.fen, last: step.uci, check: step.check }, yours.legalMoves || []);
  if (shown.step === 1) setStatus(null, `Your turn: find the best move for ${puzzle.you}.`);
}

/**
 * The person moved *move*, one of the position's legal moves.
 * @param {LegalMove} move
 */
function played(move) {
  const puzzle = shown.puzzle;
  if (!puzzle || shown.outcome) return;
  const step = puzzle.steps[shown.step];
  if (!step || step.by !== "you") return;
  if (!(step.accepted || []).includes(move.uci)) {
    addMove(move.san, "wrong");
    showPosition({ fen: move.fen, last: move.uci, check: null }, null);
    finish(false);
    return;
  }
  shown.step += 1;
  addMove(move.san, "you");
  showPosition({ fen: move.fen, last: move.uci, check: move.uci === step.uci ? step.check : null }, null);
  if (shown.step === puzzle.steps.length) {
    finish(true);
    return;
  }
  setStatus(null, "Best move! Keep going\u2026");
  later(OPPONENT_DELAY_MS, playOpponent);
}

/** The person gives up: a failed puzzle, and its solution. */
function giveUp() {
  if (shown.puzzle && !shown.outcome) finish(false);
}

/** @param {boolean} solved */
function finish(solved) {
  const puzzle = shown.puzzle;
  if (!puzzle) return;
  shown.outcome = solved ? "solved" : "failed";
  el.puzzleSolution.disabled = true;
  renderRating(rating.record(puzzle, solved));
  renderList();
  if (solved) {
    setStatus("solved", "Solved! Well done.");
    return;
  }
  setStatus("failed", `Puzzle failed: the solution was ${solutionText(puzzle)}.`);
  playSolution(shown.step);
}

/** @param {Puzzle} puzzle */
const solutionText = (puzzle) => puzzle.steps.slice(shown.step).map((s) => s.san).join(" ");

/**
 * Plays the line out from its move *index* on, from the position before it.
 * @param {number} index
 */
function playSolution(index) {
  const puzzle = shown.puzzle;
  if (!puzzle) return;
  const before = index > 0 ? puzzle.steps[index - 1] : null;
  later(SOLUTION_STEP_MS, () => {
    showPosition(before ? { fen: before.fen, last: before.uci, check: before.check }
      : { fen: puzzle.initialFen, last: null, check: puzzle.check }, null);
    const playFrom = (/** @type {number} */ i) => {
      if (i >= puzzle.steps.length) return;
      later(SOLUTION_STEP_MS, () => {
        const step = puzzle.steps[i];
        addMove(step.san, "solution");
        shown.step = i + 1;
        showPosition({ fen: step.fen, last: step.uci, check: step.check }, null);
        playFrom(i + 1);
      });
    };
    playFrom(index);
  });
}

/**
 * @param {string} san
 * @param {MoveKind} kind
 */
function addMove(san, kind) {
  const item = Object.assign(document.createElement("li"), { textContent: kind === "wrong" ? `${san} \u2717` : san });
  item.dataset.kind = kind;
  el.puzzleMoves.appendChild(item);
  sounds.forSan(san);
}

/**
 * @param {"solved" | "failed" | null} outcome
 * @param {string} text
 */
function setStatus(outcome, text) {
  el.puzzleStatus.textContent = text;
  if (outcome) el.puzzleStatus.dataset.outcome = outcome;
  else delete el.puzzleStatus.dataset.outcome;
}

/** @param {RatingChange | null} change  the last puzzle's, or null: the rating as it stands */
function renderRating(change) {
  const glicko = change ? change.after : rating.load().glicko;
  for (const node of [el.puzzleRating, el.puzzleRatingStart]) {
    node.textContent = rating.ratingText(glicko);
    node.dataset.rating = glicko.rating.toFixed(2);
  }
  const difference = change ? Math.round(change.after.rating - change.before.rating) : 0;
  el.puzzleRatingChange.textContent = !change ? ""
    : !change.rated ? "(played before: not rated again)"
      : `${difference >= 0 ? "+" : "\u2212"}${Math.abs(difference)}`;
  el.puzzleRatingChange.className = change && change.rated ? (difference >= 0 ? "up" : "down") : "";
}

export function wire() {
  renderRating(null);
  el.openPuzzles.addEventListener("click", () => { open(); });
  el.closePuzzles.addEventListener("click", () => { history.back(); });
  el.puzzleNext.addEventListener("click", () => { next(); });
  el.puzzleSolution.addEventListener("click", giveUp);
  el.puzzleFilters.addEventListener("submit", (event) => { event.preventDefault(); loadList(); });
  el.puzzleFilters.addEventListener("change", () => { loadList(); });
}
