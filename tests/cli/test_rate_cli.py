"""``toolkit rate``: checks its input, creates the store, and hands over to a Voilà server on
127.0.0.1 (the server itself is driven in tests/e2e/test_rater_page.py)."""

from __future__ import annotations

import json
import shutil
import socket
import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

import toolkit.cli.rate as rate_cli
from toolkit.apps import RATER_APP
from toolkit.cli import main
from toolkit.ratings.store import is_rating_store


@pytest.fixture
def games(tmp_path: Path, sample_runs: Path) -> Path:
    folder = tmp_path / "games"
    folder.mkdir()
    for src in (sample_runs / "discussions").glob("*.json"):
        shutil.copy(src, folder / src.name)
    return folder


@pytest.fixture
def launched(monkeypatch: pytest.MonkeyPatch) -> list[tuple[list[str], dict[str, str]]]:
    calls: list[tuple[list[str], dict[str, str]]] = []

    def fake_exec(command: Sequence[str], env: Mapping[str, str]) -> int:
        calls.append((list(command), dict(env)))
        return 0

    monkeypatch.setattr(rate_cli, "_exec", fake_exec)
    return calls


def test_rate_serves_the_packaged_page_on_loopback_with_a_default_store(
    games: Path,
    launched: list[tuple[list[str], dict[str, str]]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["rate", str(games), "--port", "9123"]) == 0
    (command, env), *_ = launched
    assert command[1:4] == ["-m", "voila", str(RATER_APP)]
    assert "--Voila.ip=127.0.0.1" in command
    assert "--port=9123" in command
    assert "--no-browser" in command
    assert RATER_APP.is_file()
    store = games / "ratings.db"
    assert is_rating_store(store)
    assert env["TOOLKIT_RATE_STORE"] == str(store.resolve())
    assert env["TOOLKIT_RATE_DIR"] == str(games.resolve())
    assert env["TOOLKIT_RATE_RATER"] == ""
    err = capsys.readouterr().err
    assert "3 transcript(s)" in err
    assert "serving http://127.0.0.1:9123/" in err


def test_rate_uses_the_named_store_and_rater(
    games: Path, tmp_path: Path, launched: list[tuple[list[str], dict[str, str]]]
) -> None:
    store = tmp_path / "elsewhere" / "session.db"
    assert main(["rate", str(games), "--store", str(store), "--rater", "ana"]) == 0
    env = launched[0][1]
    assert env["TOOLKIT_RATE_STORE"] == str(store.resolve())
    assert env["TOOLKIT_RATE_RATER"] == "ana"
    assert any(a.startswith("--port=") for a in launched[0][0])
    assert is_rating_store(store)
    assert not (games / "ratings.db").exists()


def test_a_missing_folder_is_exit_2_with_one_line(
    tmp_path: Path,
    launched: list[tuple[list[str], dict[str, str]]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["rate", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"toolkit rate: error: {tmp_path / 'nope'}: no such file or folder"
    assert launched == []


def test_a_store_that_is_a_game_database_is_exit_2(
    games: Path,
    tmp_path: Path,
    launched: list[tuple[list[str], dict[str, str]]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    db = tmp_path / "games.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE Game (id TEXT)")
    con.commit()
    con.close()
    assert main(["rate", str(games), "--store", str(db)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "not a toolkit ratings store" in err
    assert "Traceback" not in err
    assert launched == []


@pytest.mark.parametrize("port", ["0", "70000", "http"])
def test_a_bad_port_is_refused_by_the_parser(
    games: Path, port: str, launched: list[tuple[list[str], dict[str, str]]]
) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["rate", str(games), "--port", port])
    assert exc.value.code == 2
    assert launched == []


def test_the_discussion_command_reads_ratings_and_labels_from_a_store(
    games: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from toolkit.ratings.store import RatingStore

    store = RatingStore(games / "ratings.db")
    store.save_rating("ana", "game-pass", 4)
    store.save_rating("ben", "game-pass", 3)
    assert main(["discussion", str(games), "--ratings", str(store.path), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    by_id = {g["game_id"]: g for g in out["games"]}
    assert set(by_id) == {"game-over-budget", "game-pass", "game-role-repetition"}
    engagement = next(m for m in by_id["game-pass"]["metrics"] if m["key"] == "engagement")
    assert engagement["score"] == 3.5


def _listening() -> socket.socket:
    held = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    held.bind(("127.0.0.1", 0))
    held.listen()
    return held


def test_a_taken_port_given_explicitly_is_one_line_exit_2(
    games: Path,
    launched: list[tuple[list[str], dict[str, str]]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    with _listening() as held:
        port = held.getsockname()[1]
        assert main(["rate", str(games), "--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert err == f"toolkit rate: error: --port={port}: port {port} on 127.0.0.1 is in use: " + (
        "choose another\n"
    )
    assert launched == []


def test_without_port_the_address_printed_is_the_free_one_served(
    games: Path,
    launched: list[tuple[list[str], dict[str, str]]],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with _listening() as held:
        busy = held.getsockname()[1]
        monkeypatch.setattr(rate_cli, "DEFAULT_PORT", busy)
        assert main(["rate", str(games)]) == 0
    command = launched[0][0]
    served = next(int(a.split("=")[1]) for a in command if a.startswith("--port="))
    assert served != busy
    assert "--Voila.port_retries=0" in command  # Voilà serves that port or none
    assert f"serving http://127.0.0.1:{served}/" in capsys.readouterr().err


def test_rate_and_discussion_help_show_no_rst_markup(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("rate", "discussion"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        out = capsys.readouterr().out
        assert "``" not in out and ":func:" not in out
        assert max(len(line) for line in out.splitlines()) <= 80


def test_an_unknown_flag_prints_the_subcommands_usage(
    games: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["rate", str(games), "--bogus"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: toolkit rate ")
    assert "toolkit rate: error: unrecognized arguments: --bogus" in err
