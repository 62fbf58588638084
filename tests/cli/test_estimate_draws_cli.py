"""``toolkit calibrate SCORES --estimate --draws STORE``: the estimate weighs each rated
item by the probability the session recorded for it (informative order), and gives the
unweighted numbers for a random-order session."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from toolkit.cli import main
from toolkit.ratings.store import RatingStore
from toolkit.ratings.store.draws import Draw
from toolkit.rubrics.estimate import estimate

JUDGE = {"g1": 4.0, "g2": 2.0, "g3": 5.0, "g4": 3.0, "g5": 1.0, "g6": 4.0}
PEOPLE = {"g1": 3, "g3": 4, "g4": 3}
DRAWN = {"g1": 0.5, "g2": 0.2, "g3": 0.8, "g4": 0.4, "g5": 0.1, "g6": 0.3}


def _scores(tmp_path: Path) -> Path:
    rows = [f"{g},judge,{s}" for g, s in JUDGE.items()]
    rows += [f"{g},ana,{s}" for g, s in PEOPLE.items()]
    path = tmp_path / "scores.csv"
    path.write_text("item,rater,score\n" + "\n".join(rows) + "\n")
    return path


def _store(tmp_path: Path, informative: bool) -> Path:
    path = tmp_path / "ratings.db"
    store = RatingStore(path)
    drawn = {"g1", "g3", "g4", "g6"}  # g6 drawn, not rated yet: 3 of 4 drawn rated
    draws = [Draw(g, p if informative else 1.0, g in drawn or not informative) for g, p in
             DRAWN.items()]  # fmt: skip
    order = "informative" if informative else "random"
    store.open_session(list(JUDGE), ["ana"], 1, 1, order=order, draws=draws)
    for g, s in PEOPLE.items():
        store.submit("ana", g, s)
    return path


def _overall(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)["rows"][0]


def test_informative_draws_weigh_each_item_by_its_recorded_probability(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scores, store = _scores(tmp_path), _store(tmp_path, informative=True)
    got = _overall(["calibrate", str(scores), "--estimate", "--format", "json",
                    "--draws", str(store)], capsys)  # fmt: skip
    frame = pl.read_csv(scores)
    # by hand: each draw probability times the share of drawn games rated (3 of 4)
    want = estimate(frame, probabilities={g: p * 3 / 4 for g, p in DRAWN.items()})
    row = want.frame.row(0, named=True)
    assert (got["estimate"], got["low"], got["high"]) == pytest.approx(
        (row["estimate"], row["low"], row["high"]), abs=1e-12
    )
    unweighted = estimate(frame).frame.row(0, named=True)
    assert got["estimate"] != pytest.approx(unweighted["estimate"], abs=1e-6)


def test_random_order_draws_give_the_unweighted_numbers_exactly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scores, store = _scores(tmp_path), _store(tmp_path, informative=False)
    base = ["calibrate", str(scores), "--estimate", "--format", "json"]
    assert _overall([*base, "--draws", str(store)], capsys) == _overall(base, capsys)


def test_a_store_without_draws_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty.db"
    RatingStore(empty)
    argv = ["calibrate", str(_scores(tmp_path)), "--estimate", "--draws", str(empty)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert str(empty) in err and "Traceback" not in err
