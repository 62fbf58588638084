"""A restored backup's times at the edges of the calendar: one line naming the file,
the field and the value; the store left as it was."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.errors import InputError
from toolkit.ratings.store import RatingStore
from toolkit.ratings.store.rows import utc_stamp

EDGES = ["0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00"]


@pytest.mark.parametrize("stamp", EDGES)
def test_a_rating_stamped_outside_utcs_years_is_one_line(tmp_path: Path, stamp: str) -> None:
    """Found in review: converting the stamp to UTC raised OverflowError out of restore
    (a traceback from toolkit rate --restore)."""
    store = RatingStore(tmp_path / "s.db")
    store.open_session(["g1", "g2"], ["ana", "ben"], 2, 1)
    store.submit("ana", "g1", 2)
    folder = tmp_path / "b"
    store.backup(folder, fmt="csv")
    ratings = pl.read_csv(folder / "ratings.csv", infer_schema=False)
    ratings.with_columns(created_at=pl.lit(stamp)).write_csv(folder / "ratings.csv")
    with pytest.raises(InputError) as caught:
        store.restore(folder)
    line = str(caught.value)
    assert "\n" not in line and "ratings.csv" in line and f"created_at={stamp!r}" in line
    assert store.latest().height == 1


@pytest.mark.parametrize("stamp", EDGES)
def test_a_draft_stamped_outside_utcs_years_is_one_line(tmp_path: Path, stamp: str) -> None:
    store = RatingStore(tmp_path / "s.db")
    folder = tmp_path / "b"
    folder.mkdir()
    (folder / "drafts.csv").write_text(
        "kind,rater,id,score,answers,notes,text_sha256,updated_at\n"
        f"game,ana,g1,5,{{}},edge,,{stamp}\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError) as caught:
        store.restore(folder)
    line = str(caught.value)
    assert "\n" not in line and "drafts.csv" in line and f"updated_at={stamp!r}" in line
    assert store.draft("ana", "g1") is None


_OFFSETS = st.integers(-(24 * 60 - 1), 24 * 60 - 1).map(
    lambda m: dt.timezone(dt.timedelta(minutes=m))
)


@settings(max_examples=300, deadline=None)
@given(moment=st.datetimes(timezones=st.one_of(st.none(), _OFFSETS)))
def test_any_iso_time_is_a_utc_stamp_or_one_line(moment: dt.datetime) -> None:
    """Every time ISO-8601 can write, at any offset: the UTC stamp (equal instant, in
    the store's form) or, outside UTC's years, one InputError naming the field."""
    text = moment.isoformat()
    try:
        stamp = utc_stamp("f.csv", text, "created_at", text, 3)
    except InputError as exc:
        assert str(exc) == f"f.csv:3: created_at={text!r}: outside the years 1 to 9999 in UTC"
        return
    back = dt.datetime.fromisoformat(stamp)
    assert back.utcoffset() == dt.timedelta(0)
    assert back == (moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC))
