"""The organiser's adjudications: where raters disagree, the value the organiser decided
for a unit (a game or a persona item) and question, with a note, who decided and when.

Kept **beside** the raters' ratings, never over them: an adjudication is an event of its
own table (``adjudication_events``, append-only); the raters' ratings, the agreement and
``toolkit calibrate`` read only the ratings. The latest adjudication per unit and question
in the store's order of submission (``seq``) is the one that counts.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import polars as pl

from toolkit.errors import InputError
from toolkit.ratings.store.connection import Connections
from toolkit.ratings.store.rows import checked_text, now_stamp

#: An adjudication's note is refused above this many characters (as a rater's notes).
MAX_ADJUDICATION_NOTE_CHARS = 20_000
#: Names (the adjudicator) and question keys are refused above this many characters.
MAX_NAME_CHARS = 200

#: The question of an adjudication that decides the score (any other question is a key
#: of the instrument's yes/no questions).
SCORE_QUESTION = "score"

#: The columns of :meth:`Adjudications.adjudications` and of the ``adjudications`` export.
ADJUDICATION_SCHEMA: dict[str, pl.DataType] = {
    "event_id": pl.Int64(), "uid": pl.Utf8(), "unit_id": pl.Utf8(), "question": pl.Utf8(),
    "value": pl.Utf8(), "note": pl.Utf8(), "adjudicator": pl.Utf8(), "created_at": pl.Utf8(),
}  # fmt: skip
ADJUDICATION_EXPORT_SCHEMA: dict[str, pl.DataType] = {
    **ADJUDICATION_SCHEMA, "seq": pl.Int64(), "origin": pl.Utf8(),
}  # fmt: skip
#: The columns an adjudication is written with (``uid`` first, as the merge wants).
ADJUDICATION_COLUMNS = ("uid", "unit_id", "question", "value", "note", "adjudicator", "created_at")

_INSERT = (
    f"INSERT INTO adjudication_events ({', '.join(ADJUDICATION_COLUMNS)}, seq) "
    f"VALUES ({', '.join('?' for _ in ADJUDICATION_COLUMNS)}, "
    "(SELECT coalesce(max(seq), 0) + 1 FROM adjudication_events))"
)


def check_value(name: str, question: str, value: Any, line: int | None = None) -> str:
    """``value`` as stored (JSON): a whole number for ``score``, true/false for a question.

    Raises:
        InputError: a score that is not a whole number from 0 to 9 (the scale's own range
            is checked by the caller, which knows the session), an answer not a bool.
    """
    if question == SCORE_QUESTION:
        if type(value) is not int or not 0 <= value <= 9:
            raise InputError(name, "an adjudicated score is a whole number on the scale",
                             field="value", value=value, line=line)  # fmt: skip
        return json.dumps(value)
    if type(value) is not bool:
        raise InputError(name, "an adjudicated answer is true or false", field="value",
                         value=value, line=line)  # fmt: skip
    return json.dumps(value)


def check_short(name: str, value: Any, field: str, line: int | None = None) -> str:
    """A non-empty name of at most :data:`MAX_NAME_CHARS` characters, valid Unicode."""
    text = checked_text(name, value, field)
    if len(text) > MAX_NAME_CHARS:
        raise InputError(name, f"at most {MAX_NAME_CHARS} characters", field=field,
                         value=text[:40] + "...", line=line)  # fmt: skip
    return _unicode(name, text, field, line)


def check_note(name: str, note: Any, line: int | None = None) -> str:
    """A note: text of at most :data:`MAX_ADJUDICATION_NOTE_CHARS` characters."""
    if not isinstance(note, str) or len(note) > MAX_ADJUDICATION_NOTE_CHARS:
        raise InputError(name, f"a note is text of at most {MAX_ADJUDICATION_NOTE_CHARS} "
                         "characters", field="note", line=line)  # fmt: skip
    return _unicode(name, note, "note", line)


def _unicode(name: str, text: str, field: str, line: int | None) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate is no character
        raise InputError(name, "not valid Unicode (a lone surrogate)", field=field,
                         line=line) from None  # fmt: skip
    return text


class Adjudications(Connections):
    """Recording the organiser's adjudication and reading them back."""

    def adjudicate(
        self, unit_id: str, question: str, value: int | bool, note: str, adjudicator: str
    ) -> int:
        """Append the organiser's decision on ``question`` (``score`` or an instrument
        question's key) of ``unit_id`` (a game or persona item), beside the raters'
        ratings (which stay as they were); returns its event id once committed.

        Raises:
            InputError: an empty id, question or adjudicator, a value of the wrong kind, a
                note too long.
        """
        question = check_short(self._name, question, "question")
        row = (
            str(uuid.uuid4()),
            check_short(self._name, unit_id, "unit_id"),
            question,
            check_value(self._name, question, value),
            check_note(self._name, note),
            check_short(self._name, adjudicator, "adjudicator"),
            now_stamp(),
        )
        with self._write() as con:  # after every adjudication the store holds (``seq``)
            event_id = con.execute(_INSERT, row).lastrowid
        assert event_id is not None
        return int(event_id)

    def adjudications(self, *, history: bool = False) -> pl.DataFrame:
        """The adjudications of this store's session (:data:`ADJUDICATION_SCHEMA`;
        ``value`` is JSON: a score or true/false): the one that counts per unit and
        question (the latest the store recorded), or with ``history`` every one, oldest
        first. Another session's (imported with its backup) are left out."""
        counting = "" if history else "WHERE rank = 1"
        with self._connect() as con:
            rows = con.execute(
                f"SELECT {', '.join(ADJUDICATION_SCHEMA)} FROM (SELECT *, row_number() OVER "
                "(PARTITION BY unit_id, question ORDER BY seq DESC, event_id DESC) AS rank "
                f"FROM adjudication_events WHERE origin = '') {counting} ORDER BY seq, event_id"
            ).fetchall()
        return pl.DataFrame(rows, schema=ADJUDICATION_SCHEMA, orient="row")

    def adjudication_events(self) -> pl.DataFrame:
        """Every adjudication the store holds, other sessions' included, with its place
        in the store's order (``seq``) and ``origin``: the ``adjudications`` export."""
        with self._connect() as con:
            rows = con.execute(
                f"SELECT {', '.join(ADJUDICATION_EXPORT_SCHEMA)} FROM adjudication_events "
                "ORDER BY event_id"
            ).fetchall()
        return pl.DataFrame(rows, schema=ADJUDICATION_EXPORT_SCHEMA, orient="row")
