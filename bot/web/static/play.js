// knightmate-bot play: a thin client of the sandbox's human seat, in modules by job: page.js
// (shared helpers), network.js (the server), board.js (chessgroundx), game.js (one game),
// lobby.js (starting and choosing games), analysis.js (the analysis board), sounds.js. The page knows no rules: every position it
// gets from the server lists its legal moves (UCI, SAN and the position after each).
import { $, afterPaint, metrics, showNotice } from "./page.js";
import { api } from "./network.js";
import * as game from "./game.js";
import * as lobby from "./lobby.js";
import * as sounds from "./sounds.js";
import * as analysis from "./analysis.js";
import * as review from "./review.js";

function onHash() {
  if (location.hash !== "#analysis" && analysis.isOpen()) analysis.close();
  const match = /^#game\/([A-Za-z0-9]+)$/.exec(location.hash);
  if (match && match[1] !== game.view.gameId) game.openGame(match[1]);
}

function onKey(event) {
  if (event.target.closest("input, textarea, select")) return;
  if (event.key === "Escape" && game.cancelPromotion()) return;
  if (analysis.isOpen()) {
    if (analysis.step(event.key)) event.preventDefault();
    return;
  }
  if (!game.view.state) return;
  const step = { ArrowLeft: game.view.ply - 1, ArrowRight: game.view.ply + 1, Home: 0, End: game.view.state.plies.length }[event.key];
  if (step === undefined) return;
  event.preventDefault();
  game.goTo(step);
}

// Resigning takes two clicks: the first one asks for the second, for three seconds.
function resign() {
  const button = $("resign");
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
  const text = $("pgn").value;
  try {
    await navigator.clipboard.writeText(text);
  } catch (error) {
    $("pgn").select();
    document.execCommand("copy");
  }
  $("copy-pgn").textContent = "Copied";
  setTimeout(() => { $("copy-pgn").textContent = "Copy"; }, 1500);
}

function wire() {
  $("promotion").addEventListener("click", (event) => { if (event.target === $("promotion")) game.cancelPromotion(); });
  document.addEventListener("keydown", onKey);
  $("first").addEventListener("click", () => game.goTo(0));
  $("back").addEventListener("click", () => game.goTo(game.view.ply - 1));
  $("forward").addEventListener("click", () => game.goTo(game.view.ply + 1));
  $("last").addEventListener("click", () => game.goTo(Infinity));
  $("flip").addEventListener("click", game.flip);
  $("resign").addEventListener("click", resign);
  $("draw").addEventListener("click", () => game.gameActions.draw("yes"));
  $("draw-accept").addEventListener("click", () => game.gameActions.draw("yes"));
  $("draw-decline").addEventListener("click", () => game.gameActions.draw("no"));
  $("abort").addEventListener("click", game.gameActions.abort);
  $("pgn-panel").addEventListener("toggle", () => { if ($("pgn-panel").open) game.loadPgn(); });
  $("copy-pgn").addEventListener("click", copyPgn);
  $("chat-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("chat-text").value.trim();
    if (!text || !game.view.gameId) return;
    $("chat-text").value = "";
    game.gameActions.chat(text);
  });
  $("analyse-game").addEventListener("click", () => {
    const { initialFen, plies, flipped } = game.forAnalysis();
    analysis.open(initialFen, plies, { flipped });
  });
  lobby.wire();
  analysis.wire();
  review.wire();
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

function onPageShow(event) {
  if (!event.persisted) return;
  lobby.followGames();
  if (game.view.gameId) game.openGame(game.view.gameId);
}

async function start() {
  lobby.renderPresets();
  let account;
  try {
    account = await api("/api/account");
  } catch (error) {
    showNotice(error.message);
    return;
  }
  for (const node of document.querySelectorAll("#bot-name, .bot-name")) node.textContent = account.bot;
  game.setUp(account, () => lobby.renderGames());
  afterPaint(() => { metrics.boardReadyMs = performance.now(); });
  wire();
  lobby.followGames();
  onHash();
  document.body.dataset.ready = "true";
}

start();
