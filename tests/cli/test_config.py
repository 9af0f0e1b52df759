"""config.yml -> Settings: defaults, validation messages, token handling."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from bot.config import (
    ConfigError,
    Secret,
    ServerSettings,
    Settings,
    known_keys,
    load_settings,
    load_token,
    parse_settings,
)
from bot.dialect import DIALECTS, PYCHESS
from bot.engine.book import DEFAULT_BOOK

ROOT_CONFIG = Path(__file__).resolve().parents[2] / "config.yml"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.yml"
    path.write_text(text, encoding="utf-8")
    return path


def test_shipped_config_yml_states_exactly_the_defaults() -> None:
    assert load_settings(ROOT_CONFIG) == Settings()


def test_shipped_config_yml_documents_every_key_with_a_comment() -> None:
    document = yaml.safe_load(ROOT_CONFIG.read_text(encoding="utf-8"))
    written = [f"{section}.{key}" for section, body in document.items() for key in body]
    assert sorted(written) == sorted(known_keys())
    lines = ROOT_CONFIG.read_text(encoding="utf-8").splitlines()
    for index, line in enumerate(lines):
        stripped = line.strip()
        if line.startswith("  ") and stripped and not stripped.startswith("#"):
            above = lines[index - 1].strip()
            assert above.startswith("#") or lines[index - 2].strip().startswith("#"), line


def test_the_files_the_bot_writes_by_default_are_git_ignored() -> None:
    """A bot run from the repository's root must not leave its state, heartbeat and PGNs as changes."""
    root = ROOT_CONFIG.parent
    if shutil.which("git") is None or not (root / ".git").exists():
        pytest.skip("not a git checkout")
    defaults = Settings()
    paths = [defaults.game.state_file, defaults.bot.heartbeat_file, defaults.bot.stop_file,
             f"{defaults.game.pgn_dir}/g1.pgn", f".{defaults.game.state_file}.tmp123"]
    checked = subprocess.run(["git", "check-ignore", "--no-index", *paths], cwd=root, capture_output=True, text=True,
                             timeout=30)
    assert checked.stdout.split() == paths


def test_empty_file_gives_all_defaults(tmp_path: Path) -> None:
    assert load_settings(write(tmp_path, "")) == Settings()


def test_partial_section_keeps_defaults_for_missing_keys(tmp_path: Path) -> None:
    settings = load_settings(write(tmp_path, "challenge:\n  concurrency: 3\n"))
    assert settings.challenge.concurrency == 3
    assert settings.challenge.variants == ("knightmate",)
    assert settings.game == Settings().game


def test_unknown_key_is_named_in_the_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"unknown key 'challenge.concurency'"):
        load_settings(write(tmp_path, "challenge:\n  concurency: 2\n"))


def test_unknown_section_is_named_in_the_error() -> None:
    with pytest.raises(ConfigError, match=r"unknown key 'engines'"):
        parse_settings({"engines": {}})


@pytest.mark.parametrize(("document", "key"), [
    ({"challenge": {"concurrency": "two"}}, "challenge.concurrency"),
    ({"challenge": {"concurrency": 0}}, "challenge.concurrency"),
    ({"challenge": {"accept_bots": "yes"}}, "challenge.accept_bots"),
    ({"challenge": {"variants": "knightmate"}}, "challenge.variants"),
    ({"challenge": {"modes": ["blitz"]}}, "challenge.modes"),
    ({"challenge": {"max_base": True}}, "challenge.max_base"),
    ({"engine": {"move_overhead_ms": 1.5}}, "engine.move_overhead_ms"),
    ({"engine": {"ponder": "on"}}, "engine.ponder"),
    ({"server": {"dialect": "fics"}}, "server.dialect"),
    ({"bot": {"log_level": "LOUD"}}, "bot.log_level"),
    ({"game": {"pgn_dir": ""}}, "game.pgn_dir"),
    ({"challenge": {"allow_list": "alice"}}, "challenge.allow_list"),
    ({"challenge": {"min_rating": -1}}, "challenge.min_rating"),
    ({"challenge": {"max_rating": 1500.5}}, "challenge.max_rating"),
    ({"challenge": {"min_rating": 2000, "max_rating": 1500}}, "challenge.min_rating"),
    ({"challenge": {"max_games_per_opponent": 0}}, "challenge.max_games_per_opponent"),
    ({"challenge": {"max_games_per_opponent_per_hour": "3"}}, "challenge.max_games_per_opponent_per_hour"),
    ({"challenge": {"max_recent_bot_challenges": 0}}, "challenge.max_recent_bot_challenges"),
    ({"challenge": {"recent_bot_challenge_age_s": 0}}, "challenge.recent_bot_challenge_age_s"),
    ({"challenge": {"sort_by": "rating"}}, "challenge.sort_by"),
    ({"challenge": {"wait_for_slot_s": -1}}, "challenge.wait_for_slot_s"),
    ({"game": {"greeting": "Hi {name}!"}}, "game.greeting"),
    ({"game": {"goodbye": "GG {opponent"}}, "game.goodbye"),
    ({"game": {"goodbye": "{opponent.__class__}"}}, "game.goodbye"),
])


