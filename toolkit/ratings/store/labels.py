"""Reviewers' label overrides of the discussion rubric's automatic labels, kept as
append-only events; the latest per game, kind and item counts."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

import polars as pl

from toolkit.errors import InputError
from toolkit.frames import DISCUSSION_LABELS_SCHEMA, LABEL_EVENTS_SCHEMA
from toolkit.ratings.store.connection import Connections
from toolkit.ratings.store.rows import checked_text, now_stamp, rows_frame

#: Label kinds and what ``True`` means: the message is strategic / role-consistent, the
#: memory reference is accurate; ``diversity``: a reviewer can tell this speaker (item =
#: the player's name) apart by style; ``fascinating``: the game (item ``game``) is
#: signed off as "fascinating to watch".
LABEL_KINDS: tuple[str, ...] = ("strategic", "role", "memory", "diversity", "fascinating")


class Labels(Connections):
    """Setting a reviewer's label and reading the labels back."""

    def set_label(self, reviewer: str, game_id: str, kind: str, item_id: str, label: bool) -> int:
        """Append one reviewer label over the rubric's automatic one; returns its event id.

        Args:
            reviewer: who decided.
            game_id: the game.
            kind: ``strategic`` (item = message id; True = strategic), ``role`` (message
                id; True = role-consistent), ``memory`` (reference id; True = accurate),
                ``diversity`` (item = player name; True = recognisable by style) or
                ``fascinating`` (item ``game``; True = signed off as fascinating to watch).
            item_id: the message or reference id, the player's name, or ``game``.
            label: the reviewer's yes/no.

        Raises:
            InputError: an unknown kind, an empty id, a label that is not a bool.
        """
        if kind not in LABEL_KINDS:
            raise InputError(
                self._name,
                f"kind must be one of {', '.join(LABEL_KINDS)}",
                field="kind",
                value=kind,
            )
        if not isinstance(label, bool):
            raise InputError(self._name, "label must be true or false", field="label", value=label)
        row = (
            str(uuid.uuid4()),
            checked_text(self._name, reviewer, "reviewer"),
            checked_text(self._name, game_id, "game_id"),
            kind,
            checked_text(self._name, item_id, "item_id"),
            int(label),
            now_stamp(),
        )
        with self._write() as con:  # after every label the store holds (``seq``)
            event_id = con.execute(
                "INSERT INTO label_events (uid, reviewer, game_id, kind, item_id, label, "
                "created_at, seq) VALUES (?, ?, ?, ?, ?, ?, ?, "
                "(SELECT coalesce(max(seq), 0) + 1 FROM label_events))",
                row,
            ).lastrowid
        assert event_id is not None
        return int(event_id)

    def label_events(self) -> pl.DataFrame:
        """Every label event, oldest first: :data:`~toolkit.frames.LABEL_EVENTS_SCHEMA`."""
        with self._connect() as con:
            rows = con.execute(
                "SELECT event_id, uid, reviewer, game_id, kind, item_id, label, created_at "
                "FROM label_events ORDER BY event_id"
            ).fetchall()
        return rows_frame([(*r[:6], bool(r[6]), r[7]) for r in rows], LABEL_EVENTS_SCHEMA)

    def labels(self, game_ids: Sequence[str] | None = None) -> pl.DataFrame:
        """The labels that count (the latest per game, kind and item, whoever set it, in
        the order the store recorded them: ``seq``, never the clocks' stamps), as
        :func:`toolkit.score_discussion` takes them.

        Returns:
            :data:`~toolkit.frames.DISCUSSION_LABELS_SCHEMA` (game_id, kind, item_id, label).
        """
        with self._connect() as con:
            order = dict(con.execute("SELECT event_id, seq FROM label_events").fetchall())
        events = self.label_events()
        frame = (
            events.with_columns(
                seq=pl.Series([order[e] for e in events["event_id"]], dtype=pl.Int64)
            )
            .sort("seq", "event_id")
            .unique(["game_id", "kind", "item_id"], keep="last", maintain_order=True)
            .select(list(DISCUSSION_LABELS_SCHEMA))
        )
        if game_ids is not None:
            frame = frame.filter(pl.col("game_id").is_in(list(game_ids)))
        return frame.sort("game_id", "kind", "item_id")
