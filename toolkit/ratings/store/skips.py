"""A rater's skips: a game or persona item they passed over, with their reason. A skip
is no rating and touches no draft; the latest skip per rater and unit is the one shown."""

from __future__ import annotations

import polars as pl

from toolkit.ratings.store.connection import Connections
from toolkit.ratings.store.rows import checked_text, now_stamp

#: A skip's reason is refused above this many characters.
MAX_SKIP_REASON_CHARS = 2_000


class Skips(Connections):
    """Recording a skip and reading the skips back."""

    def save_skip(self, rater: str, unit_id: str, reason: str) -> int:
        """Append ``rater``'s skip of ``unit_id`` (a game or persona item) with ``reason``;
        returns its event id once committed.

        Raises:
            InputError: a missing rater, unit id or reason.
        """
        row = (
            checked_text(self._name, rater, "rater"),
            checked_text(self._name, unit_id, "unit_id"),
            checked_text(self._name, reason, "reason"),
            now_stamp(),
        )
        return self._append("skip_events", ("rater", "unit_id", "reason", "created_at"), row)

    def skips(self, rater: str | None = None) -> pl.DataFrame:
        """Every skip (of ``rater`` alone when given), oldest first: event_id, rater,
        unit_id, reason, created_at."""
        sql = "SELECT event_id, rater, unit_id, reason, created_at FROM skip_events"
        params: tuple[str, ...] = ()
        if rater is not None:
            sql += " WHERE rater = ?"
            params = (rater,)
        with self._connect() as con:
            rows = con.execute(sql + " ORDER BY event_id", params).fetchall()
        schema = {"event_id": pl.Int64, "rater": pl.Utf8, "unit_id": pl.Utf8,
                  "reason": pl.Utf8, "created_at": pl.Utf8}  # fmt: skip
        return pl.DataFrame(rows, schema=schema, orient="row")
