"""``toolkit rate DIR --add-rater NAME`` on a session's store (issue 41): the rater gets
a private link printed with the others and a queue, the open games are rebalanced, and
what was saved stays; a name already in the session is one line, exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.cli import main
from toolkit.ratings.store import RatingStore

#: toolkit rate serves nothing here: what it would serve is recorded (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("rate_serves")


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
