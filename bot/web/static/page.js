// @ts-check
// What every module of the page shares: the after-paint hook, the notice, the pieces' names and a
// game's result as PGN writes it. Nothing here knows a game or the server.
/** @import { Color } from "./network.js" */
import { el } from "./elements.js";

// Calls back once the next frame, the one that shows the page's changes so far, is painted: a
// task posted from requestAnimationFrame runs after that frame's style, layout and paint. It is
// posted ahead of other waiting tasks where the browser can (scheduler.postTask): a plain task
// waits behind whatever came meanwhile (a stream line, a fetch answer), 10-30 ms after the paint.
/** @param {() => void} callback */
export function afterPaint(callback) {
  requestAnimationFrame(() => {
    if ("scheduler" in window) {
      scheduler.postTask(callback, { priority: "user-blocking" });
      return;
    }
    const channel = new MessageChannel();
    channel.port1.onmessage = () => callback();
    channel.port2.postMessage(null);
  });
}

/** @type {Readonly<Record<string, string>>} */
export const PIECE_NAMES = { k: "royal knight", m: "commoner", q: "queen", r: "rook", b: "bishop", p: "pawn" };

/**
 * @param {Color} color
 * @returns {Color}
 */
export const other = (color) => (color === "white" ? "black" : "white");

/**
 * A game's result as PGN writes it: "1-0", "0-1", a draw, or "*" for a game that never was.
 * @param {Color | null} winner
 * @param {string} status
 */
export function resultOf(winner, status) {
  if (winner) return winner === "white" ? "1-0" : "0-1";
  return ["aborted", "noStart"].includes(status) ? "*" : "\u00BD-\u00BD";
}

/** @param {string} text */
export function showNotice(text) {
  el.notice.textContent = text;
  el.notice.hidden = !text;
}

/**
 * Scrolls *container* (a list with its own scroll bar) so that *element* in it is in view, and
 * nothing else: the page itself stays where the person has it (scrollIntoView would move it too).
 * @param {HTMLElement} container
 * @param {Element} element
 */
export function scrollWithin(container, element) {
  const box = container.getBoundingClientRect();
  const item = element.getBoundingClientRect();
  if (item.top < box.top) container.scrollTop -= box.top - item.top;
  else if (item.bottom > box.bottom) container.scrollTop += item.bottom - box.bottom;
}
