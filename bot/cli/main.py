"""The ``knightmate-bot`` command line: argparse subcommands over the package's parts.

Each subcommand parses its arguments here and hands over to the module that does the work; no
game, engine or network logic lives in this file. Errors the user can fix are one line on stderr
and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

import chess

from bot.cli.exit_codes import EXIT_USAGE, GAMES_EXIT_HELP
from bot.dialect import DIALECTS, LICHESS
from variant import KnightmateBoard

#: ``analyse``'s search depth per position when none is asked for: about 20 s for a 60-ply game here
#: (depth 10 took 2-4 minutes for the same games on the shared machine).
DEFAULT_ANALYSIS_DEPTH = 8
#: ``puzzles``' depth for each candidate and each move of its solution, with two lines.
DEFAULT_PUZZLE_CHECK_DEPTH = 12


def _board(args: argparse.Namespace) -> int:
    """Prints a position and its legal moves in SAN."""
    try:
        board = KnightmateBoard(args.fen) if args.fen else KnightmateBoard()
    except ValueError as error:
        print(f"knightmate-bot board: {error}", file=sys.stderr)
        return EXIT_USAGE
    print(board)
    print()
    print(f"FEN: {board.fen()}")
    outcome = board.outcome()
    if outcome is not None:
        print(f"Game over: {outcome.result()} ({outcome.termination.name.lower()})")
    side = "White" if board.turn == chess.WHITE else "Black"
    moves = " ".join(sorted(board.san(move) for move in board.legal_moves))
    print(f"{side} to move, {board.legal_moves.count()} legal moves: {moves}")
    return 0


def _uci(args: argparse.Namespace) -> int:
    """Speaks UCI on stdin/stdout until ``quit`` (imported here: only this command needs it)."""
    from bot.engine import uci

    return uci.run(sys.stdin, sys.stdout)


def _bot(args: argparse.Namespace) -> int:
    """``run``, ``upgrade``, ``health``, ``stop-after-games`` and ``demo``; config and start-up problems
    are one line, exit 2."""
    from bot.cli import operations

    try:
        if args.command == "demo":
            from bot.cli.demo import main as play_demo  # the sandbox is loaded only for the demo

            return play_demo(dialect=args.dialect, engine_command=args.engine, status_port=args.status_port)
        command = {"run": operations.run, "upgrade": operations.upgrade, "health": operations.health,
                   "stop-after-games": operations.stop_after_games}[args.command]
        return command(args.config)
    except (operations.ConfigError, operations.StartupError) as error:
        print(f"knightmate-bot {args.command}: {error}", file=sys.stderr)
        return EXIT_USAGE


def _sandbox(args: argparse.Namespace) -> int:
    """Runs a local Bot API server for a bot to play against, until Ctrl-C."""
    import logging

    from bot.cli.stopping import event_on_signals
    from bot.sandbox.standalone import serve

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    try:
        return serve(dialect=args.dialect, host=args.host, port=args.port, username=args.username,
                     opponent=args.opponent, strategy=args.strategy, limit_s=args.limit,
                     increment_s=args.increment, out=sys.stdout, stop=event_on_signals())
    except (ValueError, OSError) as error:
        print(f"knightmate-bot sandbox: {error}", file=sys.stderr)
        return EXIT_USAGE


def _play(args: argparse.Namespace) -> int:
    """Plays the bot on a local web page until Ctrl-C."""
    from bot.cli import operations
    from bot.cli.local_page import PlayError, play

    try:
        return play(config_path=args.config, dialect=args.dialect, host=args.host, port=args.port,
                    open_browser=args.open, out=sys.stdout)
    except (operations.ConfigError, operations.StartupError, PlayError, OSError) as error:
        print(f"knightmate-bot play: {error}", file=sys.stderr)
        return EXIT_USAGE


def _analyse(args: argparse.Namespace) -> int:
    """Analyses PGN games and writes them annotated; bad input and a bad engine are one line, exit 2."""
    import chess.engine

    from bot.analysis import AnalysisEngineError
    from bot.analysis.pgn_input import PgnInputError
    from bot.cli.analyse import AnalyseError, run

    limit = chess.engine.Limit(time=args.movetime_ms / 1000) if args.movetime_ms is not None \
        else chess.engine.Limit(depth=args.depth)
    try:
        return run(args.games, limit, args.engine, args.output, sys.stdout, sys.stderr, slope=args.slope)
    except (AnalyseError, PgnInputError, AnalysisEngineError) as error:
        print(f"knightmate-bot analyse: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("knightmate-bot analyse: interrupted; the games finished so far are written", file=sys.stderr)
        return 130


def _stats(args: argparse.Namespace) -> int:
    """Prints how the bot fared in PGN games; bad input is one line, exit 2."""
    from bot.cli.stats import StatsError, run

    try:
        return run(args.games, args.player, args.format, args.opening_plies, sys.stdout)
    except StatsError as error:
        print(f"knightmate-bot stats: {error}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader left (`| head`): the rest goes nowhere, and so does the flush at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _puzzles(args: argparse.Namespace) -> int:
    """Mines puzzles from PGN games into Lichess's puzzle CSV; bad input and a bad engine are one line, exit 2."""
    import chess.engine

    from bot.analysis import AnalysisEngineError
    from bot.analysis.pgn_input import PgnInputError
    from bot.analysis.puzzle_mining import MiningLimits
    from bot.cli.puzzles import PuzzlesError, run

    limits = MiningLimits(scan=chess.engine.Limit(depth=args.depth), check=chess.engine.Limit(depth=args.check_depth))
    try:
        return run(args.games, limits, args.engine, args.check_with, args.output, sys.stdout, sys.stderr)
    except (PuzzlesError, PgnInputError, AnalysisEngineError) as error:
        print(f"knightmate-bot puzzles: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("knightmate-bot puzzles: interrupted; the puzzles of the games mined so far are written", file=sys.stderr)
        return 130


def _add_games_argument(command: argparse.ArgumentParser) -> None:
    """The PGN inputs of ``analyse``, ``stats`` and ``puzzles``, read alike (:mod:`bot.analysis.pgn_input`)."""
    command.add_argument("games", nargs="+", type=Path, metavar="GAMES",
                         help="PGN files, or directories of them (such as the bot's game.pgn_dir)")


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _status_port(text: str) -> int:
    """``--status-port PORT`` checked as ``bot.status_port`` is."""
    from bot.config import ConfigError, parse_settings

    try:
        port = parse_settings({"bot": {"status_port": int(text)}}).bot.status_port
    except (ValueError, ConfigError) as error:
        raise argparse.ArgumentTypeError(str(error) if isinstance(error, ConfigError)
                                         else f"not a port number: {text!r}") from None
    assert port is not None
    return port


def _command_line(text: str) -> tuple[str, ...]:
    """``--engine CMD`` read as ``engine.command`` reads it."""
    from bot.config import ConfigError, parse_settings

    try:
        command = parse_settings({"engine": {"command": text}}).engine.command
    except ConfigError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix("engine.command: ")) from None
    assert command is not None
    return command


