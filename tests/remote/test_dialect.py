"""The server dialect is one object: nothing outside :mod:`bot.dialect` compares dialect names, and the
bot's dialects agree with the sandbox's twins, which imitate the servers they describe."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot import dialect as bot_dialect
from bot.dialect import DIALECTS, LICHESS, PYCHESS, resolve
from bot.sandbox import imitations as sandbox_imitations
from bot.sandbox.hosted import Account, HostedChallenge, HostedGame
from bot.sandbox.imitations import IMITATIONS

CUSTOM_FEN = "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1"

BOT = Path(bot_dialect.__file__).parent    # bot/: every module of the bot is searched
#: The modules that may compare dialect names: the bot's dialects and the sandbox's.
DIALECT_MODULES = {Path(bot_dialect.__file__), Path(sandbox_imitations.__file__)}

_NAME = r"""["'](?:lichess|pychess|auto)["']"""
#: A dialect name compared as a string: ``== "pychess"``, ``"lichess" !=``, ``in ("lichess", ...)``,
#: ``case "pychess"``, or a dialect object tested for identity (``is PYCHESS``, ``== LICHESS``).
COMPARISON = re.compile(
    rf"""(?:[=!]=|\bis(?:\s+not)?)\s*{_NAME}"""
    rf"""|{_NAME}\s*(?:[=!]=|\bin\b|\bnot\s+in\b)"""
    rf"""|\bin\s*[(\[{{][^)\]}}]*{_NAME}"""
    rf"""|\bcase\s+{_NAME}"""
    r"""|(?:[=!]=|\bis(?:\s+not)?)\s*(?:LICHESS|PYCHESS)\b""")


def dialect_comparisons(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if COMPARISON.search(line)]


def test_the_pattern_finds_the_comparisons_it_is_meant_to_find() -> None:
    """The grep below can fail: each way of comparing a dialect name is caught, other code is not."""
    caught = ['if self.client.dialect == "lichess" and x:', "if dialect != 'pychess':",
              'pychess = name in ("pychess", "p")', 'if "lichess" == name:', 'case "pychess":',
              "if dialect is PYCHESS:", "scale = 1000 if dialect == PYCHESS else 1"]
    left = ['offer = self.client.dialect.draw_offers and game.wants_draw_offer()',
            'demo.add_argument("--dialect", choices=("lichess", "pychess"), default="lichess")',
            'url: str = "https://www.pychess.org"']
    assert dialect_comparisons("\n".join(caught)) == caught
    assert dialect_comparisons("\n".join(left)) == []


def test_no_module_outside_the_dialect_modules_compares_dialect_names() -> None:
    found = {str(path.relative_to(BOT)): lines for path in sorted(BOT.rglob("*.py"))
             if path not in DIALECT_MODULES and (lines := dialect_comparisons(path.read_text(encoding="utf-8")))}
    assert found == {}


@pytest.mark.parametrize("name", sorted(DIALECTS))
def test_each_bot_dialect_has_a_sandbox_twin_that_behaves_as_its_flags_say(name: str) -> None:
    ours, twin = DIALECTS[name], IMITATIONS[name]()
    assert twin.name == ours.name
    assert ours.delivers_chat == twin.chat_reaches_bots
    assert ours.draw_offers == twin.lichess_extras
    assert ours.resignation_ends_stream == twin.resignation_ends_stream
    white, black = Account("W", "t1", True), Account("B", "t2", True)
    challenge = HostedChallenge("c1", white, black, 60, 0, None, False, "white", "white", "knightmate", CUSTOM_FEN)
    assert ours.initial_fen_in_challenge == ("initialFen" in twin.challenge(challenge))
    game = HostedGame("g1", challenge, white, black, now=100.0)
    assert ours.round_socket == (twin.round_socket(game, 100.0) is not None)
    required = {twin.required_stream_header} if twin.required_stream_header else set()
    assert {header for header, _ in ours.headers} == required


def test_auto_takes_pychess_for_pychess_hosts_only_and_a_name_wins_over_the_host() -> None:
    assert resolve("auto", "https://www.pychess.org") is PYCHESS
    assert resolve("auto", "https://pychess.org") is PYCHESS
    assert resolve("auto", "https://notpychess.org") is LICHESS
    assert resolve("auto", "http://127.0.0.1:8080") is LICHESS
    assert resolve("pychess", "http://127.0.0.1:8080") is PYCHESS
    with pytest.raises(KeyError):
        resolve("fics", "https://www.freechess.org")
