"""The submitted ratings a store holds, of games (1-5) and of persona items (0-9): the
whole history, the latest per rater, as the discussion rubric reads them; each value
checked as it is read."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

import polars as pl

from toolkit.errors import InputError
from toolkit.frames import (
    DISCUSSION_RATINGS_SCHEMA,
    ITEM_RATING_EVENTS_SCHEMA,
    RATING_EVENTS_SCHEMA,
)
from toolkit.ratings.store.connection import Connections
from toolkit.ratings.store.rows import MAX_SCORE, MIN_SCORE, item_score_ok, rows_frame
from toolkit.ratings.store.schema import ITEM_COLUMNS, RATING_COLUMNS

_RATING_SELECT = ", ".join(("event_id", *RATING_COLUMNS))


class Ratings(Connections):
    """Reading the ratings back: games' and persona items'."""

    def events(self) -> pl.DataFrame:
        """Every rating event of this store's session ever saved, oldest first (another
        session's, imported as its data, are in the exports only).

        Returns:
            :data:`~toolkit.frames.RATING_EVENTS_SCHEMA` (event_id, uid, rater,
            transcript_id, score, answers, notes, created_at).
        """
        with self._connect() as con:
            rows = con.execute(
                f"SELECT {_RATING_SELECT} FROM rating_events WHERE origin = '' ORDER BY event_id"
            ).fetchall()
        return rows_frame(self._checked(rows), RATING_EVENTS_SCHEMA)

    def latest(self, rater: str | None = None) -> pl.DataFrame:
        """The rating that counts per rater and transcript: the latest submitted (in the order
        the store recorded them, ``seq``; never by the clocks' stamps), optionally for one rater.

        Returns:
            :data:`~toolkit.frames.RATING_EVENTS_SCHEMA`, one row per rater and transcript.
        """
        where, params = ("AND rater = ?", (rater,)) if rater is not None else ("", ())
        with self._connect() as con:
            rows = con.execute(
                f"SELECT {_RATING_SELECT} "
                "FROM (SELECT *, row_number() OVER (PARTITION BY rater, transcript_id "
                "ORDER BY seq DESC, event_id DESC) AS rank FROM rating_events "
                f"WHERE origin = '' {where}) WHERE rank = 1 ORDER BY transcript_id, rater",
                params,
            ).fetchall()
        return rows_frame(self._checked(rows), RATING_EVENTS_SCHEMA)

    def _checked(
        self,
        rows: Sequence[Sequence[Any]],
        table: str = "rating_events",
        schema: Mapping[str, Any] = RATING_EVENTS_SCHEMA,
        score_ok: Callable[[Any], bool] = lambda v: type(v) is int and MIN_SCORE <= v <= MAX_SCORE,
    ) -> list[Sequence[Any]]:
        """Rating rows of ``table`` as read, each value of the type and range it must have;
        anything else (a flipped byte, a file edited by hand) is a damaged store, named."""
        for row in rows:
            for field, value in zip(schema, row, strict=True):
                if field == "score":
                    ok = score_ok(value)
                elif field == "event_id":
                    ok = type(value) is int
                else:
                    ok = isinstance(value, str)
                if field == "created_at" and ok:
                    try:
                        datetime.fromisoformat(value)
                    except ValueError:
                        ok = False
                if not ok:
                    raise InputError(
                        self._name,
                        "damaged ratings store: a stored rating holds a value it cannot have",
                        field=f"{table}.{field}",
                        value=value,
                    )
        return list(rows)

    def _checked_items(self, rows: Sequence[Sequence[Any]]) -> list[Sequence[Any]]:
        """Persona item rating rows as read, checked as :meth:`_checked` checks games'."""
        return self._checked(
            rows,
            "item_rating_events",
            ITEM_RATING_EVENTS_SCHEMA,
            lambda v: item_score_ok(v, none_ok=False),
        )

    def rated_ids(self, rater: str) -> set[str]:
        """The transcripts ``rater`` has a rating of (any; the latest counts).

        Raises:
            InputError: the store cannot be read.
        """
        with self._connect() as con:
            rows = con.execute(
                "SELECT DISTINCT transcript_id FROM rating_events WHERE rater = ? AND origin = ''",
                (rater,),
            ).fetchall()
        return {str(r[0]) for r in rows}

    def rater_name(self, name: str) -> str:
        """The name ``name`` is saved under: rater names match ignoring case (``ana`` is
        ``Ana``), and the spelling of that rater's first saved rating is kept.

        Returns:
            The stored spelling, or ``name`` stripped when this rater has saved nothing.
        """
        wanted = name.strip()
        with self._connect() as con:
            raters = con.execute(
                "SELECT rater FROM rating_events WHERE origin = '' GROUP BY rater "
                "ORDER BY min(event_id)"
            ).fetchall()
        key = wanted.casefold()
        return next((str(r) for (r,) in raters if str(r).casefold() == key), wanted)

    def ratings(self, game_ids: Sequence[str] | None = None) -> pl.DataFrame:
        """The ratings that count, as the discussion rubric reads them.

        Returns:
            :data:`~toolkit.frames.DISCUSSION_RATINGS_SCHEMA` (game_id, rater, score).
        """
        frame = self.latest().select(
            pl.col("transcript_id").alias("game_id"), "rater", pl.col("score").cast(pl.Float64)
        )
        if game_ids is not None:
            frame = frame.filter(pl.col("game_id").is_in(list(game_ids)))
        return frame.cast(DISCUSSION_RATINGS_SCHEMA)  # type: ignore[arg-type]

    def item_latest(self, rater: str | None = None) -> pl.DataFrame:
        """The persona item rating that counts per rater and item: the latest submitted
        (in the order the store recorded them, ``seq``), optionally for one rater.

        Returns:
            :data:`~toolkit.frames.ITEM_RATING_EVENTS_SCHEMA` (event_id, uid, rater,
            item_id, score 0-9, notes, text_sha256, created_at), sorted by item, rater.
        """
        where, params = ("AND rater = ?", (rater,)) if rater is not None else ("", ())
        cols = ", ".join(("event_id", *ITEM_COLUMNS))
        with self._connect() as con:
            rows = con.execute(
                f"SELECT {cols} FROM (SELECT *, row_number() OVER (PARTITION BY rater, item_id "
                "ORDER BY seq DESC, event_id DESC) AS rank FROM item_rating_events "
                f"WHERE origin = '' {where}) WHERE rank = 1 ORDER BY item_id, rater",
                params,
            ).fetchall()
        return rows_frame(self._checked_items(rows), ITEM_RATING_EVENTS_SCHEMA)

    def item_rated_ids(self, rater: str) -> set[str]:
        """The persona items ``rater`` has a rating of."""
        with self._connect() as con:
            rows = con.execute(
                "SELECT DISTINCT item_id FROM item_rating_events WHERE rater = ? AND origin = ''",
                (rater,),
            ).fetchall()
        return {str(r[0]) for r in rows}

    def item_events(self) -> pl.DataFrame:
        """Every persona item rating of this store's session ever saved, oldest first
        (the whole history; another session's are in the exports only).

        Returns:
            :data:`~toolkit.frames.ITEM_RATING_EVENTS_SCHEMA` (event_id, uid, rater,
            item_id, score 0-9, notes, text_sha256, created_at).
        """
        cols = ", ".join(("event_id", *ITEM_COLUMNS))
        with self._connect() as con:
            rows = con.execute(
                f"SELECT {cols} FROM item_rating_events WHERE origin = '' ORDER BY event_id"
            ).fetchall()
        return rows_frame(self._checked_items(rows), ITEM_RATING_EVENTS_SCHEMA)
