"""``toolkit rate DIR --add-rater NAME`` on a session's store (issue 41): the rater gets
a private link printed with the others and a queue, the open games are rebalanced, and
what was saved stays; a name already in the session is one line, exit 2."""

from __future__ import annotations

import shutil
import socket
from pathlib import Path
from typing import Any

import pytest

from toolkit.cli import main
from toolkit.cli import rate as rate_cli
from toolkit.ratings.store import RatingStore


@pytest.fixture
def games(tmp_path: Path, sample_runs: Path) -> Path:
    folder = tmp_path / "games"
    folder.mkdir()
    for src in (sample_runs / "discussions").glob("*.json"):
        shutil.copy(src, folder / src.name)
    return folder


@pytest.fixture(autouse=True)
def no_serving(monkeypatch: pytest.MonkeyPatch) -> None:
    def fake_serve(app: Any, sock: socket.socket) -> None:
        sock.close()

    monkeypatch.setattr(rate_cli, "_serve", fake_serve)


def test_add_rater_gives_a_link_and_a_queue_and_keeps_what_was_saved(
    games: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["rate", str(games), "--raters", "ana,ben", "--overlap", "2", "--port", "0"]) == 0
    capsys.readouterr()
    store = RatingStore(games / "ratings.db")
    before = store.session()
    assert before is not None
    rated = before.queues["ana"][0]
    store.submit("ana", rated, 4, {}, "kept")
    assert main(["rate", str(games), "--add-rater", "dana", "--port", "0"]) == 0
    out, err = capsys.readouterr()
    after = store.session()
    assert after is not None and "dana" in after.raters and after.queues["dana"]
    assert f"/r/{after.raters['dana']}" in out
    assert "added dana" in err
    assert after.queues["ana"][0] == rated
    assert store.latest("ana")["notes"].to_list() == ["kept"]
    for game in before.game_ids:  # each still with two raters
        assert sum(game in q for q in after.queues.values()) == 2
    assert main(["rate", str(games), "--add-rater", "DANA", "--port", "0"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
