"""``--window`` (the-office) at the edges of the calendar: one line naming the flag and
its value, never an OverflowError."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from toolkit.errors import InputError
from toolkit.load.persona.office_db import parse_window

NOW = datetime(2026, 6, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    "text",
    [
        "0001-01-01T00:00:00+01:00..2026-01-01",  # before year 1 in UTC
        "2026-01-01..9999-12-31",  # END's whole day ends after 9999
        "2026-01-01..9999-12-31T23:59:59-01:00",  # after 9999 in UTC
        "99999999999d",  # beyond a timedelta
        "999999w",  # before year 1
    ],
)
def test_a_window_beyond_the_calendar_is_one_line(text: str) -> None:
    """Found in review: each raised OverflowError (a traceback from toolkit persona)."""
    with pytest.raises(InputError) as caught:
        parse_window(text, now=NOW)
    line = str(caught.value)
    assert line.startswith(f"--window={text!r}: ") and "\n" not in line
    assert "the years 1 to 9999" in line


def test_a_window_up_to_the_last_day_a_time_holds_still_reads() -> None:
    assert parse_window("2026-01-01..9999-12-30", now=NOW).end == datetime(9999, 12, 31, tzinfo=UTC)
