// @ts-check
// The person's puzzle rating, kept in this browser's localStorage, as Lichess keeps a puzzle
// rating: Glicko-2 (glicko2.js) with Lichess's start, system constant and bounds, each puzzle a
// game against the puzzle's own rating and deviation (from its CSV), rated the first time it is
// played here only (a puzzle tried again teaches but does not count). No server sees it.
import { rate } from "./glicko2.js";
/** @import { Glicko } from "./glicko2.js" */

/**
 * @typedef {object} PuzzleRecord  what this browser remembers
 * @property {Glicko} glicko
 * @property {Record<string, boolean>} played  each puzzle played here, by id: solved or not
 *
 * @typedef {{ before: Glicko, after: Glicko, rated: boolean }} RatingChange
 */

const STORAGE_KEY = "knightmate.puzzles";
// Lichess's numbers (lila's Glicko.scala): a new player's rating, the system constant, and the
// bounds it keeps a rating within after each game.
/** @type {Readonly<Glicko>} */
const START = { rating: 1500, deviation: 500, volatility: 0.09 };
const TAU = 0.75;
const MIN_DEVIATION = 45;
const MAX_DEVIATION = 500;
const MAX_VOLATILITY = 0.1;

/**
 * What this browser remembers; a record missing or broken (another page, a hand edit) starts afresh.
 * @returns {PuzzleRecord}
 */
export function load() {
  try {
    const record = JSON.parse(localStorage.getItem(STORAGE_KEY) || "null");
    const glicko = record && record.glicko;
    if (glicko && [glicko.rating, glicko.deviation, glicko.volatility].every(Number.isFinite)
        && record.played && typeof record.played === "object") {
      return { glicko: { rating: glicko.rating, deviation: glicko.deviation, volatility: glicko.volatility },
        played: record.played };
    }
  } catch (error) {
    // not JSON: start afresh
  }
  return { glicko: { ...START }, played: {} };
}

/**
 * Records the puzzle *id* (rated *rating*, deviation *deviation*) as *solved* or not; the rating
 * before and after (unchanged for a puzzle played here before).
 * @param {{ id: string, rating: number, ratingDeviation: number }} puzzle
 * @param {boolean} solved
 * @returns {RatingChange}
 */
export function record(puzzle, solved) {
  const saved = load();
  const before = saved.glicko;
  if (puzzle.id in saved.played) return { before, after: before, rated: false };
  const rated = rate(before, [{ rating: puzzle.rating, deviation: puzzle.ratingDeviation, score: solved ? 1 : 0 }], TAU);
  const after = { rating: rated.rating,
    deviation: Math.min(MAX_DEVIATION, Math.max(MIN_DEVIATION, rated.deviation)),
    volatility: Math.min(MAX_VOLATILITY, rated.volatility) };
  saved.played[puzzle.id] = solved;
  localStorage.setItem(STORAGE_KEY, JSON.stringify({ glicko: after, played: saved.played }));
  return { before, after, rated: true };
}

/**
 * The rating as Lichess shows it: whole, with "?" while the deviation is still large (provisional).
 * @param {Glicko} glicko
 */
export const ratingText = (glicko) => `${Math.round(glicko.rating)}${glicko.deviation > 110 ? "?" : ""}`;
