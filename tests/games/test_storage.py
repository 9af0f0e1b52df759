"""bot.games.storage: the state file survives bad content, writes are atomic, heartbeat age."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from bot.games.storage import StateFile, age_s, pgn_path, touch, write_pgn


def test_state_file_remembers_ids_across_instances(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    state = StateFile(path)
    state.add("g1")
    state.add("g2")
    state.add("g1")
    state.remove("g2")
    assert StateFile(path).game_ids() == ["g1"]
    assert json.loads(path.read_text()) == {"unfinished_games": ["g1"], "setups": {}}


@pytest.mark.parametrize("content", ["{not json", '{"unfinished_games": "g1"}', "[1, 2]", ""])
def test_unreadable_state_file_means_no_remembered_games_not_a_crash(tmp_path: Path, content: str,
                                                                     caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "state.json"
    path.write_text(content)
    assert StateFile(path).game_ids() == []
    assert "state file" in caplog.text


def test_writes_leave_no_temporary_files_behind(tmp_path: Path) -> None:
    state = StateFile(tmp_path / "state.json")
    for index in range(5):
        state.add(f"g{index}")
    write_pgn(tmp_path, "g1", "[Event \"x\"]\n\n*\n")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["g1.pgn", "state.json"]


def test_pgn_file_name_cannot_escape_the_directory(tmp_path: Path) -> None:
    path = write_pgn(tmp_path / "games", "../../etc/passwd", "*\n")
    assert path is not None and path.parent == tmp_path / "games"
    # Readers (demo, play's page) find it where it was written, under its sanitised name.
    assert pgn_path(tmp_path / "games", "../../etc/passwd") == path and path.read_text(encoding="utf-8") == "*\n"


def test_heartbeat_age_follows_touch(tmp_path: Path) -> None:
    beat = tmp_path / "sub" / "heartbeat"
    assert age_s(beat) is None
    touch(beat)
    age = age_s(beat)
    assert age is not None and age < 5
    os.utime(beat, (time.time() - 100, time.time() - 100))
    old = age_s(beat)
    assert old is not None and old >= 99


@pytest.mark.parametrize("content", ["{not json", '{"unfinished_games": "g1"}', "[" * 100_000])
def test_an_unreadable_state_file_is_kept_aside_not_overwritten_by_the_next_save(
        tmp_path: Path, content: str, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "state.json"
    path.write_text(content)
    (tmp_path / "state.json.corrupt").write_text("an older bad file")
    state = StateFile(path)
    state.add("g9")
    assert (tmp_path / "state.json.corrupt.1").read_text() == content
    assert (tmp_path / "state.json.corrupt").read_text() == "an older bad file"
    assert json.loads(path.read_text()) == {"unfinished_games": ["g9"], "setups": {}}
    assert "kept as" in caplog.text and "state.json.corrupt.1" in caplog.text


def test_a_games_setup_is_kept_until_the_game_is_removed(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    state = StateFile(path)
    state.note_setup("g1", {"white": "a"})          # not a game the file holds: not kept
    state.add("g1")
    state.note_setup("g1", {"white": "a", "base_ms": 15_000})
    assert StateFile(path).setup("g1") == {"white": "a", "base_ms": 15_000}
    state.remove("g1")
    assert StateFile(path).setup("g1") is None and json.loads(path.read_text())["setups"] == {}


@pytest.mark.parametrize("setups", ['"x"', '{"g1": 3}', '{"g2": {"white": "a"}}'])
def test_odd_setups_in_the_state_file_are_dropped_and_the_ids_kept(tmp_path: Path, setups: str) -> None:
    path = tmp_path / "state.json"
    path.write_text(f'{{"unfinished_games": ["g1"], "setups": {setups}}}')
    state = StateFile(path)
    assert state.game_ids() == ["g1"] and state.setup("g1") is None and state.setup("g2") is None
    assert not (tmp_path / "state.json.corrupt").exists()
