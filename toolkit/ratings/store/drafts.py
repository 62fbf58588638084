"""The drafts a store holds: what each rater has on the form for a game or a persona
item, saved as they go (not a rating yet), read back checked."""

from __future__ import annotations

import json
from dataclasses import dataclass

import polars as pl

from toolkit.errors import InputError
from toolkit.frames import DRAFT_EXPORT_SCHEMA
from toolkit.ratings.store.connection import Connections
from toolkit.ratings.store.rows import MAX_SCORE, MIN_SCORE, draft_row, item_score_ok


@dataclass(frozen=True)
class Draft:
    """What a rater has on the form for one game, saved as they go (not a rating yet).

    Attributes:
        score: 1-5, or None before one is chosen.
        answers: question key -> yes (True) / no (False); unanswered left out.
        notes: free text.
        updated_at: when it was last saved (UTC, ISO 8601).
    """

    score: int | None
    answers: dict[str, bool]
    notes: str
    updated_at: str


class Drafts(Connections):
    """Reading the drafts back: one rater's, every rater's (for progress), all of them."""

    def item_draft(self, rater: str, item_id: str) -> Draft | None:
        """``rater``'s draft of the persona item ``item_id`` (answers empty), or None.

        Raises:
            InputError: the store cannot be read, or the draft's values are damaged.
        """
        with self._connect() as con:
            row = con.execute(
                "SELECT score, notes, updated_at FROM item_drafts WHERE rater = ? AND item_id = ?",
                (rater, item_id),
            ).fetchone()
        if row is None:
            return None
        score, notes, updated = row
        if not (item_score_ok(score, none_ok=True) and isinstance(notes, str)
                and isinstance(updated, str)):  # fmt: skip
            raise InputError(
                self._name, "damaged ratings store: a stored draft holds a value it cannot have",
                field="item_drafts", value=(rater, item_id),
            )  # fmt: skip
        return Draft(score=score, answers={}, notes=notes, updated_at=updated)

    def item_drafts(self) -> pl.DataFrame:
        """Every rater's draft per persona item, without notes (what progress needs).

        Returns:
            rater, item_id, score (Int64, null before one is chosen), updated_at.
        """
        with self._connect() as con:
            rows = con.execute(
                "SELECT rater, item_id, score, updated_at FROM item_drafts ORDER BY rater, item_id"
            ).fetchall()
        for row in rows:
            texts = isinstance(row[0], str) and isinstance(row[1], str) and isinstance(row[3], str)
            if not (texts and item_score_ok(row[2], none_ok=True)):
                raise InputError(
                    self._name, "damaged ratings store: a stored draft holds a value it cannot "
                    "have", field="item_drafts", value=tuple(row[:2]),
                )  # fmt: skip
        schema = {"rater": pl.String(), "item_id": pl.String(), "score": pl.Int64(),
                  "updated_at": pl.String()}  # fmt: skip
        return pl.DataFrame(rows, schema=schema, orient="row")

    def draft(self, rater: str, transcript_id: str) -> Draft | None:
        """``rater``'s draft of ``transcript_id``, or None.

        Raises:
            InputError: the store cannot be read, or the draft's values are damaged.
        """
        with self._connect() as con:
            row = con.execute(
                "SELECT score, answers, notes, updated_at FROM drafts "
                "WHERE rater = ? AND transcript_id = ?",
                (rater, transcript_id),
            ).fetchone()
        if row is None:
            return None
        score, answers_text, notes, updated = row
        try:
            answers = json.loads(answers_text)
            ok = (
                (score is None or (type(score) is int and MIN_SCORE <= score <= MAX_SCORE))
                and isinstance(answers, dict)
                and all(isinstance(k, str) and isinstance(v, bool) for k, v in answers.items())
                and isinstance(notes, str)
                and isinstance(updated, str)
            )
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise InputError(
                self._name, "damaged ratings store: a stored draft holds a value it cannot have",
                field="drafts", value=(rater, transcript_id),
            )  # fmt: skip
        return Draft(score=score, answers=answers, notes=notes, updated_at=updated)

    def drafts(self) -> pl.DataFrame:
        """Every rater's latest draft per game, without its answers and notes (what a
        progress view needs).

        Returns:
            rater (String), transcript_id (String), score (Int64, null before one is
            chosen), updated_at (String, UTC ISO 8601); sorted by rater and game.
        """
        with self._connect() as con:
            rows = con.execute(
                "SELECT rater, transcript_id, score, updated_at FROM drafts "
                "ORDER BY rater, transcript_id"
            ).fetchall()
        schema = {
            "rater": pl.String(),
            "transcript_id": pl.String(),
            "score": pl.Int64(),
            "updated_at": pl.String(),
        }
        for row in rows:
            score = row[2]
            if not (
                isinstance(row[0], str)
                and isinstance(row[1], str)
                and isinstance(row[3], str)
                and (score is None or (type(score) is int and MIN_SCORE <= score <= MAX_SCORE))
            ):
                raise InputError(
                    self._name, "damaged ratings store: a stored draft holds a value it cannot "
                    "have", field="drafts", value=tuple(row[:2]),
                )  # fmt: skip
        return pl.DataFrame(rows, schema=schema, orient="row")

    def all_drafts(self) -> pl.DataFrame:
        """Every draft in the store, games' and persona items', whole (answers, notes).

        Returns:
            :data:`~toolkit.frames.DRAFT_EXPORT_SCHEMA` (kind ``game`` or ``item``, rater,
            id, score, answers, notes, text_sha256, updated_at), sorted by kind, rater, id.
        """
        with self._connect() as con:
            games = con.execute(
                "SELECT 'game', rater, transcript_id, score, answers, notes, NULL, updated_at "
                "FROM drafts ORDER BY rater, transcript_id"
            ).fetchall()
            items = con.execute(
                "SELECT 'item', rater, item_id, score, '{}', notes, text_sha256, updated_at "
                "FROM item_drafts ORDER BY rater, item_id"
            ).fetchall()
        for row in (*games, *items):
            try:
                draft_row(self._name, dict(zip(DRAFT_EXPORT_SCHEMA, row, strict=True)), None)
            except InputError:
                raise InputError(
                    self._name, "damaged ratings store: a stored draft holds a value it cannot "
                    "have", field=f"{'item_' if row[0] == 'item' else ''}drafts",
                    value=tuple(row[1:3]),
                ) from None  # fmt: skip
        return pl.DataFrame([*games, *items], schema=DRAFT_EXPORT_SCHEMA, orient="row")
