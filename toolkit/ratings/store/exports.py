"""One part of a store as a file and back: export to Parquet or CSV, import what a store
does not hold yet (events matched by uid, the newer draft wins), all or nothing."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

import polars as pl

from toolkit.errors import InputError
from toolkit.frames import (
    DRAFT_EXPORT_SCHEMA,
    ITEM_RATING_EVENTS_SCHEMA,
    LABEL_EVENTS_SCHEMA,
    RATING_EVENTS_SCHEMA,
)
from toolkit.io import edge
from toolkit.io.atomic import atomic_path
from toolkit.io.csvcells import restore_frame, write_csv
from toolkit.ratings.store.adjudications import (
    ADJUDICATION_SCHEMA,
    Adjudications,
    check_note,
    check_short,
    check_value,
)
from toolkit.ratings.store.drafts import Drafts
from toolkit.ratings.store.draws import DRAW_EXPORT_SCHEMA, MERGE_DRAW, Draws, draw_values
from toolkit.ratings.store.labels import LABEL_KINDS, Labels
from toolkit.ratings.store.merge import Step, merge_events, order_of
from toolkit.ratings.store.ratings import Ratings
from toolkit.ratings.store.rows import (
    HEX,
    ITEM_SCORE_RULE,
    check_answers,
    check_score,
    draft_row,
    item_score_ok,
    now_stamp,
    rows_frame,
    utc_stamp,
)
from toolkit.ratings.store.schema import ITEM_COLUMNS, RATING_COLUMNS
from toolkit.ratings.store.skips import SKIP_EXPORT_SCHEMA, Skips

#: The parts of a store an export holds, one file each (:meth:`RatingStore.backup`).
EXPORT_PARTS: tuple[str, ...] = ("ratings", "labels", "items", "drafts", "skips")
#: The organiser's adjudications (issue 41) and the queue's draws (issue 39), parts of
#: their own after the others.
EXPORT_PARTS += ("adjudications", "draws")
_EXPORT_SCHEMAS: dict[str, Mapping[str, pl.DataType]] = {
    "ratings": RATING_EVENTS_SCHEMA,
    "labels": LABEL_EVENTS_SCHEMA,
    "items": ITEM_RATING_EVENTS_SCHEMA,
    "drafts": DRAFT_EXPORT_SCHEMA,
    "skips": SKIP_EXPORT_SCHEMA,
    "adjudications": ADJUDICATION_SCHEMA,
    "draws": DRAW_EXPORT_SCHEMA,
}
#: An imported draft: added when the store has none, replacing the store's only when it
#: was saved later (the newer form wins; the same draft twice changes nothing) and not
#: after this machine's now (a stamp from a clock running ahead never wins).
_MERGE_DRAFT = (
    "INSERT INTO drafts (rater, transcript_id, score, answers, notes, updated_at) "
    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (rater, transcript_id) DO UPDATE SET "
    "score = excluded.score, answers = excluded.answers, notes = excluded.notes, "
    "updated_at = excluded.updated_at WHERE excluded.updated_at > drafts.updated_at "
    "AND excluded.updated_at <= ?"
)
_MERGE_ITEM_DRAFT = (
    "INSERT INTO item_drafts (rater, item_id, score, notes, text_sha256, updated_at) "
    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (rater, item_id) DO UPDATE SET "
    "score = excluded.score, notes = excluded.notes, text_sha256 = excluded.text_sha256, "
    "updated_at = excluded.updated_at WHERE excluded.updated_at > item_drafts.updated_at "
    "AND excluded.updated_at <= ?"
)
#: An imported skip: added unless the store holds its uid (importing twice adds nothing).
_MERGE_SKIP = (
    "INSERT INTO skip_events (uid, rater, unit_id, reason, created_at, origin) "
    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (uid) DO NOTHING"
)


def _format_of(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        return "parquet"
    if suffix == ".csv":
        return "csv"
    raise InputError(str(path), "an export is .parquet or .csv", field="suffix", value=suffix)


class Exports(Ratings, Labels, Drafts, Skips, Adjudications, Draws):
    """Export one part of the store, import one back."""

    def export(self, path: str | Path, *, what: str = "ratings") -> Path:
        """Write one part of the store to Parquet or CSV, chosen by the suffix.

        A whole backup is every part (:meth:`backup` writes them all); :meth:`import_events`
        reads each back.

        Args:
            path: ``*.parquet`` or ``*.csv``; written atomically.
            what: one of :data:`EXPORT_PARTS`: ``ratings`` (the games' rating events,
                the whole history), ``labels`` (reviewer label events), ``items`` (the
                persona item rating events: score 0-9, notes, the hash of the text
                rated), ``drafts`` (every draft of a game or an item, with its notes
                and answers: :data:`~toolkit.frames.DRAFT_EXPORT_SCHEMA`) or ``skips``
                (every skip with its reason, other sessions' included:
                :data:`~toolkit.ratings.store.skips.SKIP_EXPORT_SCHEMA`).

        Returns:
            The path written.
        """
        frame = self._export_frame(what)
        target = Path(path)
        fmt = _format_of(target)
        with atomic_path(target, private=True) as tmp:  # people's ratings and notes
            if fmt == "parquet":
                frame.write_parquet(tmp)
            else:
                write_csv(frame, tmp)  # cells that would start a formula: neutralised
        return target

    def import_events(self, path: str | Path, *, what: str = "ratings") -> int:
        """Append what an export (Parquet or CSV) holds that the store does not hold yet;
        returns how many rows were added. All or nothing, in one transaction.

        Events (``ratings``, ``labels``, ``items``, ``skips``) are matched by ``uid``: importing
        twice adds nothing, and an older rating never replaces a newer one (the latest
        counts). A draft (``drafts``) is added when the store has none for that rater and
        game or item, and replaces the store's only when it was saved later: the newer
        form wins, and importing twice changes nothing.

        Raises:
            InputError: an unreadable file, a missing column, a bad value (named).
        """
        plan = self._import_plan(path, what)
        with self._write() as con:
            before = con.total_changes
            self._run_plan(con, plan)
            added = con.total_changes - before
        return int(added)

    def _import_plan(self, path: str | Path, what: str) -> list[Step]:
        """The steps and their checked rows that import the file ``path`` as part ``what``."""
        self._events_of(what)  # checks ``what``
        name = str(path)
        target = Path(path)
        fmt = _format_of(target)
        if not target.exists():
            raise InputError(name, "no such export file")
        return self._blob_plan(edge.read_bytes(target), name, fmt, what)

    def _blob_plan(self, blob: bytes, name: str, fmt: str, what: str) -> list[Step]:
        """The steps and their checked rows that import ``blob`` (a ``fmt`` file, named
        ``name`` in every error) as part ``what``."""
        raw = edge.read_frame(blob, name, fmt)
        if fmt == "csv":  # the quote write_csv put before a formula-like cell, taken off
            raw = restore_frame(raw)
        if what == "ratings" and "instrument" not in raw.columns:
            # An export from before instruments were versioned: its ratings say so ("").
            raw = raw.with_columns(instrument=pl.lit("", dtype=pl.String))
        schema = _EXPORT_SCHEMAS[what]
        needed = [c for c in schema if c not in ("event_id", "origin")]
        missing = [c for c in needed if c not in raw.columns]
        if missing:
            raise InputError(name, "missing column of an export", field="columns", value=missing)
        extra = [c for c in ("seq", "event_id", "origin") if c in raw.columns]
        rows = []
        for i, rec in enumerate(raw.select(needed + extra).iter_rows(named=True)):
            line = i + 2 if fmt == "csv" else None
            if what == "drafts":
                rows.append(draft_row(name, rec, line))
            else:
                order = order_of(name, rec, i, line)
                origin = str(rec.get("origin") or "")
                rows.append((order, origin, self._import_row(name, rec, what, line)))
        if what == "drafts":
            now = now_stamp()
            games = [(*r[1:6], r[7], now) for r in rows if r[0] == "game"]
            items = [(*r[1:4], *r[5:], now) for r in rows if r[0] == "item"]
            return [Step(_MERGE_DRAFT, games), Step(_MERGE_ITEM_DRAFT, items)]
        if what == "skips":  # each row: its values, then its origin ("" for its session's)
            return [Step(_MERGE_SKIP, [(*r[2], r[1]) for r in rows], origin_last=True)]
        if what == "adjudications":
            key_a = ("unit_id", "question")
            return [Step("", rows, "adjudication_events", tuple(needed), key_a)]
        if what == "draws":  # as skips: matched by uid, origin last
            return [Step(MERGE_DRAW, [(*r[2], r[1]) for r in rows], origin_last=True)]
        if what == "labels":
            key: tuple[str, ...] = ("game_id", "kind", "item_id")
            return [Step("", rows, "label_events", tuple(needed), key, with_origin=False)]
        table, key = (
            ("rating_events", ("rater", "transcript_id")) if what == "ratings"
            else ("item_rating_events", ("rater", "item_id"))
        )  # fmt: skip
        return [Step("", rows, table, tuple(needed), key)]

    def _run_plan(self, con: sqlite3.Connection, plan: list[Step], origin: str = "") -> None:
        """Apply ``plan`` inside the caller's write transaction; ``origin`` given, the
        events of this store's session in it are imported as that other session's."""
        for step in plan:
            if step.table:
                merge_events(con, step, origin)
            elif step.origin_last and origin:  # the backup's own session's: as that one's
                con.executemany(step.sql, [(*r[:-1], r[-1] or origin) for r in step.rows])
            else:
                con.executemany(step.sql, step.rows)

    def _import_row(
        self, name: str, rec: Mapping[str, Any], what: str, line: int | None
    ) -> tuple[Any, ...]:
        def req(field: str) -> str:
            value = rec[field]
            if value is None or not str(value).strip():
                raise InputError(name, "must not be empty", field=field, value=value, line=line)
            return str(value)

        created = rec["created_at"]
        stamp = created.isoformat() if isinstance(created, datetime) else req("created_at")
        iso = utc_stamp(name, stamp, "created_at", created, line)
        if what == "skips":
            return (req("uid"), req("rater"), req("unit_id"), req("reason"), iso)
        if what == "adjudications":
            return _adjudication_row(name, rec, req, iso, line)
        if what == "draws":
            return (req("uid"), req("unit_id"), *draw_values(name, rec, line), iso)
        if what == "ratings":
            try:
                score = check_score(name, int(str(rec["score"])), line)
            except (TypeError, ValueError) as exc:
                raise InputError(
                    name, "score must be a whole number from 1 to 5", field="score",
                    value=rec["score"], line=line,
                ) from exc  # fmt: skip
            answers_text = rec["answers"] or "{}"
            try:
                answers = json.loads(answers_text)
            except (TypeError, ValueError, RecursionError) as exc:
                raise InputError(
                    name, "answers must be JSON", field="answers", value=answers_text, line=line
                ) from exc
            return (
                req("uid"),
                req("rater"),
                req("transcript_id"),
                score,
                check_answers(name, answers),
                str(rec["notes"] or ""),
                iso,
                str(rec["instrument"] or ""),
            )
        if what == "items":
            score = rec["score"]
            with contextlib.suppress(TypeError, ValueError):
                score = int(str(score)) if not isinstance(score, bool) else score
            digest = req("text_sha256")
            if not item_score_ok(score, none_ok=False):
                raise InputError(name, ITEM_SCORE_RULE, field="score", value=rec["score"],
                                 line=line)  # fmt: skip
            if len(digest) != 64 or not set(digest) <= HEX:
                raise InputError(name, "text_sha256 must be 64 lowercase hex digits",
                                 field="text_sha256", value=digest, line=line)  # fmt: skip
            return (req("uid"), req("rater"), req("item_id"), score, str(rec["notes"] or ""),
                    digest, iso)  # fmt: skip
        kind = req("kind")
        if kind not in LABEL_KINDS:
            raise InputError(name, "unknown label kind", field="kind", value=kind, line=line)
        label = rec["label"]
        if isinstance(label, str):
            label = {"true": True, "false": False}.get(label.strip().lower(), label)
        if not isinstance(label, bool):
            raise InputError(
                name, "label must be true or false", field="label", value=label, line=line
            )
        return (req("uid"), req("reviewer"), req("game_id"), kind, req("item_id"), int(label), iso)

    def _export_frame(self, what: str) -> pl.DataFrame:
        """Part ``what`` as exported: events with every row the store holds, each with
        its place in the store's order of submission (``seq``) and its ``origin`` (""
        for this store's session), so that a restore keeps both."""
        if what == "labels":
            events = self.label_events()
            with self._connect() as con:
                order = dict(con.execute("SELECT event_id, seq FROM label_events").fetchall())
            seq = [order[e] for e in events["event_id"]]
            return events.with_columns(seq=pl.Series(seq, dtype=pl.Int64))
        if what not in ("ratings", "items"):
            return self._events_of(what)
        table, schema, cols = (
            ("rating_events", RATING_EVENTS_SCHEMA, RATING_COLUMNS) if what == "ratings"
            else ("item_rating_events", ITEM_RATING_EVENTS_SCHEMA, ITEM_COLUMNS)
        )  # fmt: skip
        with self._connect() as con:
            rows = con.execute(
                f"SELECT event_id, {', '.join(cols)}, seq, origin FROM {table} ORDER BY event_id"
            ).fetchall()
        base = [r[:-2] for r in rows]
        if what == "ratings":
            self._checked(base)
        else:
            self._checked_items(base)
        return rows_frame(base, schema).with_columns(
            pl.Series("seq", [r[-2] for r in rows], dtype=pl.Int64),
            pl.Series("origin", [str(r[-1]) for r in rows], dtype=pl.String),
        )

    def _events_of(self, what: str) -> pl.DataFrame:
        if what == "ratings":
            return self.events()
        if what == "labels":
            return self.label_events()
        if what == "items":
            return self.item_events()
        if what == "drafts":
            return self.all_drafts()
        if what == "skips":
            return self.skip_events()
        if what == "adjudications":
            return self.adjudication_events()
        if what == "draws":
            return self.draw_events()
        raise InputError(
            self._name, f"what must be one of {', '.join(EXPORT_PARTS)}", field="what",
            value=what,
        )  # fmt: skip


def _adjudication_row(
    name: str, rec: Mapping[str, Any], req: Any, iso: str, line: int | None
) -> tuple[Any, ...]:
    """An exported adjudication, checked: its question, value (JSON), note and adjudicator."""
    question = check_short(name, req("question"), "question", line)
    try:
        value = json.loads(req("value"))
    except (ValueError, RecursionError):  # not JSON, an over-long integer, too deep
        raise InputError(name, "value must be JSON (a score or true/false)", field="value",
                         value=rec["value"], line=line) from None  # fmt: skip
    return (
        req("uid"),
        check_short(name, req("unit_id"), "unit_id", line),
        question,
        check_value(name, question, value, line),
        check_note(name, str(rec["note"] or ""), line),
        check_short(name, req("adjudicator"), "adjudicator", line),
        iso,
    )
