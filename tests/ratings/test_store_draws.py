"""A session's draws (its order, each unit's probability of being drawn): recorded when
the session is created, carried by every backup, restored and merged by uid."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.errors import InputError
from toolkit.ratings.store import SCHEMA_VERSION, RatingStore
from toolkit.ratings.store.draws import Draw, effective_probabilities

DRAWS = [
    Draw("g1", 0.25, True, 6.0, 2.0),
    Draw("g2", 0.5, False, 3.0, 0.5),
    Draw("g3", 1.0, True, None, None),
    Draw("g4", 0.125, True, 4.5, 0.0),
]


def _store(path: Path) -> RatingStore:
    store = RatingStore(path)
    store.open_session(["g1", "g2", "g3", "g4"], ["ana", "ben"], 1, 7,
                       order="informative", draws=DRAWS)  # fmt: skip
    return store


def test_the_draws_are_recorded_and_only_drawn_units_are_queued(tmp_path: Path) -> None:
    store = _store(tmp_path / "s.db")
    assert store.schema_version == SCHEMA_VERSION
    frame = store.draws()
    assert frame.rows() == [
        ("g1", "informative", 0.25, True, 6.0, 2.0),
        ("g2", "informative", 0.5, False, 3.0, 0.5),
        ("g3", "informative", 1.0, True, None, None),
        ("g4", "informative", 0.125, True, 4.5, 0.0),
    ]
    session = store.session()
    assert session is not None
    assert sorted(g for q in session.queues.values() for g in q) == ["g1", "g3", "g4"]


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_draws_survive_a_backup_restore_and_a_second_restore_adds_nothing(
    tmp_path: Path, fmt: str
) -> None:
    store = _store(tmp_path / "s.db")
    store.submit("ana", "g1", 4)
    store.backup(tmp_path / "b.zip", fmt=fmt)
    fresh = RatingStore(tmp_path / "fresh.db")
    added = fresh.restore(tmp_path / "b.zip")
    assert added["draws"] == 4 and added["ratings"] == 1
    assert fresh.draws().equals(store.draws())
    assert fresh.draw_order() == "informative"
    assert fresh.draw_events().drop("event_id").equals(store.draw_events().drop("event_id"))
    assert fresh.restore(tmp_path / "b.zip")["draws"] == 0


def test_a_merge_into_the_same_session_keeps_one_draw_per_unit(tmp_path: Path) -> None:
    """The store restored from its own backup (the same uids) holds each draw once."""
    store = _store(tmp_path / "s.db")
    store.backup(tmp_path / "b")
    assert store.restore(tmp_path / "b")["draws"] == 0
    assert store.draw_events().height == 4


def test_a_bad_probability_in_a_backup_is_named(tmp_path: Path) -> None:
    store = _store(tmp_path / "s.db")
    store.backup(tmp_path / "b", fmt="csv")
    path = tmp_path / "b" / "draws.csv"
    path.write_text(path.read_text().replace(",0.25,", ",1.5,"))
    with pytest.raises(InputError, match="probability"):
        RatingStore(tmp_path / "fresh.db").restore(tmp_path / "b")


def test_the_probability_of_being_rated_thins_the_draw_by_the_share_rated() -> None:
    """Three units drawn, one rated: every probability is a third of its draw's."""
    got = effective_probabilities({"a": 0.9, "b": 0.3, "c": 0.6, "d": 0.2}, ["a", "b", "c"],
                                  ["b"])  # fmt: skip
    assert got == pytest.approx({"a": 0.3, "b": 0.1, "c": 0.2, "d": 0.2 / 3})


def test_rating_probabilities_of_the_store(tmp_path: Path) -> None:
    store = _store(tmp_path / "s.db")
    store.submit("ana", "g1", 4)
    store.submit("ben", "g3", 2)
    got = store.rating_probabilities(["g1", "g3"])
    assert got == pytest.approx({"g1": 0.25 * 2 / 3, "g2": 0.5 * 2 / 3, "g3": 2 / 3,
                                 "g4": 0.125 * 2 / 3})  # fmt: skip
