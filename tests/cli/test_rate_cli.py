"""``toolkit rate``: checks its input, creates or resumes the session, prints the private
links and hands a bound socket to the server (the served pages themselves are tested in
tests/rating_server and, in a real browser, in tests/e2e/test_rater_page.py)."""

from __future__ import annotations

import hashlib
import json
import socket
import sqlite3
from pathlib import Path
from typing import Any

import pytest

import toolkit.cli.rate as rate_cli
from toolkit.cli import main
from toolkit.rating_server.run import bind_socket
from toolkit.ratings.store import RatingStore, is_rating_store


def _links(out: str) -> dict[str, str]:
    links = {}
    for line in out.splitlines():
        parts = line.split()
        if line.startswith("  ") and len(parts) == 2:
            links[parts[0]] = parts[1]
        elif line.startswith("Organiser: "):
            links["organiser"] = parts[1]
    return links


def test_rate_creates_a_session_prints_one_link_per_rater_and_serves_on_loopback(
    games: Path, rate_serves: list[tuple[Any, tuple[str, int]]], capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["rate", str(games), "--raters", "ana,ben,chidi", "--overlap", "2", "--seed", "5"])
    assert code == 0
    (_app, (host, port)), *_ = rate_serves
    assert host == "127.0.0.1"
    out, err = capsys.readouterr()
    links = _links(out)
    assert set(links) == {"ana", "ben", "chidi", "organiser"}
    store = RatingStore(games / "ratings.db")
    session = store.session()
    assert session is not None and session.seed == 5 and session.overlap == 2
    for rater, token in session.raters.items():
        assert links[rater] == f"http://127.0.0.1:{port}/r/{token}"
    assert links["organiser"] == f"http://127.0.0.1:{port}/o/{session.organiser_token}"
    assert "created the session in" in err
    assert "3 game(s), 3 rater(s), 2 per game, seed 5" in err
    assert f"serving on 127.0.0.1:{port}" in err
    # at 80 columns nothing wraps but a long path of the user's own
    assert max(len(line) for line in (out + err).splitlines() if str(games) not in line) <= 80


def test_a_second_run_resumes_the_session_with_the_same_links(
    games: Path, rate_serves: list[tuple[Any, tuple[str, int]]], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["rate", str(games), "--raters", "ana,ben", "--port", "0"]) == 0
    first = _links(capsys.readouterr().out)
    assert main(["rate", str(games), "--port", "0"]) == 0
    out, err = capsys.readouterr()
    again = _links(out)
    assert {k: v.split("/", 3)[3] for k, v in again.items()} == {
        k: v.split("/", 3)[3] for k, v in first.items()
    }
    assert "resumed the session" in err


