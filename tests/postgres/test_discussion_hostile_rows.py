"""Hostile rows in a 2L PostgreSQL database, each against the real server: values
PostgreSQL holds that no game has (an infinite time, a round beyond 64 bits, NaN), and a
``--since`` at the edge of the calendar. One line, exit 2, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from pg_cluster import Cluster

from .test_discussion_bad_input import SQL, db_with, refused, run_cli


#: Found in review: ``numeric`` NaN or 1e30 made Polars panic building the frame (a Rust
#: backtrace and a Python traceback); ``infinity`` named the table but not the column.
@pytest.mark.parametrize(
    ("name", "sql", "said"),
    [
        (
            "inf_time",
            """UPDATE "Game" SET "createdAt" = 'infinity' WHERE id = 'base-7-3';""",
            "Game.createdAt='infinity': a value this reader cannot hold",
        ),
        (
            "huge_round",
            'ALTER TABLE "DiscussionMessage" ALTER "roundNumber" TYPE numeric;'
            """UPDATE "DiscussionMessage" SET "roundNumber" = 1e30 WHERE id = 'base-7-2-m07';""",
            "roundNumber",
        ),
        (
            "nan_round",
            'ALTER TABLE "DiscussionMessage" ALTER "roundNumber" TYPE numeric;'
            """UPDATE "DiscussionMessage" SET "roundNumber" = 'NaN' WHERE id = 'base-7-2-m07';""",
            "roundNumber",
        ),
    ],
)
def test_a_value_postgres_holds_but_no_game_has_is_one_line(
    pg_server: Cluster, tmp_path: Path, name: str, sql: str, said: str
) -> None:
    url = db_with(pg_server, name, tmp_path, sql)
    line = refused(url, pg_server.guest_password, tmp_path)
    assert said in line and "\n" not in line


def test_a_since_before_the_calendar_in_utc_is_one_line(pg_server: Cluster) -> None:
    """Found in review: year 1 at +01:00 is before what a UTC time holds, and converting
    it raised OverflowError (a traceback)."""
    url = pg_server.make_database("since_edge", [SQL])
    done = run_cli("discussion", url, "--since", "0001-01-01T00:00:00+01:00")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip() == (
        "toolkit discussion: error: --since='0001-01-01T00:00:00+01:00': before or after "
        "the years a time in UTC holds (1 to 9999)"
    )


def test_a_message_with_terminal_escapes_does_not_reach_the_terminal_raw(
    pg_server: Cluster, tmp_path: Path
) -> None:
    url = db_with(
        pg_server, "esc_msg", tmp_path,
        """UPDATE "DiscussionMessage" SET message = E'hi \\x1b[2J\\x1b]0;pwned\\x07 \\u202eevil'
           WHERE id = 'base-7-1-m03';""",
    )  # fmt: skip
    done = run_cli("discussion", url)
    assert "\x1b[2J" not in done.stdout + done.stderr
    assert "\u202e" not in done.stdout + done.stderr
