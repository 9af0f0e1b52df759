"""How fast ``knightmate-bot play``'s page answers, measured in the browser over whole games.

Starts ``play`` (the real bot, its move time capped) and headless Chromium, then plays games as a
person would, by clicks: each move a random piece of ours that has moves, then one of its marked
targets (promotions take the picker's first piece), until the game ends (or, past --max-plies,
resigns). The page keeps its own marks (``window.kmMetrics``), each taken once the frame that
shows the change is painted (a task posted from ``requestAnimationFrame``):

* click -> move shown: from the click's event time on the target square to the frame showing the
  move (the position after it comes with the legal moves, so no round trip is needed to draw it);
* click -> move confirmed: until the server's own state with the move is drawn (a real round trip);
* bot's move posted -> shown: from the instant the bot's move request reached the sandbox (the
  server's stamp of its request line, ``time.time()``) to the frame that shows it (``Date.now()``
  in the page: the same system clock, checked below): what the page adds beyond the bot's thinking;
* the engine's report -> shown: on the analysis board, from the server's stamp of an engine report
  (``time.time()``, as above) to the frame that shows its lines;
* page load: navigation start to the load event, and to the first drawn board.

The baseline, measured in the same run and page: a plain ``fetch`` of a small API answer (a
loopback round trip), so the figures can be read against what the machine does at the moment;
and the load average before and after, since the machine is shared. The clock check compares the
page's ``Date.now()`` with this process's ``time.time()`` (the sandbox runs in this process).

    python -m bench.page.web_latency --games 2
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from typing import Any

from bench.page import browser_page
from bench.page.browser_page import Page

BASELINE_SCRIPT = """
const done = arguments[arguments.length - 1];
(async () => {
  const times = [];
  for (let i = 0; i < 50; i++) {
    const start = performance.now();
    await (await fetch("/api/account", {credentials: "same-origin"})).json();
    times.push(performance.now() - start);
  }
  done(times);
})();
"""


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def play_one_game(page: Page, rng: random.Random, max_plies: int) -> str:
    page.start_game(color="white", preset="5+3")
    while True:
        page.wait.until(lambda d: page.text("#status") == "Your move"
                        or page.find("#status").get_attribute("data-result") is not None)
        if page.find("#status").get_attribute("data-result") is not None:
            return page.text("#status")
        if len(page.sans()) >= max_plies:
            page.find("#resign").click()
            page.find("#resign").click()
            return page.wait_over()
        make_a_move(page, rng)


def make_a_move(page: Page, rng: random.Random) -> None:
    plies = len(page.sans())
    ours = page.pieces_of("white")
    for square in rng.sample(list(ours), len(ours)):
        page.select(square)  # its targets are drawn with the selection, a frame after the click
        targets = sorted(page.targets())
        if targets:
            page.click(rng.choice(targets))
            if page.find("#promotion").is_displayed():
                page.find("#promotion button").click()
            page.wait_plies(plies + 1)
            return
    raise RuntimeError("no piece of ours has a legal move, yet the page says it is our move")


def analyse_a_position(page: Page, lines: int) -> None:
    """Opens the analysis board on the start position and waits for *lines* of the engine's reports."""
    page.find("#new").click()
    page.find("#paste").clear()
    page.find("#paste").send_keys("rmbqkbmr/pppppppp/8/8/8/8/PPPPPPPP/RMBQKBMR w KQkq - 0 1")
    page.find("#analyse-paste").click()
    page.wait.until(lambda d: len(d.execute_script("return window.kmMetrics.analysisLineMs")) >= lines)
    page.find("#close-analysis").click()


def clock_offset_ms(driver: Any, tries: int = 20) -> tuple[float, float]:
    """The page's ``Date.now()`` minus this process's ``time.time()``, in ms, and how far off that
    may be (half the quickest round trip, plus Date.now()'s whole milliseconds)."""
    best: tuple[float, float] | None = None
    for _ in range(tries):
        before_ms = time.time() * 1000
        browser_ms = float(driver.execute_script("return Date.now()"))
        after_ms = time.time() * 1000
        error_ms = (after_ms - before_ms) / 2 + 1
        if best is None or error_ms < best[1]:
            best = (browser_ms - (before_ms + after_ms) / 2, error_ms)
    assert best is not None
    return best


def load_average() -> str:
    return " ".join(f"{load:.2f}" for load in os.getloadavg())


def line(name: str, values: list[float], baseline_ms: float) -> str:
    p50, p99 = percentile(values, 0.5), percentile(values, 0.99)
    return (f"{name:<30} n={len(values):<4} p50 {p50:7.1f} ms  p99 {p99:7.1f} ms  "
            f"(p50 = {p50 / baseline_ms:5.1f} x fetch round trip)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2, help="games to play (default: 2)")
    parser.add_argument("--move-time-ms", type=int, default=100, help="the bot's time per move (default: 100)")
    parser.add_argument("--max-plies", type=int, default=160, help="resign a game this long (default: 160)")
    parser.add_argument("--analysis-lines", type=int, default=8,
                        help="the engine's reports to wait for on the analysis board (default: 8)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    problem = browser_page.missing()
    if problem is not None:
        print(f"web_latency: {problem}", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    load_before = load_average()
    with browser_page.page_of_play(move_time_ms=args.move_time_ms, move_overhead_ms=20) as page:
        driver = page.driver
        results = [play_one_game(page, rng, args.max_plies) for _ in range(args.games)]
        analyse_a_position(page, args.analysis_lines)
        metrics: dict[str, Any] = driver.execute_script("return window.kmMetrics")
        baseline = driver.execute_async_script(BASELINE_SCRIPT)
        offset_ms, offset_error_ms = clock_offset_ms(driver)
        driver.refresh()  # the last game's page, as a reload shows it
        page.wait.until(lambda d: d.execute_script("return window.kmMetrics.gameShownMs !== null"))
        load = driver.execute_script(
            "const n = performance.getEntriesByType('navigation')[0];"
            " return [n.loadEventEnd - n.startTime, window.kmMetrics.boardReadyMs, window.kmMetrics.gameShownMs];")
    baseline_ms = statistics.median(baseline)
    print(f"{args.games} games by clicks against the bot ({args.move_time_ms} ms a move): {'; '.join(results)}")
    print(f"load average (1, 5, 15 min) before {load_before}, after {load_average()}; "
          f"clocks: page - server {offset_ms:+.1f} ms (within {offset_error_ms:.1f} ms)")
    print(f"{'baseline: fetch round trip':<30} n={len(baseline):<4} p50 {baseline_ms:7.1f} ms  "
          f"p99 {percentile(baseline, 0.99):7.1f} ms")
    print(line("click -> move shown", metrics["clickToShown"], baseline_ms))
    print(line("click -> move confirmed", metrics["clickToConfirmed"], baseline_ms))
    print(line("bot's move posted -> shown", metrics["botMoveToShown"], baseline_ms))
    print(line("engine's report -> shown", metrics["analysisLineMs"], baseline_ms))
    print(f"{'page load (a game page)':<30} load event {load[0]:.0f} ms, board drawn {load[1]:.0f} ms, "
          f"game shown {load[2]:.0f} ms after navigation start")
    return 0


if __name__ == "__main__":
    sys.exit(main())
