// @ts-check
// The view state of the game shown, in one place: which game, the server's last state of it, the
// ply looked at and the move on its way. One writer, game.js; lobby.js, review.js and play.js read
// it. What a module keeps for itself (the analysis board's tree, the review, the lobby's choices)
// stays in that module's own one object.
/** @import { Color, GameState, LegalMove } from "./network.js" */
/** @import { Arrow, Position } from "./board.js" */

/**
 * @typedef {object} PendingMove  the person's move, shown before the server confirms it
 * @property {string} uci
 * @property {string} fen  the position after it
 * @property {number} clickedAt  performance.now() of the click or drop that made it
 * @property {number} ply  the ply it will be
 *
 * @typedef {object} BoardOverride  a position an overlay shows on the game's board in place of the
 *   game's (learning from one's mistakes), and the moves it takes there
 * @property {Position} position
 * @property {Color | null} movable
 * @property {LegalMove[]} legalMoves
 * @property {(move: LegalMove) => void} onMove
 *
 * @typedef {object} GameOverlay  what draws over the game view (the review), handed to game.js by
 *   play.js: the game view asks it at each render, and resets it when another game opens
 * @property {(ply: number) => Arrow[]} decorate  marks the page for the ply shown; the board's arrows
 * @property {(ply: number) => BoardOverride | null} board  a position of its own at the ply shown, if any
 * @property {() => void} reset
 */

export const view = {
  /** @type {string | null} */ gameId: null,
  /** @type {GameState | null} */ state: null,
  receivedAt: 0, // performance.now() when the state came
  ply: 0, // the ply looked at: state.plies.length is now
  flipped: false,
  /** @type {PendingMove | null} */ pending: null,
  /** @type {AbortController | null} */ stream: null,
  /** @type {number | null} */ drawDeclinedAt: null, // the ply at which the bot declined our offer
};
