"""Edges of the informative draw found in review: a budget of every unit, two units with
the default budget, errors so large their sum overflows, a unit rated but never drawn,
and a unit named twice in the judge's scores."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from toolkit.cli._order import read_judge_scores, session_draws
from toolkit.errors import InputError
from toolkit.ratings.informative import informative_probabilities
from toolkit.ratings.store import RatingStore
from toolkit.ratings.store.draws import Draw, effective_probabilities


def test_a_budget_of_every_unit_draws_each_for_certain() -> None:
    assert informative_probabilities({"a": 1.0, "b": 2.0, "c": 3.0}, 3) == {
        "a": 1.0, "b": 1.0, "c": 1.0,
    }  # fmt: skip


def test_errors_near_the_float_limit_still_weigh_by_their_ratio() -> None:
    """1e308 twice and 1: the big ones share 0.2 + 0.8 * 1.5 = 1.4 each and the small one
    0.2 (errors 1, 1, 0 after scaling, mean 2/3), scaled to a budget of 2: 2.8/3 and 0.4/3."""
    got = informative_probabilities({"a": 1e308, "b": 1e308, "c": 1.0}, 2)
    assert got["a"] == pytest.approx(2.8 / 3) and got["b"] == pytest.approx(2.8 / 3)
    assert got["c"] == pytest.approx(0.4 / 3)


def test_a_budget_over_the_units_is_refused_in_one_line() -> None:
    with pytest.raises(InputError, match=r"--budget=4: must be from 1 to the number of units"):
        informative_probabilities({"a": 1.0, "b": 2.0, "c": 3.0}, 4)


def _scores(tmp_path: Path, rows: str) -> str:
    path = tmp_path / "judge.csv"
    path.write_text("item,uncertainty\n" + rows, encoding="utf-8")
    return str(path)


def test_two_units_with_the_default_budget_are_both_drawn(tmp_path: Path) -> None:
    args = argparse.Namespace(order="informative", budget=None,
                              judge_scores=_scores(tmp_path, "g1,1\ng2,3\n"))  # fmt: skip
    order, draws = session_draws(args, ["g1", "g2"], seed=1)
    assert order == "informative" and draws is not None
    assert [(d.unit_id, d.probability, d.drawn) for d in draws] == [
        ("g1", 1.0, True),
        ("g2", 1.0, True),
    ]


def test_a_unit_named_twice_in_the_judge_scores_is_refused(tmp_path: Path) -> None:
    path = _scores(tmp_path, "g1,1\ng1,5\n")
    with pytest.raises(InputError, match=r"judge.csv:3: item='g1': a unit named twice"):
        read_judge_scores(path, ["g1"])


def test_a_unit_rated_but_never_drawn_has_no_weight() -> None:
    with pytest.raises(InputError, match=r"unit_id='b': rated but never drawn"):
        effective_probabilities({"a": 0.5, "b": 0.5, "c": 0.4}, ["a", "c"], ["a", "b"])


_GAMES = ["g1", "g2", "g3"]
_DRAWS = [Draw("g1", 0.5, True), Draw("g2", 0.5, False), Draw("g3", 1.0, True)]


def _restored_informative(tmp_path: Path) -> RatingStore:
    """A fresh store holding the restored backup of an informative session of three games
    (no session of its own)."""
    first = RatingStore(tmp_path / "a.db")
    first.open_session(_GAMES, ["ana", "ben"], seed=1, order="informative", draws=_DRAWS)
    first.backup(tmp_path / "bk")
    second = RatingStore(tmp_path / "b.db")
    second.restore(tmp_path / "bk")
    return second


def test_resuming_checks_the_order_the_session_reports(tmp_path: Path) -> None:
    """Found in review: a backup of an informative session restored into a fresh store,
    then a session created there in informative order: resuming it with --order
    informative is accepted and with --order random refused (both read each unit's
    latest draw, as draw_order() does)."""
    games, draws = _GAMES, _DRAWS
    second = _restored_informative(tmp_path)
    second.open_session(games, ["ana", "ben"], seed=1, order="informative", draws=draws)
    assert second.draw_order() == "informative"
    session, created = second.open_session(games, None, order="informative")
    assert not created and session.seed == 1
    with pytest.raises(InputError, match="handed out in informative order"):
        second.open_session(games, None, order="random")


def test_a_random_session_over_restored_informative_draws_is_refused(tmp_path: Path) -> None:
    """Found in review: a backup restored into a fresh store has no session; a session
    created there in random order recorded probability 1 for every unit over the
    restored informative draws, so the informatively drawn ratings were weighed as
    random. Refused in one line naming the order found; the store is left as it was."""
    games = _GAMES
    second = _restored_informative(tmp_path)
    with pytest.raises(InputError) as caught:
        second.open_session(games, ["ana", "ben"], seed=1)
    line = str(caught.value)
    assert "\n" not in line and "b.db" in line and "--order='random'" in line
    assert "already holds draws of 3 of these units in informative order" in line
    assert second.session() is None
    assert second.draw_order() == "informative"
    assert second.draws()["probability"].to_list() == [0.5, 0.5, 1.0]


def test_an_informative_session_with_other_draws_over_restored_ones_is_refused(
    tmp_path: Path,
) -> None:
    """Found in review: an informative session created over restored informative draws
    recorded its own probabilities after them, so the restored ratings (drawn with 0.5)
    would be weighed by the new ones (here 0.8): refused in one line naming a unit whose
    draw differs, its held and new probability; the store is left as it was."""
    second = _restored_informative(tmp_path)
    other = [Draw("g1", 0.8, True), Draw("g2", 0.5, False), Draw("g3", 1.0, True)]
    with pytest.raises(InputError) as caught:
        second.open_session(_GAMES, ["ana", "ben"], seed=1, order="informative", draws=other)
    line = str(caught.value)
    assert "\n" not in line and "b.db" in line
    assert "already holds other draws of 1 of these units" in line
    assert "g1" in line and "0.5" in line and "0.8" in line
    assert second.session() is None
    assert second.draws()["probability"].to_list() == [0.5, 0.5, 1.0]


def test_a_unit_drawn_now_but_not_in_the_restored_draw_is_refused(tmp_path: Path) -> None:
    """Same probabilities, another seed: g2 (not drawn before) drawn now. Its restored
    draw said it could not have been rated; refused as another draw."""
    second = _restored_informative(tmp_path)
    other = [Draw("g1", 0.5, True), Draw("g2", 0.5, True), Draw("g3", 1.0, True)]
    with pytest.raises(InputError, match=r"other draws of 1 of these units.*g2"):
        second.open_session(_GAMES, ["ana", "ben"], seed=2, order="informative", draws=other)
    assert second.session() is None


def test_the_same_draws_over_restored_ones_create_the_session(tmp_path: Path) -> None:
    """The same judge scores, budget and seed draw the same units with the same
    probabilities: the session is created and every unit keeps its probability."""
    second = _restored_informative(tmp_path)
    session, created = second.open_session(
        _GAMES, ["ana", "ben"], seed=1, order="informative", draws=_DRAWS
    )
    assert created and session.seed == 1
    assert second.draws()["probability"].to_list() == [0.5, 0.5, 1.0]
    assert second.draws()["drawn"].to_list() == [True, False, True]
