"""A rater's skips: a game or persona item they passed over, with their reason. A skip
is no rating and touches no draft; the latest skip per rater and unit is the one shown."""

from __future__ import annotations

import uuid

import polars as pl

from toolkit.ratings.store.connection import Connections
from toolkit.ratings.store.rows import checked_text, now_stamp

#: A skip's reason is refused above this many characters.
MAX_SKIP_REASON_CHARS = 2_000

#: The columns of :meth:`Skips.skips`.
SKIPS_SCHEMA: dict[str, pl.DataType] = {
    "event_id": pl.Int64(), "uid": pl.Utf8(), "rater": pl.Utf8(), "unit_id": pl.Utf8(),
    "reason": pl.Utf8(), "created_at": pl.Utf8(),
}  # fmt: skip
#: The columns of the ``skips`` export: :data:`SKIPS_SCHEMA` and each skip's ``origin``
#: ("" for the store's own session, else the session of a backup it was imported from).
SKIP_EXPORT_SCHEMA: dict[str, pl.DataType] = {**SKIPS_SCHEMA, "origin": pl.Utf8()}


class Skips(Connections):
    """Recording a skip and reading the skips back."""

    def save_skip(self, rater: str, unit_id: str, reason: str) -> int:
        """Append ``rater``'s skip of ``unit_id`` (a game or persona item) with ``reason``
        (under a fresh unique id, as every event); returns its event id once committed.

        Raises:
            InputError: a missing rater, unit id or reason.
        """
        row = (
            str(uuid.uuid4()),
            checked_text(self._name, rater, "rater"),
            checked_text(self._name, unit_id, "unit_id"),
            checked_text(self._name, reason, "reason"),
            now_stamp(),
        )
        return self._append("skip_events", ("uid", "rater", "unit_id", "reason", "created_at"), row)

    def skips(self, rater: str | None = None) -> pl.DataFrame:
        """Every skip of this store's session (of ``rater`` alone when given), oldest
        first: event_id, uid, rater, unit_id, reason, created_at. Skips another session's
        backup brought in are kept for the record and left out here."""
        sql = (
            "SELECT event_id, uid, rater, unit_id, reason, created_at FROM skip_events "
            "WHERE origin = ''"
        )
        params: tuple[str, ...] = ()
        if rater is not None:
            sql += " AND rater = ?"
            params = (rater,)
        with self._connect() as con:
            rows = con.execute(sql + " ORDER BY event_id", params).fetchall()
        return pl.DataFrame(rows, schema=SKIPS_SCHEMA, orient="row")

    def skip_events(self) -> pl.DataFrame:
        """Every skip the store holds, other sessions' included, oldest first: the
        ``skips`` export (:data:`SKIP_EXPORT_SCHEMA`)."""
        with self._connect() as con:
            rows = con.execute(
                "SELECT event_id, uid, rater, unit_id, reason, created_at, origin "
                "FROM skip_events ORDER BY event_id"
            ).fetchall()
        return pl.DataFrame(rows, schema=SKIP_EXPORT_SCHEMA, orient="row")
