// @ts-check
// The page's only link to the server: JSON requests and the ndjson streams (games list, one game),
// and the banner that says when the server is gone. A broken stream is taken up again quietly,
// every RETRY_MS, until the server answers; the banner shows meanwhile and goes when it does.
// The shapes of what the server sends (bot/sandbox/human.py, bot/web/) are declared here.
import { el } from "./elements.js";
import { showNotice } from "./page.js";

/**
 * @typedef {"white" | "black"} Color
 * @typedef {{ uci: string, san: string, fen: string }} LegalMove  a move and the position after it
 * @typedef {LegalMove & { check: string | null }} Ply  a move played; check: the royal square in check
 * @typedef {{ level: number, elo: number, label: string, username: string }} Level  the computer's
 * @typedef {{ name: string, title: string | null, rating: number | null }} Player
 * @typedef {{ username: string, room: string, text: string }} ChatLine
 *
 * @typedef {object} Account  GET /api/account: the person, the bot and what the server offers
 * @property {string} bot
 * @property {string | null} opponent  the bot's sparring partner, if any
 * @property {boolean} drawOffers
 * @property {string} startingFen
 * @property {Level[]} levels
 *
 * @typedef {object} GameState  a line of a game's stream; a state when `type` is gameFull or gameState
 * @property {string} type
 * @property {string} id
 * @property {Player} white
 * @property {Player} black
 * @property {Color | null} you  the person's colour, null when watching
 * @property {{ initial: number, increment: number } | null} clock  in ms
 * @property {string} initialFen
 * @property {Ply[]} plies
 * @property {LegalMove[] | null} legalMoves  the person's moves, null until worked out
 * @property {Color} turn
 * @property {string | null} check
 * @property {number} wtime  ms
 * @property {number} btime  ms
 * @property {boolean} clockRunning
 * @property {number | null} lastMoveAtMs  the server's wall clock
 * @property {number | null} startByMs  the server's wall clock
 * @property {string} status
 * @property {Color | null} winner
 * @property {Color | null} drawOffer
 * @property {boolean} abortable
 * @property {ChatLine[]} chat
 *
 * @typedef {object} GameSummary  one game of the games list (/api/stream/event)
 * @property {string} id
 * @property {string} white
 * @property {string} black
 * @property {string} clock
 * @property {number} plies
 * @property {string} status
 * @property {boolean} over
 * @property {Color | null} winner
 *
 * @typedef {object} AnalysedPosition  GET /api/analysis/position
 * @property {Color} turn
 * @property {string | null} check
 * @property {LegalMove[]} legalMoves
 * @property {{ result: string, termination: string } | null} outcome
 *
 * @typedef {object} TreeMove  a move of a pasted game's tree (POST /api/analysis/import)
 * @property {number} parent  the index of the move it follows, -1 for the start
 * @property {string} comment  PGN's comment after it
 * @property {string} startingComment  PGN's comment before it, where it starts a variation
 * @property {number[]} nags  PGN's NAGs
 *
 * @typedef {object} AnalysisGame  a game of a paste: its tags and tree, or why it cannot be read
 * @property {Record<string, string>} headers
 * @property {string} initialFen
 * @property {string} comment  PGN's comment before the first move
 * @property {(LegalMove & TreeMove & { check: string | null })[]} moves  each after the one it follows
 * @property {string} [error]  set (and the rest not) for a game of several that cannot be read
 *
 * @typedef {{ cp: number | null, mate: number | null, winPercent: number }} Score  from White's
 *   side; winPercent: White's share of the winning chances, 0..100 (bot/analysis/judgement.py)
 */

const RETRY_MS = 1000;
const broken = new Set(); // the streams that are down now, by path

/**
 * @param {string} path
 * @param {boolean} connected
 */
function setConnected(path, connected) {
  if (connected) broken.delete(path); else broken.add(path);
  el.offline.hidden = broken.size === 0;
}

export class ServerGone extends Error {}

/**
 * The JSON answer to a GET of *path*, or to a POST of *form* to it.
 * @param {string} path
 * @param {Record<string, string | number>} [form]
 * @returns {Promise<any>}
 * @throws {ServerGone} when the server does not answer; Error with its message when it refuses
 */
export async function api(path, form) {
  /** @type {RequestInit} */
  const options = { credentials: "same-origin" };
  if (form !== undefined) {
    options.method = "POST";
    options.headers = { "X-Knightmate-Play": "1", "Content-Type": "application/x-www-form-urlencoded" };
    const body = new URLSearchParams();
    for (const [key, value] of Object.entries(form)) body.append(key, String(value));
    options.body = body.toString();
  }
  let response;
  try {
    response = await fetch(path, options);
  } catch (error) {
    throw new ServerGone("The server does not answer: is knightmate-bot play still running?");
  }
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(body.error || `${response.status} ${response.statusText}`);
  return body;
}

/**
 * Hands each JSON line of a streamed answer to onLine, until the answer ends.
 * @param {Response} response
 * @param {(line: any) => void} onLine
 */
export async function readLines(response, onLine) {
  if (!response.body) return;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let newline;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const text = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (text) onLine(JSON.parse(text));
    }
  }
}

/**
 * Reads an ndjson stream until `signal` aborts it, taking it up again after a break (the server
 * stopped, the network went), but not for something the server says does not exist.
 * @param {string} path
 * @param {(line: any) => void} onLine
 * @param {AbortSignal} signal
 */
export async function follow(path, onLine, signal) {
  while (!signal.aborted) {
    try {
      const response = await fetch(path, { credentials: "same-origin", signal });
      if (response.status === 404) {
        setConnected(path, true);
        showNotice((await response.json().catch(() => ({}))).error || "Not found");
        return;
      }
      if (!response.ok) throw new Error(`${response.status}`);
      setConnected(path, true);
      await readLines(response, onLine);
    } catch (error) {
      if (signal.aborted) break;
    }
    if (signal.aborted) break;
    setConnected(path, false);
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
  setConnected(path, true); // a stream let go of is no longer missed
}
