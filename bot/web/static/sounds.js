// @ts-check
// The sounds of a move, a capture, a check and the end of a game (made by bench/page/make_sounds.py),
// and the mute switch, remembered by the browser.
import { el } from "./elements.js";

const MUTE_KEY = "knightmate-muted";
/** @type {Map<string, HTMLAudioElement>} */
const cache = new Map();

const muted = () => localStorage.getItem(MUTE_KEY) === "1";

/** @param {"move" | "capture" | "check" | "end"} name */
export function play(name) {
  if (muted()) return;
  const audio = cache.get(name) || new Audio(`/static/sounds/${name}.wav`);
  cache.set(name, audio);
  audio.currentTime = 0;
  audio.play().catch(() => {}); // a browser may refuse sound before the person has clicked
  document.body.dataset.lastSound = name;
}

/**
 * The sound a move's SAN calls for: a check over a capture over a plain move.
 * @param {string} san
 */
export function forSan(san) {
  play(san.includes("+") || san.includes("#") ? "check" : san.includes("x") ? "capture" : "move");
}

function renderSwitch() {
  const button = el.mute;
  button.setAttribute("aria-pressed", String(muted()));
  button.textContent = muted() ? "Sound off" : "Sound on";
}

export function wireSwitch() {
  renderSwitch();
  el.mute.addEventListener("click", () => {
    localStorage.setItem(MUTE_KEY, muted() ? "0" : "1");
    renderSwitch();
  });
}
