// What every module of the page shares: element lookup, the after-paint hook and the page's own
// latency marks (read by the tests and bench/page/web_latency.py).

export const $ = (id) => document.getElementById(id);

// Each mark is taken once the frame showing it is painted (afterPaint): the click's own event time
// to then (ms of performance.now()); the server's stamp of the bot's move request arriving to then
// (ms of the system clock, which the server's stamp is on: Date.now(), as performance.timeOrigin
// drifts from it); the same for an analysis line, from the server's stamp of the engine's report;
// navigation start to the first board and to the first game drawn.
export const metrics = { clickToShown: [], clickToConfirmed: [], botMoveToShown: [], analysisLineMs: [], boardReadyMs: null,
  gameShownMs: null };
window.kmMetrics = metrics;

// Calls back once the next frame, the one that shows the page's changes so far, is painted: a
// task posted from requestAnimationFrame runs after that frame's style, layout and paint. It is
// posted ahead of other waiting tasks where the browser can (scheduler.postTask): a plain task
// waits behind whatever came meanwhile (a stream line, a fetch answer), 10-30 ms after the paint.
export function afterPaint(callback) {
  requestAnimationFrame(() => {
    if (window.scheduler && scheduler.postTask) {
      scheduler.postTask(callback, { priority: "user-blocking" });
      return;
    }
    const channel = new MessageChannel();
    channel.port1.onmessage = () => callback();
    channel.port2.postMessage(null);
  });
}

export const PIECE_NAMES = { k: "royal knight", m: "commoner", q: "queen", r: "rook", b: "bishop", p: "pawn" };
export const other = (color) => (color === "white" ? "black" : "white");

export function showNotice(text) {
  const notice = $("notice");
  notice.textContent = text;
  notice.hidden = !text;
}
