// @ts-check
// The page's latency marks, read by the tests and bench/page/web_latency.py as window.kmMetrics.
// The game and the analysis board call each mark at one point; nothing here changes the page.
// Each mark is taken once the frame showing it is painted (afterPaint): a click's own event time to
// then (ms of performance.now()); the server's stamp of the bot's move request arriving to then
// (ms of the system clock, which the server's stamp is on: Date.now(), as performance.timeOrigin
// drifts from it); the same for an analysis line, from the server's stamp of the engine's report;
// navigation start to the first board and to the first game drawn.
import { afterPaint } from "./page.js";

const metrics = {
  /** @type {number[]} */ clickToShown: [],
  /** @type {number[]} */ clickToConfirmed: [],
  /** @type {number[]} */ botMoveToShown: [],
  /** @type {number[]} */ analysisLineMs: [],
  /** @type {number | null} */ boardReadyMs: null,
  /** @type {number | null} */ gameShownMs: null,
};
Object.assign(window, { kmMetrics: metrics });

/** The person's move (clicked or dropped at *clickedAt*, performance.now()) is on the board. */
export function moveShown(/** @type {number} */ clickedAt) {
  afterPaint(() => metrics.clickToShown.push(performance.now() - clickedAt));
}

/** The server's state with the person's move (made at *clickedAt*) is on the page. */
export function moveConfirmed(/** @type {number} */ clickedAt) {
  afterPaint(() => metrics.clickToConfirmed.push(performance.now() - clickedAt));
}

/** The bot's move, whose request reached the server at *arrivedAtMs* (its wall clock), is shown. */
export function botMoveShown(/** @type {number} */ arrivedAtMs) {
  afterPaint(() => metrics.botMoveToShown.push(Date.now() - arrivedAtMs));
}

/** An engine report the server sent at *sentAtMs* (its wall clock) is shown. */
export function analysisLineShown(/** @type {number} */ sentAtMs) {
  afterPaint(() => metrics.analysisLineMs.push(Date.now() - sentAtMs));
}

/** The first board is drawn. */
export function boardReady() {
  afterPaint(() => { metrics.boardReadyMs = performance.now(); });
}

/** A game is drawn; only the first counts. */
export function gameShown() {
  if (metrics.gameShownMs === null) afterPaint(() => { metrics.gameShownMs ??= performance.now(); });
}