def test_a_game_gone_from_the_folder_is_warned_about_and_a_new_one_noted(
    games: Path, rate_serves: list[tuple[Any, tuple[str, int]]], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["rate", str(games), "--raters", "ana,ben", "--port", "0"]) == 0
    capsys.readouterr()
    (games / "game-pass.json").rename(games.parent / "game-pass.json")
    extra = json.loads((games.parent / "game-pass.json").read_text("utf-8"))
    extra["gameId"] = "game-new"
    (games / "game-new.json").write_text(json.dumps(extra), "utf-8")
    assert main(["rate", str(games), "--port", "0"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[2:4] == [
        f"toolkit rate: warning: game game-pass of the session is not in {games}",
        f"toolkit rate: note: 1 game(s) in {games} are not in this session (a new --store "
        "starts a session with them)",
    ]


def test_restore_puts_a_backup_zip_back_into_a_new_store_before_serving(
    games: Path,
    tmp_path: Path,
    rate_serves: list[tuple[Any, tuple[str, int]]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    old = RatingStore(tmp_path / "old.db")
    old.submit("ana", "game-pass", 4, {}, "kept")
    old.save_draft("ben", "game-pass", None, {}, "typed, never submitted")
    archive = tmp_path / "backup.zip"
    old.backup(archive)
    new = tmp_path / "new.db"
    args = ["rate", str(games), "--store", str(new), "--raters", "ana,ben", "--port", "0"]
    assert main([*args, "--restore", str(archive)]) == 0
    err = capsys.readouterr().err
    drafts = old.all_drafts().height  # ana's (kept on submit) and ben's
    said = f"restored {archive} (1 ratings, 0 labels, 0 items, {drafts} drafts, 0 skips, "
    said += "0 adjudications, 0 draws rows added)"
    assert said in err
    store = RatingStore(new)
    assert store.latest().select("rater", "score", "notes").rows() == [("ana", 4, "kept")]
    draft = store.draft("ben", "game-pass")
    assert draft is not None and draft.notes == "typed, never submitted"
    # a second restore adds nothing; a file that is no backup stops before serving
    assert main([*args[:-4], "--port", "0", "--restore", str(archive)]) == 0
    again = "(0 ratings, 0 labels, 0 items, 0 drafts, 0 skips, 0 adjudications, 0 draws rows added)"
    assert again in capsys.readouterr().err
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"not a zip")
    rate_serves.clear()
    assert main([*args[:-4], "--port", "0", "--restore", str(junk)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a readable zip backup" in err and rate_serves == []


def test_without_raters_and_without_a_session_is_one_line_exit_2(
    games: Path, rate_serves: list[tuple[Any, tuple[str, int]]], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["rate", str(games), "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "name the raters (--raters ana,ben,chidi)" in err
    assert rate_serves == []


def test_resuming_with_other_raters_is_one_line_exit_2(
    games: Path, rate_serves: list[tuple[Any, tuple[str, int]]], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["rate", str(games), "--raters", "ana,ben", "--port", "0"]) == 0
    capsys.readouterr()
    assert main(["rate", str(games), "--raters", "ana,dee", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds a session with the raters ana,ben" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--raters", "ana,ana"], "a rater is named twice"),
        (["--raters", "ana,ben", "--overlap", "3"], "overlap must be from 1 to the number"),
    ],
)
def test_bad_raters_or_overlap_are_one_line_exit_2(
    games: Path,
    rate_serves: list[tuple[Any, tuple[str, int]]],
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    message: str,
) -> None:
    assert main(["rate", str(games), "--port", "0", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "Traceback" not in err
    assert rate_serves == []


def test_a_missing_folder_is_exit_2_with_one_line(
    tmp_path: Path,
    rate_serves: list[tuple[Any, tuple[str, int]]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["rate", str(tmp_path / "nope"), "--raters", "ana"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"toolkit rate: error: {tmp_path / 'nope'}: no such file or folder"
    assert rate_serves == []


def test_a_store_that_is_a_game_database_is_refused_before_a_byte_changes(
    games: Path,
    tmp_path: Path,
    rate_serves: list[tuple[Any, tuple[str, int]]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    db = tmp_path / "games.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE Game (id TEXT)")
    con.execute("INSERT INTO Game VALUES ('g1')")
    con.commit()
    con.close()
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    assert main(["rate", str(games), "--store", str(db), "--raters", "ana"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "not a toolkit ratings store" in err
    assert "Traceback" not in err
    assert rate_serves == []
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games", "games.db"]


def test_the_named_store_is_used_and_the_default_one_is_not_created(
    games: Path, tmp_path: Path, rate_serves: list[tuple[Any, tuple[str, int]]]
) -> None:
    store = tmp_path / "elsewhere" / "session.db"
    assert main(["rate", str(games), "--store", str(store), "--raters", "ana"]) == 0
    assert is_rating_store(store)
    assert not (games / "ratings.db").exists()


@pytest.mark.parametrize(
    "args",
    [
        ["--port", "-5"],
        ["--port", "70000"],
        ["--port", "http"],
        ["--overlap", "0"],
        ["--seed", "-1"],
        ["--public-url", "ftp://x"],
    ],
)
def test_bad_numbers_and_addresses_are_refused_by_the_parser(
    games: Path, args: list[str], rate_serves: list[tuple[Any, tuple[str, int]]]
) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["rate", str(games), "--raters", "ana", *args])
    assert exc.value.code == 2
    assert rate_serves == []


def test_a_public_url_is_used_for_the_links_and_another_host_is_warned_about(
    games: Path, rate_serves: list[tuple[Any, tuple[str, int]]], capsys: pytest.CaptureFixture[str]
) -> None:
    url = "https://rate.example.org/team"
    assert main(["rate", str(games), "--raters", "ana", "--public-url", url + "/"]) == 0
    links = _links(capsys.readouterr().out)
    assert links["ana"].startswith(url + "/r/")
    assert main(["rate", str(games), "--host", "0.0.0.0", "--port", "0"]) == 0
    err = capsys.readouterr().err
    assert "serving 0.0.0.0 over plain HTTP: put it behind a TLS" in err
    assert rate_serves[-1][1][0] == "0.0.0.0"


def _listening() -> socket.socket:
    held = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    held.bind(("127.0.0.1", 0))
    held.listen()
    return held


def test_a_taken_port_given_explicitly_is_one_line_exit_2_before_any_session(
    games: Path,
    rate_serves: list[tuple[Any, tuple[str, int]]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    with _listening() as held:
        port = held.getsockname()[1]
        assert main(["rate", str(games), "--raters", "ana", "--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert err == f"toolkit rate: error: --port={port}: port {port} on 127.0.0.1 is in use: " + (
        "choose another\n"
    )
    assert rate_serves == []
    assert RatingStore(games / "ratings.db").session() is None


def test_without_port_the_address_printed_is_the_free_one_served(
    games: Path,
    rate_serves: list[tuple[Any, tuple[str, int]]],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with _listening() as held:
        busy = held.getsockname()[1]
        monkeypatch.setattr(rate_cli, "DEFAULT_PORT", busy)
        assert main(["rate", str(games), "--raters", "ana"]) == 0
    served_port = rate_serves[0][1][1]
    assert served_port != busy
    assert f"serving on 127.0.0.1:{served_port}" in capsys.readouterr().err


def test_a_port_left_in_time_wait_by_a_crashed_server_binds_again_at_once() -> None:
    """Issue 29 item 10: a connection the server closed first leaves the port in
    TIME_WAIT; without SO_REUSEADDR the next bind fails for about a minute."""
    server = bind_socket("127.0.0.1", 0)
    port = server.getsockname()[1]
    client = socket.create_connection(("127.0.0.1", port))
    conn, _ = server.accept()
    conn.close()  # the server side closes first: its end goes to TIME_WAIT
    client.recv(1)
    client.close()
    server.close()
    plain = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        with pytest.raises(OSError):  # the state the test is about is really there
            plain.bind(("127.0.0.1", port))
    finally:
        plain.close()
    again = bind_socket("127.0.0.1", port)
    assert again.getsockname()[1] == port
    again.close()


def test_rate_help_fits_80_columns_without_rst_markup(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("rate", "discussion"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        out = capsys.readouterr().out
        assert "``" not in out and ":func:" not in out
        assert max(len(line) for line in out.splitlines()) <= 80
    with pytest.raises(SystemExit):
        main(["rate", "--help"])
    assert "--raters" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("doc", "shown"),
    [
        (
            "Reads :func:`load` and :class:`~toolkit.Scorecard`.",
            "Reads load and toolkit.Scorecard.",
        ),
        ("``toolkit x``\n\nRuns ``x`` on a file: fast.", "Runs x on a file: fast."),
        ("No role here, a colon: and `ticks`.", "No role here, a colon: and `ticks`."),
    ],
)
def test_a_docstring_is_shown_as_help_without_its_rst_markup(doc: str, shown: str) -> None:
    from toolkit.cli import help_text

    assert help_text(doc) == shown


def test_an_unknown_flag_is_one_error_line_then_the_subcommands_help_pointer(
    games: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["rate", str(games), "--zzzzz"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert lines[0] == "toolkit rate: error: unrecognized arguments: --zzzzz"
    assert lines[1:] == ["Run 'toolkit rate --help' for its options."]


def test_the_discussion_command_reads_ratings_and_labels_from_a_store(
    games: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = RatingStore(games / "ratings.db")
    store.save_rating("ana", "game-pass", 4)
    store.save_rating("ben", "game-pass", 3)
    assert main(["discussion", str(games), "--ratings", str(store.path), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    by_id = {g["game_id"]: g for g in out["games"]}
    assert set(by_id) == {"game-over-budget", "game-pass", "game-role-repetition"}
    engagement = next(m for m in by_id["game-pass"]["metrics"] if m["key"] == "engagement")
    assert engagement["score"] == 3.5


def test_a_refused_rate_leaves_no_store_behind(
    games: Path, tmp_path: Path, rate_serves: list[tuple[Any, tuple[str, int]]],
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    assert main(["rate", str(games), "--port", "0"]) == 2
    assert "name the raters" in capsys.readouterr().err
    assert sorted(p.name for p in games.iterdir() if p.name.startswith("ratings")) == []
    deep = tmp_path / "new" / "folder" / "r.db"
    assert main(["rate", str(games), "--store", str(deep), "--port", "0"]) == 2
    assert not (tmp_path / "new").exists()
    # a backup that is refused into a new store: the store it was put into goes too
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"not a zip")
    fresh = tmp_path / "fresh.db"
    args = ["rate", str(games), "--store", str(fresh), "--raters", "ana", "--port", "0"]
    assert main([*args, "--restore", str(junk)]) == 2
    assert "not a readable zip backup" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("fresh")) == []
    # an existing store is never removed
    assert main(["rate", str(games), "--raters", "ana", "--port", "0"]) == 0
    assert main(["rate", str(games), "--raters", "ben", "--port", "0"]) == 2
    assert is_rating_store(games / "ratings.db")


def test_another_sessions_backup_is_refused_unless_imported_as_its_data(
    games: Path, tmp_path: Path, rate_serves: list[tuple[Any, tuple[str, int]]],
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    other = RatingStore(tmp_path / "other.db")
    other.open_session(["game-pass"], ["ana"], 1, 1)
    other.submit("ana", "game-pass", 1, {}, "the other session's")
    archive = tmp_path / "other.zip"
    other.backup(archive)
    assert main(["rate", str(games), "--raters", "ana", "--port", "0"]) == 0
    store = RatingStore(games / "ratings.db")
    store.submit("ana", "game-pass", 4, {}, "ours")
    capsys.readouterr()
    args = ["rate", str(games), "--port", "0", "--restore", str(archive)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{archive}: session_id=" in err
    assert "--import-other-session" in err
    assert main([*args, "--import-other-session"]) == 0
    assert "kept as another session's data" in capsys.readouterr().err
    assert store.latest().select("score", "notes").rows() == [(4, "ours")]
    assert main(["rate", str(games), "--port", "0", "--import-other-session"]) == 2
    assert "is for a backup named by --restore" in capsys.readouterr().err


def test_a_rater_name_with_control_characters_is_printed_escaped(
    games: Path, rate_serves: list[tuple[Any, tuple[str, int]]], capsys: pytest.CaptureFixture[str]
) -> None:
    """Found in review: a name holding ESC (a colour sequence) or U+202E (right-to-left
    override) reached the terminal raw with its link; the page escapes it, so must the
    terminal."""
    assert main(["rate", str(games), "--raters", "ana\x1b[31m,ben\u202e", "--seed", "5"]) == 0
    out, _ = capsys.readouterr()
    assert "\x1b" not in out and "\u202e" not in out
    assert "ana\\x1b[31m" in out and "ben\\u202e" in out
