// @ts-check
// Glicko-2, as Mark Glickman's paper "Example of the Glicko-2 system" (glicko.net, 2022) sets it
// out in eight steps: a rating period's results change a player's rating, deviation and
// volatility. Only the formulas: no page, no storage (puzzle-rating.js keeps the person's rating
// and plays each puzzle as a rating period of one game, as Lichess does). The paper's own worked
// example is checked in the browser (tests/web/test_puzzles_browser.py).

/**
 * @typedef {{ rating: number, deviation: number, volatility: number }} Glicko  on the Glicko
 *   scale (1500 the middle), the deviation (RD) in rating points
 * @typedef {{ rating: number, deviation: number, score: number }} Result  one game against an
 *   opponent of that rating and deviation: score 1 a win, 0.5 a draw, 0 a loss
 */

/** The factor between the Glicko scale and Glicko-2's (step 2). */
const SCALE = 173.7178;
/** The convergence tolerance of step 5's iteration, the paper's. */
const EPSILON = 0.000001;

/** @param {number} phi */
const g = (phi) => 1 / Math.sqrt(1 + (3 * phi * phi) / (Math.PI * Math.PI));

/**
 * The expected score against an opponent at *muJ* with deviation *phiJ* (step 3's E).
 * @param {number} mu
 * @param {number} muJ
 * @param {number} phiJ
 */
const expected = (mu, muJ, phiJ) => 1 / (1 + Math.exp(-g(phiJ) * (mu - muJ)));

/**
 * The new volatility (step 5): the zero of f by the Illinois algorithm, as the paper gives it.
 * @param {number} phi
 * @param {number} sigma
 * @param {number} delta
 * @param {number} v
 * @param {number} tau  the system constant, which bounds how fast the volatility changes
 */
function newVolatility(phi, sigma, delta, v, tau) {
  const a = Math.log(sigma * sigma);
  const f = (/** @type {number} */ x) => {
    const ex = Math.exp(x);
    return (ex * (delta * delta - phi * phi - v - ex)) / (2 * (phi * phi + v + ex) ** 2) - (x - a) / (tau * tau);
  };
  let A = a;
  /** @type {number} */
  let B;
  if (delta * delta > phi * phi + v) {
    B = Math.log(delta * delta - phi * phi - v);
  } else {
    let k = 1;
    while (f(a - k * tau) < 0) k += 1;
    B = a - k * tau;
  }
  let fA = f(A);
  let fB = f(B);
  while (Math.abs(B - A) > EPSILON) {
    const C = A + ((A - B) * fA) / (fB - fA);
    const fC = f(C);
    if (fC * fB <= 0) {
      A = B;
      fA = fB;
    } else {
      fA /= 2;
    }
    B = C;
    fB = fC;
  }
  return Math.exp(A / 2);
}

/**
 * The player's rating after a rating period with *results* (steps 1-8); with none, only the
 * deviation grows (the paper's last paragraph of step 6).
 * @param {Glicko} player
 * @param {Result[]} results
 * @param {number} tau  the system constant (the paper's example: 0.5; Lichess: 0.75)
 * @returns {Glicko}
 */
export function rate(player, results, tau) {
  const mu = (player.rating - 1500) / SCALE;
  const phi = player.deviation / SCALE;
  const sigma = player.volatility;
  if (results.length === 0) {
    return { ...player, deviation: Math.sqrt(phi * phi + sigma * sigma) * SCALE };
  }
  const games = results.map((result) => {
    const muJ = (result.rating - 1500) / SCALE;
    const phiJ = result.deviation / SCALE;
    return { g: g(phiJ), e: expected(mu, muJ, phiJ), score: result.score };
  });
  const v = 1 / games.reduce((sum, game) => sum + game.g * game.g * game.e * (1 - game.e), 0);
  const improvement = games.reduce((sum, game) => sum + game.g * (game.score - game.e), 0);
  const delta = v * improvement;
  const sigmaNew = newVolatility(phi, sigma, delta, v, tau);
  const phiStar = Math.sqrt(phi * phi + sigmaNew * sigmaNew);
  const phiNew = 1 / Math.sqrt(1 / (phiStar * phiStar) + 1 / v);
  const muNew = mu + phiNew * phiNew * improvement;
  return { rating: SCALE * muNew + 1500, deviation: SCALE * phiNew, volatility: sigmaNew };
}
