// @ts-check
// knightmate-bot play: a thin client of the sandbox's human seat, in modules by job: elements.js
// (the page's elements), page.js (shared helpers), state.js (the game shown), network.js (the
// server), board.js (chessgroundx), game.js (one game), review.js (its review), lobby.js
// (starting and choosing games), analysis.js (the analysis board), puzzles.js (the puzzles, rated
// by puzzle-rating.js with glicko2.js), sounds.js, metrics.js (latency marks). This module wires
// them together; the page knows no rules: every position it gets from the server lists its legal
// moves (UCI, SAN and the position after each).
import { el } from "./elements.js";
import { showNotice } from "./page.js";
import * as metrics from "./metrics.js";
import { api } from "./network.js";
import { view } from "./state.js";
import * as game from "./game.js";
import * as lobby from "./lobby.js";
import * as sounds from "./sounds.js";
import * as analysis from "./analysis.js";
import * as review from "./review.js";
import * as puzzles from "./puzzles.js";
/** @import { Account } from "./network.js" */

function onHash() {
  if (location.hash !== "#analysis" && analysis.isOpen()) analysis.close();
  if (location.hash !== "#puzzles" && puzzles.isOpen()) puzzles.close();
  if (location.hash === "#puzzles" && !puzzles.isOpen()) puzzles.open();
  const match = /^#game\/([A-Za-z0-9]+)$/.exec(location.hash);
  if (match && match[1] !== view.gameId) game.openGame(match[1]);
}

/** @param {KeyboardEvent} event */
function onKey(event) {
  if (event.target instanceof Element && event.target.closest("input, textarea, select")) return;
  if (event.key === "Escape" && game.cancelPromotion()) return;
  if (puzzles.isOpen()) return;
  if (analysis.isOpen()) {
    if (analysis.step(event.key)) event.preventDefault();
    return;
  }
  if (!view.state) return;
  /** @type {Record<string, number>} */
  const steps = { ArrowLeft: view.ply - 1, ArrowRight: view.ply + 1, Home: 0, End: view.state.plies.length };
  const step = steps[event.key];
  if (step === undefined) return;
  event.preventDefault();
  game.goTo(step);
}

// Resigning takes two clicks: the first one asks for the second, for three seconds.
function resign() {
  const button = el.resign;
  if (!button.classList.contains("armed")) {
    button.classList.add("armed");
    button.textContent = "Really resign?";
    setTimeout(() => { button.classList.remove("armed"); button.textContent = "Resign"; }, 3000);
    return;
  }
  button.classList.remove("armed");
  button.textContent = "Resign";
  game.gameActions.resign();
}

async function copyPgn() {
  await game.loadPgn();
  const text = el.pgn.value;
  try {
    await navigator.clipboard.writeText(text);
  } catch (error) {
    el.pgn.select();
    document.execCommand("copy");
  }
  el.copyPgn.textContent = "Copied";
  setTimeout(() => { el.copyPgn.textContent = "Copy"; }, 1500);
}

/** @param {Account} account */
function wire(account) {
  el.promotion.addEventListener("click", (event) => { if (event.target === el.promotion) game.cancelPromotion(); });
  document.addEventListener("keydown", onKey);
  el.first.addEventListener("click", () => game.goTo(0));
  el.back.addEventListener("click", () => game.goTo(view.ply - 1));
  el.forward.addEventListener("click", () => game.goTo(view.ply + 1));
  el.last.addEventListener("click", () => game.goTo(Infinity));
  el.flip.addEventListener("click", game.flip);
  el.resign.addEventListener("click", resign);
  el.draw.addEventListener("click", () => game.gameActions.draw("yes"));
  el.drawAccept.addEventListener("click", () => game.gameActions.draw("yes"));
  el.drawDecline.addEventListener("click", () => game.gameActions.draw("no"));
  el.abort.addEventListener("click", game.gameActions.abort);
  el.pgnPanel.addEventListener("toggle", () => { if (el.pgnPanel.open) game.loadPgn(); });
  el.copyPgn.addEventListener("click", copyPgn);
  el.chatForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = el.chatText.value.trim();
    if (!text || !view.gameId) return;
    el.chatText.value = "";
    game.gameActions.chat(text);
  });
  el.analyseGame.addEventListener("click", () => {
    const shown = game.forAnalysis();
    if (shown) analysis.open(shown.initialFen, shown.plies, { flipped: shown.flipped, headers: shown.headers });
  });
  lobby.wire(account);
  analysis.wire();
  puzzles.wire();
  review.wire(game.goTo);
  sounds.wireSwitch();
  window.addEventListener("hashchange", onHash);
  window.addEventListener("pagehide", onPageHide);
  window.addEventListener("pageshow", onPageShow);
  setInterval(game.tickClocks, 100);
}

// A page left for another lets go of its streams, and takes them up again if it is come back to
// from the back-forward cache: Chromium keeps a left page alive there, streams and all, and allows
// six connections to a server, so the page that replaced it had its moves wait for one.
function onPageHide() {
  lobby.stopFollowing();
  game.closeStream();
}

/** @param {PageTransitionEvent} event */
function onPageShow(event) {
  if (!event.persisted) return;
  lobby.followGames();
  if (view.gameId) game.openGame(view.gameId);
}

async function start() {
  lobby.renderPresets();
  /** @type {Account} */
  let account;
  try {
    account = await api("/api/account");
  } catch (error) {
    showNotice(error instanceof Error ? error.message : String(error));
    return;
  }
  for (const node of document.querySelectorAll("#bot-name, .bot-name")) node.textContent = account.bot;
  game.setUp(account, { overlay: review.overlay, gameOpened: () => lobby.renderGames() });
  metrics.boardReady();
  wire(account);
  lobby.followGames();
  onHash();
  document.body.dataset.ready = "true";
}

start();