def test_wrong_type_is_one_line_naming_the_key(document: dict[str, object], key: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_settings(document)
    message = str(caught.value)
    assert message.startswith(key + ":")
    assert "\n" not in message


@pytest.mark.parametrize("url", ["pychess.org", "ftp://pychess.org", "https://", 42, "https://lichess.org/api"])
def test_bad_url_is_rejected_naming_server_url(url: object) -> None:
    with pytest.raises(ConfigError, match=r"^server\.url: expected "):
        parse_settings({"server": {"url": url}})


def test_inconsistent_bounds_are_rejected() -> None:
    with pytest.raises(ConfigError, match="challenge.min_base"):
        parse_settings({"challenge": {"min_base": 600, "max_base": 60}})


@pytest.mark.parametrize("move_time_ms", [100, 300])
def test_move_time_not_above_the_overhead_is_rejected(move_time_ms: int) -> None:
    with pytest.raises(ConfigError, match=r"^engine\.max_move_time_ms: must be greater than engine\.move_overhead_ms"):
        parse_settings({"engine": {"max_move_time_ms": move_time_ms, "move_overhead_ms": 300}})
    assert parse_settings({"engine": {"max_move_time_ms": 301, "move_overhead_ms": 300}}).engine.max_move_time_ms == 301


@pytest.mark.parametrize("slope", [0, -0.003, 0.5, "steep", True])
def test_an_analysis_slope_that_is_no_curve_is_rejected(slope: object) -> None:
    with pytest.raises(ConfigError, match=r"^engine\.analysis_slope: expected "):
        parse_settings({"engine": {"analysis_slope": slope}})
    assert parse_settings({"engine": {"analysis_slope": 0.005}}).engine.analysis_slope == 0.005
    assert parse_settings(None).engine.analysis_slope is None  # the engine's own curve


def test_invalid_yaml_names_the_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"not valid YAML at line \d"):
        load_settings(write(tmp_path, "server:\n  url: [unclosed\n"))


def test_missing_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file"):
        load_settings(tmp_path / "absent.yml")


def test_times_in_the_file_are_seconds_and_log_level_is_case_insensitive() -> None:
    settings = parse_settings({"challenge": {"min_base": 30}, "bot": {"log_level": "debug"}})
    assert settings.challenge.min_base == 30.0
    assert settings.bot.log_level == "DEBUG"


@pytest.mark.parametrize(("url", "dialect"), [
    ("https://www.pychess.org", "pychess"),
    ("https://pychess.org", "pychess"),
    ("https://lichess.org", "lichess"),
    ("http://127.0.0.1:8080", "lichess"),
])


def test_auto_dialect_picks_pychess_only_for_a_pychess_host(url: str, dialect: str) -> None:
    assert ServerSettings(url=url).resolved_dialect is DIALECTS[dialect]


def test_explicit_dialect_wins_over_the_host() -> None:
    assert ServerSettings(url="http://127.0.0.1:1", dialect="pychess").resolved_dialect is PYCHESS