def _slope(text: str) -> float:
    """``--slope S`` read as ``engine.analysis_slope`` reads it."""
    from bot.config import ConfigError, parse_settings

    try:
        slope = parse_settings({"engine": {"analysis_slope": float(text)}}).engine.analysis_slope
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    except ConfigError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix("engine.analysis_slope: ")) from None
    assert slope is not None
    return slope
class _VersionAction(argparse.Action):
    """``--version``: the version and which engine build runs, as UCI's ``id name`` says them.

    The engine is imported only when this is asked for, not for every command.
    """

    def __init__(self, option_strings: Sequence[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[object] | None, option_string: str | None = None) -> None:
        from bot.engine.uci import ENGINE_NAME

        print(ENGINE_NAME)
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="knightmate-bot",
        description="Knightmate rules, engine and online bot.",
    )
    parser.add_argument("--version", action=_VersionAction, help="show the version and engine build, then exit")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    board = commands.add_parser("board", help="print a position and its legal moves")
    board.add_argument("fen", nargs="?", help="a Knightmate FEN (default: the start position)")
    board.set_defaults(handler=_board)

    uci = commands.add_parser("uci", help="run the engine as a UCI engine on stdin/stdout")
    uci.set_defaults(handler=_uci)

    for name, text in (("run", "play online: accept challenges and play them until SIGINT/SIGTERM"),
                       ("upgrade", "turn the token's account into a BOT account (irreversible)"),
                       ("health", "exit 0 if the running bot's event stream spoke lately, else 1"),
                       ("stop-after-games", "make the running bot decline new challenges, finish its games "
                                            "and exit (as SIGUSR1 does)")):
        command = commands.add_parser(name, help=text)
        command.add_argument("--config", metavar="PATH", help="config file (default: ./config.yml if present)")
        command.set_defaults(handler=_bot)
    demo = commands.add_parser("demo", help="play one quick game against a local sandbox and print it")
    _add_dialect(demo, "which server dialect the sandbox speaks")
    demo.add_argument("--engine", metavar="CMD", type=_command_line, default=None,
                      help="play with this UCI engine, e.g. /usr/games/fairy-stockfish (default: the built-in one)")
    demo.add_argument("--status-port", metavar="PORT", type=_status_port, default=None,
                      help="serve the bot's live status page on 127.0.0.1:PORT while the game lasts (bot.status_port)")
    demo.set_defaults(handler=_bot)

    sandbox = commands.add_parser("sandbox", help="run a local Lichess-style server to point a bot at")
    _add_dialect(sandbox, "which server dialect to speak")
    sandbox.add_argument("--host", default="127.0.0.1", help="loopback address to bind (default: 127.0.0.1)")
    sandbox.add_argument("--port", type=int, default=8080, help="port (default: 8080; 0 = any free port)")
    sandbox.add_argument("--username", default="sandbox-bot", help="the bot's account (default: sandbox-bot)")
    sandbox.add_argument("--opponent", default="randy", help="the opponent's account (default: randy)")
    sandbox.add_argument("--strategy", choices=("random", "engine", "idle"), default="random",
                         help="how the opponent plays (default: random)")
    sandbox.add_argument("--limit", type=int, default=180, help="challenge clock limit, seconds (default: 180)")
    sandbox.add_argument("--increment", type=int, default=2, help="challenge increment, seconds (default: 2)")
    sandbox.set_defaults(handler=_sandbox)

    analyse = commands.add_parser("analyse", help="analyse games of PGN files and write them annotated",
                                  description="Analyses each game position by position, marks inaccuracies, "
                                              "mistakes and blunders as Lichess does, and writes the games "
                                              "back as PGN with evaluations, better lines and each side's "
                                              "accuracy. A game that cannot be analysed is named and passed "
                                              "over; the others are analysed.",
                                  epilog=GAMES_EXIT_HELP)
    _add_games_argument(analyse)
    budget = analyse.add_mutually_exclusive_group()
    budget.add_argument("--depth", type=_positive, default=DEFAULT_ANALYSIS_DEPTH,
                        help=f"search each position to this depth (default: {DEFAULT_ANALYSIS_DEPTH})")
    budget.add_argument("--movetime-ms", type=_positive, default=None, metavar="N",
                        help="search each position for N milliseconds instead")
    analyse.add_argument("--engine", metavar="CMD", type=_command_line, default=None,
                         help="analyse with this UCI engine, e.g. /usr/games/fairy-stockfish "
                              "(default: the built-in one)")
    analyse.add_argument("--slope", type=_slope, default=None, metavar="S",
                         help="the slope of the curve from the engine's centipawns to winning chances that "
                              "judges the moves (default: the built-in engine's fitted one, Lichess's "
                              "0.00368208 for any other engine; see the manual, \"Analysis\")")
    analyse.add_argument("-o", "--output", default=None, metavar="OUT",
                         help="write to this file, or into this directory one file per input (default: stdout)")
    analyse.set_defaults(handler=_analyse)

    stats = commands.add_parser("stats", help="how the bot fared in its PGN games: results, rating, clock",
                                description="Results by opponent, by time control and by first moves, a "
                                            "performance rating (rule of 400), think times and the lowest "
                                            "clock (from [%%clk]/[%%emt]), and the games lost on time or "
                                            "left unfinished.")
    _add_games_argument(stats)
    stats.add_argument("--player", default=None,
                       help="whose games these are (default: the name in the most games, the bot's own)")
    stats.add_argument("--format", choices=("table", "csv", "json"), default="table",
                       help="a table for the terminal (default), CSV rows or JSON")
    stats.add_argument("--opening-plies", type=_positive, default=2, metavar="N",
                       help="group games by their first N plies (default: 2)")
    stats.set_defaults(handler=_stats)
    puzzles = commands.add_parser(
        "puzzles", help="mine puzzles from PGN games into Lichess's puzzle CSV",
        description="Finds the moves after which exactly one move wins (material or mate), checked by a "
                    "deeper search with two lines, and follows each line while the winning side's moves stay "
                    "the only good ones. Writes Lichess's puzzle CSV (PuzzleId,FEN,Moves,Rating,RatingDeviation,"
                    "Popularity,NbPlays,Themes,GameUrl,OpeningTags): the FEN before the opponent's move, that "
                    "move then the solution in UCI, themes such as mateIn2, crushing, short, quietMove, and a "
                    "rating estimated from the depth the engine needed and the solution's length. "
                    "Example: knightmate-bot puzzles games/ -o puzzles.csv --check-with /usr/games/fairy-stockfish",
        epilog=GAMES_EXIT_HELP)
    _add_games_argument(puzzles)
    puzzles.add_argument("-o", "--output", type=Path, default=None, metavar="OUT.csv",
                         help="write the CSV to this file (default: stdout)")
    puzzles.add_argument("--depth", type=_positive, default=DEFAULT_ANALYSIS_DEPTH,
                         help=f"search every position of a game to this depth to find candidates "
                              f"(default: {DEFAULT_ANALYSIS_DEPTH})")
    puzzles.add_argument("--check-depth", type=_positive, default=DEFAULT_PUZZLE_CHECK_DEPTH,
                         help="search each candidate and each move of its solution to this depth, two lines "
                              f"(default: {DEFAULT_PUZZLE_CHECK_DEPTH})")
    puzzles.add_argument("--engine", metavar="CMD", type=_command_line, default=None,
                         help="mine with this UCI engine, e.g. /usr/games/fairy-stockfish (default: the built-in one)")
    puzzles.add_argument("--check-with", metavar="CMD", type=_command_line, default=None,
                         help="keep only the puzzles this second UCI engine agrees with at --check-depth: each "
                              "solver move its best, the second best clearly worse")
    puzzles.set_defaults(handler=_puzzles)

    play = commands.add_parser("play", help="play the bot, with its config, on a local web page")
    play.add_argument("--config", metavar="PATH", help="the bot's config file (default: ./config.yml if present)")
    _add_dialect(play, "which server dialect the bot and the sandbox speak")
    play.add_argument("--host", default="127.0.0.1",
                      help="address the page listens on (default: 127.0.0.1; another one prints a warning)")
    play.add_argument("--port", type=int, default=8000, help="the page's port (default: 8000; 0 = any free port)")
    play.add_argument("--open", action="store_true", help="open the page in the default browser")
    play.set_defaults(handler=_play)

    return parser


def _add_dialect(command: argparse.ArgumentParser, text: str) -> None:
    """The ``--dialect`` option of the commands that start a sandbox: any dialect the bot speaks."""
    command.add_argument("--dialect", choices=tuple(DIALECTS), default=LICHESS.name,
                         help=f"{text} (default: {LICHESS.name})")


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.handler(args))

