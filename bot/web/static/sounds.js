// The sounds of a move, a capture, a check and the end of a game (made by bench/page/make_sounds.py),
// and the mute switch, remembered by the browser.
import { $ } from "./page.js";

const MUTE_KEY = "knightmate-muted";
const cache = new Map();

const muted = () => localStorage.getItem(MUTE_KEY) === "1";

export function play(name) {
  if (muted()) return;
  if (!cache.has(name)) cache.set(name, new Audio(`/static/sounds/${name}.wav`));
  const audio = cache.get(name);
  audio.currentTime = 0;
  audio.play().catch(() => {}); // a browser may refuse sound before the person has clicked
  document.body.dataset.lastSound = name;
}

// The sound a move's SAN calls for: a check over a capture over a plain move.
export function forSan(san) {
  play(san.includes("+") || san.includes("#") ? "check" : san.includes("x") ? "capture" : "move");
}

function renderSwitch() {
  const button = $("mute");
  button.setAttribute("aria-pressed", String(muted()));
  button.textContent = muted() ? "Sound off" : "Sound on";
}

export function wireSwitch() {
  renderSwitch();
  $("mute").addEventListener("click", () => {
    localStorage.setItem(MUTE_KEY, muted() ? "0" : "1");
    renderSwitch();
  });
}
