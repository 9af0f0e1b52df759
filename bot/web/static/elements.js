// @ts-check
// The page's elements (index.html), each looked up once, here, with its type: a module takes the
// ones it needs from `el`, and no module looks an id up on its own. Module scripts run once the
// document is parsed, so every element is there when this runs.

/**
 * The page's element *id*, which must be a *type* (HTMLButtonElement, ...): a page that lost one
 * fails at once and by its name, not later on a null.
 * @template {Element} T
 * @param {string} id
 * @param {{ new (): T, prototype: T }} type
 * @returns {T}
 */
function byId(id, type) {
  const element = document.getElementById(id);
  if (!(element instanceof type)) throw new Error(`The page has no ${type.name} #${id}.`);
  return element;
}

/**
 * A player's row (index.html): the row, its name and its clock.
 * @param {string} id
 */
function playerRow(id) {
  const row = byId(id, HTMLDivElement);
  const part = (/** @type {string} */ selector) => {
    const element = row.querySelector(selector);
    if (!(element instanceof HTMLElement)) throw new Error(`The page's #${id} has no ${selector}.`);
    return element;
  };
  return { row, name: part(".name"), clock: part(".clock") };
}

const button = (/** @type {string} */ id) => byId(id, HTMLButtonElement);
const block = (/** @type {string} */ id) => byId(id, HTMLElement);

export const el = {
  // The game.
  board: byId("board", HTMLDivElement),
  promotion: byId("promotion", HTMLDivElement),
  topPlayer: playerRow("top-player"),
  bottomPlayer: playerRow("bottom-player"),
  status: byId("status", HTMLParagraphElement),
  viewing: byId("viewing", HTMLParagraphElement),
  countdown: byId("countdown", HTMLParagraphElement),
  drawOffer: byId("draw-offer", HTMLParagraphElement),
  drawText: byId("draw-text", HTMLSpanElement),
  drawAccept: button("draw-accept"),
  drawDecline: button("draw-decline"),
  gamePanel: block("game-panel"),
  moves: byId("moves", HTMLOListElement),
  first: button("first"),
  back: button("back"),
  forward: button("forward"),
  last: button("last"),
  flip: button("flip"),
  resign: button("resign"),
  abort: button("abort"),
  draw: button("draw"),
  rematch: button("rematch"),
  newGame: button("new"),
  analyseGame: button("analyse-game"),
  review: button("review"),
  mute: button("mute"),
  pgnPanel: byId("pgn-panel", HTMLDetailsElement),
  pgn: byId("pgn", HTMLTextAreaElement),
  copyPgn: button("copy-pgn"),
  downloadPgn: byId("download-pgn", HTMLAnchorElement),
  chatLines: byId("chat-lines", HTMLUListElement),
  chatForm: byId("chat-form", HTMLFormElement),
  chatText: byId("chat-text", HTMLInputElement),
  // The review.
  reviewPanel: block("review-panel"),
  reviewProgress: byId("review-progress", HTMLProgressElement),
  reviewGraph: byId("review-graph", SVGSVGElement),
  reviewSummary: byId("review-summary", HTMLParagraphElement),
  reviewDownload: byId("review-download", HTMLAnchorElement),
  // Learning from one's mistakes.
  learnStart: button("learn-start"),
  learn: byId("learn", HTMLDivElement),
  learnText: byId("learn-text", HTMLParagraphElement),
  learnHint: button("learn-hint"),
  learnSolution: button("learn-solution"),
  learnNext: button("learn-next"),
  learnStop: button("learn-stop"),
  // Starting games and the games list.
  newGamePanel: block("new-game"),
  challengeForm: byId("challenge-form", HTMLFormElement),
  computerChoice: byId("computer-choice", HTMLLabelElement),
  levels: byId("levels", HTMLDivElement),
  presets: byId("presets", HTMLDivElement),
  custom: byId("custom", HTMLDivElement),
  customMinutes: byId("custom-minutes", HTMLInputElement),
  customIncrement: byId("custom-increment", HTMLInputElement),
  fen: byId("fen", HTMLInputElement),
  challenge: button("challenge"),
  challengeMessage: byId("challenge-message", HTMLParagraphElement),
  games: byId("games", HTMLUListElement),
  exhibition: button("exhibition"),
  // The analysis board.
  main: block("main"),
  analysis: block("analysis"),
  analysisBoard: byId("analysis-board", HTMLDivElement),
  analysisPromotion: byId("analysis-promotion", HTMLDivElement),
  analysisStatus: byId("analysis-status", HTMLParagraphElement),
  analysisDepth: byId("analysis-depth", HTMLParagraphElement),
  analysisFirst: button("analysis-first"),
  analysisBack: button("analysis-back"),
  analysisForward: button("analysis-forward"),
  analysisLast: button("analysis-last"),
  analysisFlip: button("analysis-flip"),
  closeAnalysis: button("close-analysis"),
  multipv: byId("multipv", HTMLSelectElement),
  lines: byId("lines", HTMLOListElement),
  tree: byId("tree", HTMLDivElement),
  analysisCopyFen: button("analysis-copy-fen"),
  analysisCopyPgn: button("analysis-copy-pgn"),
  analysisCopied: byId("analysis-copied", HTMLTextAreaElement),
  analysisCopyMessage: byId("analysis-copy-message", HTMLParagraphElement),
  evalWhite: byId("eval-white", HTMLDivElement),
  evalText: byId("eval-text", HTMLSpanElement),
  paste: byId("paste", HTMLTextAreaElement),
  analysePaste: button("analyse-paste"),
  pasteMessage: byId("paste-message", HTMLParagraphElement),
  pasteGames: byId("paste-games", HTMLUListElement),
  // Puzzles.
  puzzleRatingStart: block("puzzle-rating-start"),
  openPuzzles: button("open-puzzles"),
  puzzles: block("puzzles"),
  puzzleBoard: byId("puzzle-board", HTMLDivElement),
  puzzlePromotion: byId("puzzle-promotion", HTMLDivElement),
  puzzleStatus: byId("puzzle-status", HTMLParagraphElement),
  puzzleRating: block("puzzle-rating"),
  puzzleRatingChange: byId("puzzle-rating-change", HTMLSpanElement),
  puzzleInfo: byId("puzzle-info", HTMLParagraphElement),
  puzzleGame: byId("puzzle-game", HTMLAnchorElement),
  puzzleMoves: byId("puzzle-moves", HTMLOListElement),
  puzzleNext: button("puzzle-next"),
  puzzleSolution: button("puzzle-solution"),
  closePuzzles: button("close-puzzles"),
  puzzleFilters: byId("puzzle-filters", HTMLFormElement),
  puzzleTheme: byId("puzzle-theme", HTMLSelectElement),
  puzzleMin: byId("puzzle-min", HTMLInputElement),
  puzzleMax: byId("puzzle-max", HTMLInputElement),
  puzzleCount: byId("puzzle-count", HTMLParagraphElement),
  puzzleList: byId("puzzle-list", HTMLUListElement),
  puzzleMessage: byId("puzzle-message", HTMLParagraphElement),
  // The page's own messages.
  notice: byId("notice", HTMLParagraphElement),
  offline: byId("offline", HTMLParagraphElement),
};
