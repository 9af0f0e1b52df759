"""Takes the pictures of ``knightmate-bot play``'s page: a real game against the bot, in progress.

Starts ``play`` (the real bot) and headless Chromium, and plays White through the page by clicks,
each move the built-in engine's choice (so the position is one a game reaches, not a test's),
for ``--moves`` moves; then draws an arrow on the board as a person would (right-button drag) and
saves the page at desktop size (``--out``, the manual's docs/play.png) and at a 390 px phone's
width (beside it, ``-phone`` added).

    python -m bench.page.page_screenshots --out docs/play.png
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import chess
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.actions.mouse_button import MouseButton

from bench.page import browser_page
from bench.page.browser_page import Page
from bot.engine import Engine, Limits  # type: ignore[attr-defined,unused-ignore]
from variant import KnightmateBoard


def best_move(engine: Engine, board: KnightmateBoard, movetime_ms: int) -> chess.Move:
    """The engine's move in *board*, where the page waits for one (so a legal move exists)."""
    move = engine.search(board, Limits(movetime_ms=movetime_ms)).move
    if move is None:
        raise RuntimeError(f"the page waits for a move in a position without one: {board.fen()}")
    return move


def play_moves(page: Page, engine: Engine, moves: int, movetime_ms: int) -> None:
    for _ in range(moves):
        page.wait_your_move()
        board = KnightmateBoard(page.fen())
        uci = board.uci(best_move(engine, board, movetime_ms))
        page.move_by_clicks(uci[:2], uci[2:4])
        if len(uci) == 5:
            page.find(f'#promotion button[data-promotion="{uci[4]}"]').click()
        if page.find("#status").get_attribute("data-result") is not None:
            return


def draw_arrow(page: Page, origin: str, target: str) -> None:
    """A right-button drag from *origin* to *target*: chessgroundx draws an arrow."""
    board = page.board()
    (x1, y1), (x2, y2) = page.offset(origin), page.offset(target)
    actions = ActionBuilder(page.driver)
    pointer: Any = actions.pointer_action  # Selenium leaves most of its pointer actions untyped
    pointer.move_to(board, x1, y1).pointer_down(MouseButton.RIGHT).pause(0.1) \
        .move_to(board, (x1 + x2) // 2, (y1 + y2) // 2).pause(0.1).move_to(board, x2, y2).pause(0.1) \
        .pointer_up(MouseButton.RIGHT)
    actions.perform()
    page.wait.until(lambda d: page.read('return document.querySelector("#board").kmBoard.state.drawable.shapes.length'))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("docs/play.png"))
    parser.add_argument("--moves", type=int, default=11, help="White's moves before the picture (default: 11)")
    parser.add_argument("--movetime-ms", type=int, default=300)
    args = parser.parse_args(argv)
    problem = browser_page.missing()
    if problem is not None:
        print(f"page_screenshots: {problem}", file=sys.stderr)
        return 2
    with browser_page.page_of_play(move_time_ms=400, move_overhead_ms=50, window_size=(1280, 800)) as page:
        driver = page.driver
        page.start_game(color="white", preset="10+5")
        engine = Engine(hash_mb=16)
        play_moves(page, engine, args.moves, args.movetime_ms)
        page.wait_your_move()
        idea = best_move(engine, KnightmateBoard(page.fen()), args.movetime_ms).uci()
        draw_arrow(page, idea[:2], idea[2:4])
        driver.execute_script("window.scrollTo(0, 0)")
        page.screenshot(args.out.parent, args.out.stem)
        driver.set_window_size(390, 844)
        page.wait.until(lambda d: d.execute_script("return window.innerWidth") <= 390)
        driver.execute_script("window.scrollTo(0, 0)")
        phone = page.screenshot(args.out.parent, f"{args.out.stem}-phone")
    print(f"wrote {args.out} and {phone}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