def test_token_comes_from_the_environment_first(tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("from-file\n")
    settings = ServerSettings(token_file=str(token_file))
    assert load_token(settings, {"KNIGHTMATE_BOT_TOKEN": "from-env"}).reveal() == "from-env"
    assert load_token(settings, {}).reveal() == "from-file"


def test_missing_token_says_where_to_put_one() -> None:
    with pytest.raises(ConfigError, match="KNIGHTMATE_BOT_TOKEN"):
        load_token(ServerSettings(), {})


def test_unreadable_token_file_does_not_show_any_content(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="server.token_file"):
        load_token(ServerSettings(token_file=str(tmp_path / "nope")), {})


def test_secret_hides_itself_in_repr_str_and_format() -> None:
    secret = Secret("lip_supersecret")
    for text in (repr(secret), str(secret), f"{secret}", repr([secret])):
        assert "supersecret" not in text


@pytest.mark.parametrize(("value", "command"), [
    ("/usr/games/fairy-stockfish", ("/usr/games/fairy-stockfish",)),
    ("knightmate-bot uci", ("knightmate-bot", "uci")),
    ("'/opt/my engine/run' --fast", ("/opt/my engine/run", "--fast")),
    (["/opt/my engine/run", "--fast"], ("/opt/my engine/run", "--fast")),
])


def test_engine_command_is_a_command_line_or_a_list_of_words(value: object, command: tuple[str, ...]) -> None:
    assert parse_settings({"engine": {"command": value}}).engine.command == command


def test_the_built_in_engine_is_weakened_by_the_options_that_weaken_fairy_stockfish() -> None:
    options = {"UCI_LimitStrength": True, "UCI_Elo": 1200}
    assert parse_settings({"engine": {"options": options}}).engine.builtin_elo == 1200
    assert parse_settings({"engine": {"options": {"UCI_Elo": 1200}}}).engine.builtin_elo is None  # not limited
    assert parse_settings({"engine": {"command": "fs", "options": options}}).engine.builtin_elo is None
    assert parse_settings(None).engine.builtin_elo is None


def test_engine_options_keep_their_names_and_values() -> None:
    engine = parse_settings({"engine": {"command": "fs", "options": {"UCI_LimitStrength": True, "UCI_Elo": 1500,
                                                                     "Skill Level": 3}}}).engine
    assert engine.options == {"UCI_LimitStrength": True, "UCI_Elo": 1500, "Skill Level": 3}


@pytest.mark.parametrize(("engine", "message"), [
    ({"command": ""}, r"^engine\.command: expected a command line"),
    ({"command": []}, r"^engine\.command: expected a command line"),
    ({"command": "'unclosed"}, r"^engine\.command: cannot split the command line"),
    ({"command": 7}, r"^engine\.command: expected a command line"),
    ({"command": "fs", "options": ["Hash"]}, r"^engine\.options: expected a mapping"),
    ({"command": "fs", "options": {"Hash": [1]}}, r"^engine\.options: expected true/false, a whole number"),
    ({"command": "fs", "options": {"Hash": 1.5}}, r"^engine\.options: expected true/false, a whole number"),
    ({"command": "fs", "options": {"UCI_Variant": "chess"}}, r"^engine\.options: UCI_Variant is set by the bot"),
    ({"command": "fs", "options": {"multipv": 3}}, r"^engine\.options: multipv is set by the bot"),
    ({"options": {"Hash": 64}}, r"^engine\.options: the built-in engine has no option Hash"),
    ({"options": {"UCI_LimitStrength": True, "UCI_Elo": 100}}, r"^engine\.options: UCI_Elo must be a whole number"),
    ({"options": {"UCI_LimitStrength": "yes"}}, r"^engine\.options: UCI_LimitStrength must be true or false"),
    ({"command": "fs", "start_timeout_s": 0}, r"^engine\.start_timeout_s: expected a number"),
    ({"command": "fs", "hang_margin_s": "3"}, r"^engine\.hang_margin_s: expected a number"),
    ({"threads": 0}, r"^engine\.threads: expected a whole number >= 1, got 0$"),
    ({"threads": 65}, r"^engine\.threads: expected a whole number from 1 to 64, got 65$"),
    ({"threads": "2"}, r"^engine\.threads: expected a whole number, got '2'$"),
    ({"threads": True}, r"^engine\.threads: expected a whole number, got True$"),
])


def test_bad_engine_settings_are_one_line_naming_the_key(engine: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_settings({"engine": engine})


def test_pondering_is_on_by_default_and_can_be_turned_off() -> None:
    assert parse_settings(None).engine.ponder is True
    assert parse_settings({"engine": {"ponder": False}}).engine.ponder is False


def test_engine_book_is_the_shipped_book_by_default_and_can_be_off_or_a_file(tmp_path: Path) -> None:
    assert Settings().engine.book_file == str(DEFAULT_BOOK)
    assert parse_settings({"engine": {"book": False}}).engine.book_file is None
    own = tmp_path / "own.bin"
    own.write_bytes(bytes(16))
    assert parse_settings({"engine": {"book": str(own)}}).engine.book_file == str(own)


@pytest.mark.parametrize(("value", "reason"), [
    ("/no/such/book.bin", "cannot read it"),
    (3, "expected true, false or the path"),
    ("", "expected true, false or the path"),
])


def test_a_bad_engine_book_is_one_line_naming_the_key(value: object, reason: str) -> None:
    with pytest.raises(ConfigError, match=f"^engine.book: {reason}"):
        parse_settings({"engine": {"book": value}})


def test_a_file_that_is_no_polyglot_book_is_refused_at_start(tmp_path: Path) -> None:
    not_a_book = tmp_path / "notes.txt"
    not_a_book.write_text("not a book\n")
    with pytest.raises(ConfigError, match="engine.book: not a Polyglot book"):
        parse_settings({"engine": {"book": str(not_a_book)}})


def test_greeting_and_goodbye_may_name_the_opponent_the_bot_and_the_engine() -> None:
    game = parse_settings({"game": {"greeting": "Hi {opponent}, {me} plays with {engine} {{ok}}",
                                    "goodbye": ""}}).game
    assert game.greeting.format(opponent="alice", me="mybot", engine="x") == "Hi alice, mybot plays with x {ok}"


def test_an_unknown_placeholder_is_named_with_the_known_ones() -> None:
    with pytest.raises(ConfigError, match=r"unknown placeholder \{name\} \(known: \{opponent\}, \{me\}, \{engine\}\)"):
        parse_settings({"game": {"greeting": "Hi {name}!"}})


@pytest.mark.parametrize("port", [0, 65536, "9464", True, 80.5])
def test_a_bad_metrics_port_is_one_line_naming_the_key(port: object) -> None:
    with pytest.raises(ConfigError, match=r"^bot\.metrics_port: expected a port number from 1 to 65535"):
        parse_settings({"bot": {"metrics_port": port}})
