"""What a rater saves: a draft of the form, a rating of a game (1-5) or of a persona
item (0-9), and several saves in one transaction (the server's group commit)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolkit.errors import InputError
from toolkit.ratings.store.connection import Connections
from toolkit.ratings.store.rows import (
    HEX,
    ITEM_SCORE_RULE,
    check_answers,
    check_item_score,
    check_score,
    checked_text,
    now_stamp,
)
from toolkit.ratings.store.schema import ITEM_COLUMNS, RATING_COLUMNS

#: A rating is recorded after every rating the store holds (``seq``: the order of
#: submission, which decides the rating that counts, whatever the clocks say).
_INSERT_RATING = (
    f"INSERT INTO rating_events ({', '.join(RATING_COLUMNS)}, seq) "
    f"VALUES ({', '.join('?' for _ in RATING_COLUMNS)}, "
    "(SELECT coalesce(max(seq), 0) + 1 FROM rating_events))"
)
_INSERT_ITEM_RATING = (
    f"INSERT INTO item_rating_events ({', '.join(ITEM_COLUMNS)}, seq) "
    f"VALUES ({', '.join('?' for _ in ITEM_COLUMNS)}, "
    "(SELECT coalesce(max(seq), 0) + 1 FROM item_rating_events))"
)
_UPSERT_ITEM_DRAFT = (
    "INSERT INTO item_drafts (rater, item_id, score, notes, text_sha256, updated_at) "
    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (rater, item_id) DO UPDATE SET "
    "score = excluded.score, notes = excluded.notes, text_sha256 = excluded.text_sha256, "
    "updated_at = excluded.updated_at"
)
_UPSERT_DRAFT = (
    "INSERT INTO drafts (rater, transcript_id, score, answers, notes, updated_at) "
    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (rater, transcript_id) DO UPDATE SET "
    "score = excluded.score, answers = excluded.answers, notes = excluded.notes, "
    "updated_at = excluded.updated_at"
)


@dataclass(frozen=True)
class Save:
    """One save of a rater's form (see :meth:`RatingStore.save_many`): their draft of a
    game (or a persona item), or with ``submit`` their rating of it (and the draft,
    together).

    Attributes:
        rater: who saves.
        transcript_id: the game.
        score: 1-5 (a draft may have none yet; a rating must).
        answers: question key -> yes (True) / no (False) / unanswered (None).
        notes: free text.
        submit: a rating (appended to the history), not only a draft.
        instrument: a rating's instrument version (None: the store's, see
            :class:`~toolkit.ratings.store.RatingStore`).
        text_sha256: given, the save is of a persona item (``transcript_id`` is the
            item id): score 0-9, no answers, and this hash of the text the rater saw
            is recorded with it.
    """

    rater: str
    transcript_id: str
    score: int | None = None
    answers: Mapping[str, bool | None] | None = None
    notes: str = ""
    submit: bool = False
    instrument: str | None = None
    text_sha256: str | None = None


class Saves(Connections):
    """Saving a rater's form: drafts and ratings, one by one or many in one transaction."""

    def save_rating(
        self,
        rater: str,
        transcript_id: str,
        score: int,
        answers: Mapping[str, bool | None] | None = None,
        notes: str = "",
        *,
        instrument: str | None = None,
    ) -> int:
        """Append one rating event; returns its event id once it is committed.

        Args:
            rater: who rated (non-empty).
            transcript_id: the game id rated.
            score: 1-5.
            answers: evaluation-question key -> True (yes) / False (no); None = unanswered.
            notes: free text.
            instrument: the version of the engagement instrument the rater saw (stamped
                into the rating); None = the store's (the one its caller opened it with;
                "" when none was given: the rating says its instrument is not known).

        Raises:
            InputError: a missing rater or transcript id, a score outside 1-5, bad answers.
        """
        row = self._rating_row(rater, transcript_id, score, answers, notes, instrument)
        with self._write() as con:
            event_id = con.execute(_INSERT_RATING, row).lastrowid
        assert event_id is not None
        return int(event_id)

    def _rating_row(
        self,
        rater: str,
        transcript_id: str,
        score: int,
        answers: Mapping[str, bool | None] | None,
        notes: str,
        instrument: str | None,
    ) -> tuple[Any, ...]:
        stamp = instrument or self._instrument
        return (
            str(uuid.uuid4()),
            checked_text(self._name, rater, "rater"),
            checked_text(self._name, transcript_id, "transcript_id"),
            check_score(self._name, score),
            check_answers(self._name, answers),
            notes if isinstance(notes, str) else str(notes),
            now_stamp(),
            checked_text(self._name, stamp, "instrument") if stamp else "",
        )

    def save_draft(
        self,
        rater: str,
        transcript_id: str,
        score: int | None = None,
        answers: Mapping[str, bool | None] | None = None,
        notes: str = "",
    ) -> str:
        """Save what ``rater`` has on the form for ``transcript_id`` (replacing their
        previous draft of it); committed before it returns.

        Returns:
            When it was saved (UTC, ISO 8601).

        Raises:
            InputError: a missing rater or transcript id, a score outside 1-5, bad answers.
        """
        return str(self.save_many([Save(rater, transcript_id, score, answers, notes)])[0])

    def save_many(self, saves: Sequence[Save]) -> list[int | str]:
        """Apply several saves in order in one transaction (one commit, one sync to disk):
        all of them or, on any error, none. A server gathers the saves that arrive while
        the previous commit is being written (group commit).

        Returns:
            Per save: a rating's event id (``submit``), or a draft's time saved.

        Raises:
            InputError: a bad save (checked before anything is written), or the store
                refused the transaction.
        """
        prepared: list[tuple[str, tuple[Any, ...]]] = []
        for save in saves:
            if save.text_sha256 is not None:
                prepared.append(self._item_save(save))
                continue
            if save.submit:
                if save.score is None:
                    raise InputError(
                        self._name, "score must be a whole number from 1 to 5", field="score"
                    )
                row = self._rating_row(
                    save.rater, save.transcript_id, save.score, save.answers, save.notes,
                    save.instrument,
                )  # fmt: skip
            else:
                row = (
                    checked_text(self._name, save.rater, "rater"),
                    checked_text(self._name, save.transcript_id, "transcript_id"),
                    None if save.score is None else check_score(self._name, save.score),
                    check_answers(self._name, save.answers),
                    save.notes if isinstance(save.notes, str) else str(save.notes),
                    now_stamp(),
                )
            prepared.append(("rating" if save.submit else "draft", row))
        out: list[int | str] = []
        with self._write() as con:
            for what, row in prepared:
                if what == "rating":
                    event_id = con.execute(_INSERT_RATING, row).lastrowid
                    assert event_id is not None
                    con.execute(_UPSERT_DRAFT, (*row[1:6], row[6]))
                    out.append(int(event_id))
                elif what == "item rating":
                    event_id = con.execute(_INSERT_ITEM_RATING, row).lastrowid
                    assert event_id is not None
                    con.execute(_UPSERT_ITEM_DRAFT, row[1:])
                    out.append(int(event_id))
                elif what == "item draft":
                    con.execute(_UPSERT_ITEM_DRAFT, row)
                    out.append(str(row[-1]))
                else:
                    con.execute(_UPSERT_DRAFT, row)
                    out.append(str(row[-1]))
        return out

    def _item_save(self, save: Save) -> tuple[str, tuple[Any, ...]]:
        """A persona item's save, checked: 0-9 (or none yet on a draft), no answers, a
        SHA-256 of the text rated."""
        name = self._name
        digest = save.text_sha256
        if not isinstance(digest, str) or len(digest) != 64 or not set(digest) <= HEX:
            raise InputError(
                name, "text_sha256 must be 64 lowercase hex digits", field="text_sha256",
                value=digest,
            )  # fmt: skip
        if save.answers:
            raise InputError(name, "an item rating has no answers", field="answers",
                             value=dict(save.answers))  # fmt: skip
        if save.submit and save.score is None:
            raise InputError(name, ITEM_SCORE_RULE, field="score")
        score = None if save.score is None else check_item_score(name, save.score)
        rater = checked_text(name, save.rater, "rater")
        item = checked_text(name, save.transcript_id, "item_id")
        notes = save.notes if isinstance(save.notes, str) else str(save.notes)
        if save.submit:
            row = (str(uuid.uuid4()), rater, item, score, notes, digest, now_stamp())
            return "item rating", row
        return "item draft", (rater, item, score, notes, digest, now_stamp())

    def submit(
        self,
        rater: str,
        transcript_id: str,
        score: int,
        answers: Mapping[str, bool | None] | None = None,
        notes: str = "",
        *,
        instrument: str | None = None,
    ) -> int:
        """Save ``rater``'s rating of ``transcript_id`` and their draft of it together (one
        transaction: both or neither); returns the rating's event id once committed.

        Raises:
            InputError: as :meth:`save_rating`.
        """
        save = Save(rater, transcript_id, score, answers, notes, True, instrument)
        return int(self.save_many([save])[0])
