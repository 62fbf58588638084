"""Hostile values in a reviewers' labels file (``iter-N.labels.yaml``): never a
traceback, every value the reader cannot use named with its field."""

from __future__ import annotations

import datetime as dt
from typing import Any

from toolkit.load.labels import label_rows

EARLY = dt.datetime(1, 1, 1, 0, 30, tzinfo=dt.timezone(dt.timedelta(hours=1)))
LATE = dt.datetime(9999, 12, 31, 23, 59, tzinfo=dt.timezone(dt.timedelta(hours=-1)))


def _file(**label: Any) -> dict[str, Any]:
    edit = {
        "actor": "ana",
        "role": "reviewer",
        "timestamp": label.pop("timestamp", "2026-06-02T09:15:00Z"),
        "structured": {"correctness": 2, "scope_judgement": "partial", "hallucination": "none"},
    }
    base = {"id": "a" * 32, "iteration": 4, "actor": "ana", "role": "reviewer", "history": [edit]}
    return {"iteration": 4, "schema_version": "1.0", "labels": [{**base, **label}]}


def test_a_time_beyond_the_years_utc_holds_is_named_and_the_label_read_without_it() -> None:
    """Found by fuzzing: year 1 at +01:00 (and 9999-12-31 at -01:00) is before (after)
    what a UTC datetime holds, and converting it raised OverflowError out of the loader.
    Now each such time is left out, and named as a problem with its field."""
    data = _file(timestamp=EARLY, created_at=EARLY, updated_at=LATE)
    rows, problems = label_rows(data, 4, "iter-4.labels.yaml", lambda path: 7)
    assert len(rows) == 1
    assert (rows[0]["created_at"], rows[0]["updated_at"], rows[0]["edited_at"]) == (
        None, None, None,
    )  # fmt: skip
    assert rows[0]["correctness"] == 2  # the answers still count
    said = [reason for _line, reason in problems]
    assert any(r.startswith("labels.0.created_at=") and "not a time" in r for r in said)
    assert any(r.startswith("labels.0.updated_at=") and "not a time" in r for r in said)
    assert any(r.startswith("labels.0.history.0.timestamp=") and "not a time" in r for r in said)


def test_a_time_that_is_not_one_is_named_not_dropped_silently() -> None:
    rows, problems = label_rows(
        _file(created_at="yesterday"), 4, "iter-4.labels.yaml", lambda path: 7
    )
    assert rows[0]["created_at"] is None
    assert [r for _l, r in problems if "created_at" in r] == [
        "labels.0.created_at='yesterday': not a time (RFC 3339, within the years 1 to 9999 "
        "in UTC); read without it"
    ]


def test_a_bare_date_is_midnight_utc() -> None:
    """yaml.v3 reads ``2026-06-02`` into a time.Time at midnight UTC; so does the reader
    (it was dropped silently before)."""
    rows, problems = label_rows(
        _file(created_at=dt.date(2026, 6, 2)), 4, "iter-4.labels.yaml", lambda path: 7
    )
    assert rows[0]["created_at"] == dt.datetime(2026, 6, 2, tzinfo=dt.UTC)
    assert problems == []
