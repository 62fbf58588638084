"""The SQLite ratings store: human engagement ratings and reviewer label overrides.

One SQLite file holds every rating a rater saved and every label a reviewer set, as
append-only events: nothing is ever updated or deleted (triggers refuse it), the latest
event per rater and transcript (per game, kind and item for labels) is the one that
counts, and the history stays for audit. Each save is one short ``BEGIN IMMEDIATE``
transaction in WAL mode with ``synchronous=FULL`` and a busy timeout, so several
processes can save at once and a process killed in the middle of a save leaves every
earlier rating intact.

The schema is versioned (``PRAGMA user_version``) and brought up to date by
:data:`MIGRATIONS` when a store is opened; the file is marked as a toolkit ratings store
by ``PRAGMA application_id`` so other SQLite files (a game database) are told apart.

The store is a :class:`~toolkit.load.ratings.RatingSource` (``ratings(game_ids)``) and a
label source (``labels(game_ids)``) for :func:`toolkit.score_discussion`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import secrets
import sqlite3
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl

from toolkit.errors import InputError
from toolkit.frames import (
    DISCUSSION_LABELS_SCHEMA,
    DISCUSSION_RATINGS_SCHEMA,
    DRAFT_EXPORT_SCHEMA,
    ITEM_RATING_EVENTS_SCHEMA,
    LABEL_EVENTS_SCHEMA,
    RATING_EVENTS_SCHEMA,
)
from toolkit.io.atomic import atomic_path

__all__ = [
    "APPLICATION_ID",
    "DEFAULT_STORE_NAME",
    "EXPORT_PARTS",
    "LABEL_KINDS",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "Draft",
    "RatingStore",
    "Save",
    "Session",
    "SessionItem",
    "default_store_path",
    "is_rating_store",
    "open_rating_store",
]

#: ``PRAGMA application_id`` of a toolkit ratings store ("TkRt").
APPLICATION_ID = 0x546B5274
#: The file a session uses when no store is named, beside the transcripts.
DEFAULT_STORE_NAME = "ratings.db"
#: Label kinds and what ``True`` means: the message is strategic / role-consistent, the
#: memory reference is accurate; ``diversity``: a reviewer can tell this speaker (item =
#: the player's name) apart by style; ``fascinating``: the game (item ``game``) is
#: signed off as "fascinating to watch".
LABEL_KINDS: tuple[str, ...] = ("strategic", "role", "memory", "diversity", "fascinating")
MIN_SCORE, MAX_SCORE = 1, 5
#: The scale of an item rating (a persona proposition's 0-9).
ITEM_MIN_SCORE, ITEM_MAX_SCORE = 0, 9
#: The kinds of rating session: games rated 1-5 on the engagement instrument, or items
#: (persona propositions) rated 0-9.
SESSION_KINDS: tuple[str, ...] = ("games", "persona")

_APPEND_ONLY = """
CREATE TRIGGER {table}_no_update BEFORE UPDATE ON {table}
BEGIN SELECT RAISE(ABORT, '{table} is append-only'); END;
CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table}
BEGIN SELECT RAISE(ABORT, '{table} is append-only'); END;
"""

#: Schema migrations; migration ``i`` takes a store from version ``i`` to ``i + 1``.
MIGRATIONS: tuple[str, ...] = (
    # 1: rating events.
    """
    CREATE TABLE rating_events (
        event_id INTEGER PRIMARY KEY AUTOINCREMENT,
        uid TEXT NOT NULL UNIQUE,
        rater TEXT NOT NULL CHECK (length(trim(rater)) > 0),
        transcript_id TEXT NOT NULL CHECK (length(transcript_id) > 0),
        score INTEGER NOT NULL CHECK (score BETWEEN 1 AND 5),
        answers TEXT NOT NULL DEFAULT '{}',
        notes TEXT NOT NULL DEFAULT '',
        created_at TEXT NOT NULL
    );
    CREATE INDEX rating_events_latest ON rating_events (rater, transcript_id, created_at);
    """
    + _APPEND_ONLY.format(table="rating_events"),
    # 2: reviewer label overrides for the discussion rubric.
    """
    CREATE TABLE label_events (
        event_id INTEGER PRIMARY KEY AUTOINCREMENT,
        uid TEXT NOT NULL UNIQUE,
        reviewer TEXT NOT NULL CHECK (length(trim(reviewer)) > 0),
        game_id TEXT NOT NULL CHECK (length(game_id) > 0),
        kind TEXT NOT NULL CHECK (kind IN ('strategic', 'role', 'memory')),
        item_id TEXT NOT NULL CHECK (length(item_id) > 0),
        label INTEGER NOT NULL CHECK (label IN (0, 1)),
        created_at TEXT NOT NULL
    );
    CREATE INDEX label_events_latest ON label_events (game_id, kind, item_id, created_at);
    """
    + _APPEND_ONLY.format(table="label_events"),
    # 3: label kinds are checked by LABEL_KINDS, not by the table (new kinds need no
    # migration); rows, index and append-only triggers carried over.
    """
    ALTER TABLE label_events RENAME TO label_events_2;
    CREATE TABLE label_events (
        event_id INTEGER PRIMARY KEY AUTOINCREMENT,
        uid TEXT NOT NULL UNIQUE,
        reviewer TEXT NOT NULL CHECK (length(trim(reviewer)) > 0),
        game_id TEXT NOT NULL CHECK (length(game_id) > 0),
        kind TEXT NOT NULL CHECK (length(kind) > 0),
        item_id TEXT NOT NULL CHECK (length(item_id) > 0),
        label INTEGER NOT NULL CHECK (label IN (0, 1)),
        created_at TEXT NOT NULL
    );
    INSERT INTO label_events SELECT * FROM label_events_2;
    DROP TABLE label_events_2;
    CREATE INDEX label_events_latest ON label_events (game_id, kind, item_id, created_at);
    """
    + _APPEND_ONLY.format(table="label_events"),
    # 4: the version of the engagement instrument each rating was saved with ("" before).
    """
    ALTER TABLE rating_events ADD COLUMN instrument TEXT NOT NULL DEFAULT '';
    """,
    # 5: a rating session (raters with private tokens, their queues) and drafts.
    """
    CREATE TABLE session (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        game_ids TEXT NOT NULL,
        overlap INTEGER NOT NULL CHECK (overlap >= 1),
        seed INTEGER NOT NULL,
        organiser_token TEXT NOT NULL UNIQUE,
        csrf_secret TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
    CREATE TABLE session_raters (
        rater TEXT PRIMARY KEY CHECK (length(trim(rater)) > 0),
        token TEXT NOT NULL UNIQUE,
        position INTEGER NOT NULL
    );
    CREATE TABLE assignments (
        rater TEXT NOT NULL REFERENCES session_raters (rater),
        position INTEGER NOT NULL,
        game_id TEXT NOT NULL,
        PRIMARY KEY (rater, position),
        UNIQUE (rater, game_id)
    );
    CREATE TABLE drafts (
        rater TEXT NOT NULL CHECK (length(trim(rater)) > 0),
        transcript_id TEXT NOT NULL CHECK (length(transcript_id) > 0),
        score INTEGER CHECK (score IS NULL OR score BETWEEN 1 AND 5),
        answers TEXT NOT NULL DEFAULT '{}',
        notes TEXT NOT NULL DEFAULT '',
        updated_at TEXT NOT NULL,
        PRIMARY KEY (rater, transcript_id)
    );
    """,
    # 6: items rated on their own 0-9 scale (persona propositions), apart from the 1-5
    # game ratings (whose tables and checks stay as they were): a session says which it
    # holds (``kind``) and, for items, each item's text hash and what it is about; a
    # rating and a draft of an item record the hash of the text the rater saw.
    """
    ALTER TABLE session ADD COLUMN kind TEXT NOT NULL DEFAULT 'games';
    CREATE TABLE session_items (
        item_id TEXT PRIMARY KEY CHECK (length(item_id) > 0),
        text_sha256 TEXT NOT NULL CHECK (length(text_sha256) = 64),
        about TEXT NOT NULL DEFAULT '{}'
    );
    CREATE TABLE item_rating_events (
        event_id INTEGER PRIMARY KEY AUTOINCREMENT,
        uid TEXT NOT NULL UNIQUE,
        rater TEXT NOT NULL CHECK (length(trim(rater)) > 0),
        item_id TEXT NOT NULL CHECK (length(item_id) > 0),
        score INTEGER NOT NULL CHECK (score BETWEEN 0 AND 9),
        notes TEXT NOT NULL DEFAULT '',
        text_sha256 TEXT NOT NULL CHECK (length(text_sha256) = 64),
        created_at TEXT NOT NULL
    );
    CREATE INDEX item_rating_events_latest ON item_rating_events (rater, item_id, created_at);
    CREATE TABLE item_drafts (
        rater TEXT NOT NULL CHECK (length(trim(rater)) > 0),
        item_id TEXT NOT NULL CHECK (length(item_id) > 0),
        score INTEGER CHECK (score IS NULL OR score BETWEEN 0 AND 9),
        notes TEXT NOT NULL DEFAULT '',
        text_sha256 TEXT NOT NULL CHECK (length(text_sha256) = 64),
        updated_at TEXT NOT NULL,
        PRIMARY KEY (rater, item_id)
    );
    """
    + _APPEND_ONLY.format(table="item_rating_events"),
)
SCHEMA_VERSION = len(MIGRATIONS)

_SQLITE_MAGIC = b"SQLite format 3\x00"
_BUSY_TIMEOUT_MS = 30_000
#: The page cache of each connection a server keeps open (KiB; SQLite's default is 2 MiB).
_KEPT_CACHE_KIB = 512
_RATING_COLUMNS = (
    "uid", "rater", "transcript_id", "score", "answers", "notes", "created_at", "instrument",
)  # fmt: skip
_RATING_SELECT = ", ".join(("event_id", *_RATING_COLUMNS))
_INSERT_RATING = (
    f"INSERT INTO rating_events ({', '.join(_RATING_COLUMNS)}) "
    f"VALUES ({', '.join('?' for _ in _RATING_COLUMNS)})"
)
_ITEM_COLUMNS = ("uid", "rater", "item_id", "score", "notes", "text_sha256", "created_at")
_INSERT_ITEM_RATING = (
    f"INSERT INTO item_rating_events ({', '.join(_ITEM_COLUMNS)}) "
    f"VALUES ({', '.join('?' for _ in _ITEM_COLUMNS)})"
)
_UPSERT_ITEM_DRAFT = (
    "INSERT INTO item_drafts (rater, item_id, score, notes, text_sha256, updated_at) "
    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (rater, item_id) DO UPDATE SET "
    "score = excluded.score, notes = excluded.notes, text_sha256 = excluded.text_sha256, "
    "updated_at = excluded.updated_at"
)
_HEX = frozenset("0123456789abcdef")
#: The parts of a store an export holds, one file each (:meth:`RatingStore.backup`).
EXPORT_PARTS: tuple[str, ...] = ("ratings", "labels", "items", "drafts")
_EXPORT_SCHEMAS: dict[str, Mapping[str, pl.DataType]] = {
    "ratings": RATING_EVENTS_SCHEMA,
    "labels": LABEL_EVENTS_SCHEMA,
    "items": ITEM_RATING_EVENTS_SCHEMA,
    "drafts": DRAFT_EXPORT_SCHEMA,
}
#: An imported draft: added when the store has none, replacing the store's only when it
#: was saved later (the newer form wins; the same draft twice changes nothing).
_MERGE_DRAFT = (
    "INSERT INTO drafts (rater, transcript_id, score, answers, notes, updated_at) "
    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (rater, transcript_id) DO UPDATE SET "
    "score = excluded.score, answers = excluded.answers, notes = excluded.notes, "
    "updated_at = excluded.updated_at WHERE excluded.updated_at > drafts.updated_at"
)
_MERGE_ITEM_DRAFT = (
    "INSERT INTO item_drafts (rater, item_id, score, notes, text_sha256, updated_at) "
    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (rater, item_id) DO UPDATE SET "
    "score = excluded.score, notes = excluded.notes, text_sha256 = excluded.text_sha256, "
    "updated_at = excluded.updated_at WHERE excluded.updated_at > item_drafts.updated_at"
)
_UPSERT_DRAFT = (
    "INSERT INTO drafts (rater, transcript_id, score, answers, notes, updated_at) "
    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (rater, transcript_id) DO UPDATE SET "
    "score = excluded.score, answers = excluded.answers, notes = excluded.notes, "
    "updated_at = excluded.updated_at"
)


def _text_together(
    queues: Mapping[str, tuple[str, ...]], items: Sequence[SessionItem]
) -> dict[str, tuple[str, ...]]:
    """Each queue with the items that show the same text (one agent's window: several
    claims) one after another, the texts in the order they first come in the queue: a
    rater reads a text once and rates its claims in a row (the judge is asked them
    together too)."""
    text_of = {i.item_id: i.text_sha256 for i in items}
    out: dict[str, tuple[str, ...]] = {}
    for rater, queue in queues.items():
        groups: dict[str, list[str]] = {}
        for item_id in queue:
            groups.setdefault(text_of[item_id], []).append(item_id)
        out[rater] = tuple(i for group in groups.values() for i in group)
    return out


def _readable(exc: Exception) -> Exception:
    """SQLite's complaint about a damaged file, as text even when the damage reached the
    message itself (Python then raises UnicodeDecodeError while decoding it)."""
    if isinstance(exc, UnicodeDecodeError):
        said = bytes(exc.object).decode("utf-8", errors="replace")
        return RuntimeError(said)
    return exc


def _default_instrument() -> str:
    """The version of the packaged engagement instrument (rubric data)."""
    from toolkit.rubrics.discussion_spec import DEFAULT_ENGAGEMENT_SCALE

    return DEFAULT_ENGAGEMENT_SCALE.version


@dataclass(frozen=True)
class SessionItem:
    """An item of a ``persona`` session, fixed when the session is created.

    Attributes:
        item_id: the item's id (:class:`toolkit.rubrics.persona_items.PersonaItem`).
        text_sha256: the SHA-256 of the text the raters are shown (and the judge reads).
        about: what the item is about, for exports: agent, dimension, proposition,
            claim, source (the chat file), anchor (where in it).
    """

    item_id: str
    text_sha256: str
    about: Mapping[str, str] = dataclasses.field(default_factory=dict)


@dataclass(frozen=True)
class Session:
    """The rating session a store holds: who rates what, and the private links' tokens.

    Attributes:
        game_ids: the games of the session (sorted).
        overlap: how many raters rate each game.
        seed: the seed of the assignment.
        raters: rater -> their private token.
        queues: rater -> their games, in the order shown.
        organiser_token: the organiser page's token.
        csrf_secret: the secret a page's CSRF token is derived from.
        created_at: when the session was created (UTC, ISO 8601).
        kind: ``games`` (``game_ids`` are games, rated 1-5) or ``persona`` (they are
            persona items, rated 0-9; see ``items``).
        items: item id -> its text hash and what it is about (``persona`` sessions).
    """

    game_ids: tuple[str, ...]
    overlap: int
    seed: int
    raters: dict[str, str]
    queues: dict[str, tuple[str, ...]]
    organiser_token: str
    csrf_secret: str
    created_at: str
    kind: str = "games"
    items: Mapping[str, SessionItem] = dataclasses.field(default_factory=dict)

    def rater_of(self, token: str) -> str | None:
        """The rater whose token is ``token`` (compared in constant time), else None."""
        found = None
        for rater, known in self.raters.items():
            if secrets.compare_digest(known.encode(), token.encode()):
                found = rater
        return found

    def is_organiser(self, token: str) -> bool:
        """Whether ``token`` is the organiser's (compared in constant time)."""
        return secrets.compare_digest(self.organiser_token.encode(), token.encode())

    def __repr__(self) -> str:  # tokens stay out of logs and tracebacks
        return (
            f"Session({len(self.game_ids)} {'items' if self.kind == 'persona' else 'games'}, "
            f"{len(self.raters)} raters, "
            f"overlap {self.overlap}, seed {self.seed})"
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
        instrument: a rating's instrument version (None: the packaged default's).
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


def default_store_path(transcripts_dir: str | Path) -> Path:
    """The store a session uses by default: ``ratings.db`` in the transcripts' folder
    (the folder of a transcript file)."""
    folder = Path(transcripts_dir)
    if not folder.is_dir():
        folder = folder.parent
    return folder / DEFAULT_STORE_NAME


def is_rating_store(path: str | Path) -> bool:
    """Whether ``path`` is a SQLite file marked as a toolkit ratings store (read from its
    header; never opens the database)."""
    from toolkit.io.edge import read_head

    try:
        head = read_head(path, 72)
    except InputError:
        return False
    return (
        len(head) == 72
        and head[:16] == _SQLITE_MAGIC
        and int.from_bytes(head[68:72], "big") == APPLICATION_ID
    )


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def _text(path: str, value: Any, field: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InputError(path, "must be a non-empty string", field=field, value=value)
    return value.strip()


def _check_score(path: str, value: Any, line: int | None = None) -> int:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    if not ok or value != int(value) or not MIN_SCORE <= int(value) <= MAX_SCORE:
        raise InputError(
            path, "score must be a whole number from 1 to 5", field="score", value=value, line=line
        )
    return int(value)


_ITEM_SCORE_RULE = "score must be a whole number from 0 to 9"


def _item_score_ok(value: Any, *, none_ok: bool) -> bool:
    if value is None:
        return none_ok
    return type(value) is int and ITEM_MIN_SCORE <= value <= ITEM_MAX_SCORE


def _check_item_score(path: str, value: Any) -> int:
    if not _item_score_ok(value, none_ok=False):
        raise InputError(path, _ITEM_SCORE_RULE, field="score", value=value)
    return int(value)


def _check_answers(path: str, answers: Mapping[str, bool | None] | None) -> str:
    if answers is None:
        return "{}"
    if not isinstance(answers, Mapping):
        raise InputError(
            path, "answers must be a mapping of question -> yes/no", field="answers", value=answers
        )
    clean: dict[str, bool] = {}
    for key, value in answers.items():
        if not isinstance(key, str) or not key:
            raise InputError(
                path, "a question key must be a non-empty string", field="answers", value=key
            )
        if value is None:
            continue
        if not isinstance(value, bool):
            raise InputError(
                path, "an answer must be true, false or None", field=f"answers.{key}", value=value
            )
        clean[key] = value
    return json.dumps(clean, sort_keys=True)


class RatingStore:
    """A SQLite ratings store (see the module docs).

    Every method opens its own short-lived connection, so a store object can be shared
    by widgets and used from several processes at once. A server keeps one connection
    open per thread instead (``keep_open``): closing the last connection to a WAL
    database checkpoints it, which costs as much as the save itself. Either way the
    writes of one store object take turns on a lock (threads waiting on SQLite's own busy
    handler sleep in steps of up to 100 ms), and other processes still take turns through
    SQLite's locks.

    Args:
        path: the SQLite file.
        create: create the file (and its folder) when it does not exist.
        keep_open: keep one connection per thread open for the store's lifetime.

    Raises:
        InputError: the file is missing (``create=False``), is not SQLite, is another
            kind of SQLite database, or was written by a newer toolkit.
    """

    def __init__(self, path: str | Path, *, create: bool = True, keep_open: bool = False) -> None:
        self.path = Path(path)
        self._name = str(path)
        self._keep_open = keep_open
        self._local = threading.local()
        self._write_lock = threading.Lock()
        #: Test hook: called inside a save's transaction, just before COMMIT.
        self._before_commit: Callable[[], None] | None = None
        exists = self.path.exists()
        if not exists and not create:
            raise InputError(self._name, "no such ratings store")
        if exists:
            self._check_file()
            self._check_integrity()
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._migrate()

    # -- connections -------------------------------------------------------

    def _check_file(self) -> None:
        if self.path.is_dir():
            raise InputError(self._name, "is a folder, not a ratings store")
        from toolkit.io.edge import read_head

        head = read_head(self.path, 100)
        if not head:
            return  # an empty file becomes a new store
        if head[:16] != _SQLITE_MAGIC:
            raise InputError(
                self._name, "not a SQLite ratings store", field="header", value=head[:16]
            )
        app_id = int.from_bytes(head[68:72], "big")
        if app_id not in (0, APPLICATION_ID):
            raise InputError(
                self._name,
                "a SQLite database of another kind, not a toolkit ratings store",
                field="application_id",
                value=app_id,
            )

    def _check_integrity(self) -> None:
        """Refuse a damaged store before anything is written to it (``quick_check``, read
        only)."""
        from toolkit.io.edge import sqlite_problem

        if self.path.stat().st_size == 0:
            return
        # Read only (``mode=ro``; the file URI quotes ``?``, ``#`` and ``%``), so that a
        # file refused here, whatever it is, is left byte for byte as it was.
        uri = f"{self.path.resolve().as_uri()}?mode=ro"
        try:
            con = sqlite3.connect(uri, uri=True, timeout=_BUSY_TIMEOUT_MS / 1000)
            try:
                found = [r[0] for r in con.execute("PRAGMA quick_check").fetchall()]
                app_id = int(con.execute("PRAGMA application_id").fetchone()[0])
                tables = sorted(
                    str(r[0])
                    for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
                )
            finally:
                con.close()
        except (sqlite3.Error, UnicodeDecodeError) as exc:  # SQLite's message may be bytes
            raise sqlite_problem(self._name, _readable(exc)) from exc
        if found != ["ok"]:
            raise sqlite_problem(self._name, RuntimeError(str(found[0]) if found else "damaged"))
        if app_id != APPLICATION_ID and set(tables) - {"sqlite_sequence"}:
            raise InputError(
                self._name,
                "a SQLite database of another kind, not a toolkit ratings store",
                field="tables",
                value=tables,
            )

    @contextlib.contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        from toolkit.io.edge import sqlite_problem

        con: sqlite3.Connection | None = getattr(self._local, "con", None)
        fresh = con is None
        if con is None:
            try:
                con = sqlite3.connect(
                    self.path, timeout=_BUSY_TIMEOUT_MS / 1000, isolation_level=None
                )
            except sqlite3.Error as exc:
                raise sqlite_problem(self._name, exc) from exc
        keep = False
        try:
            if fresh:
                con.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
                con.execute("PRAGMA journal_mode = WAL")
                con.execute("PRAGMA synchronous = FULL")
                if self._keep_open:  # one per server thread: a small page cache each
                    con.execute(f"PRAGMA cache_size = -{_KEPT_CACHE_KIB}")
            yield con
            keep = self._keep_open
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
            raise sqlite_problem(self._name, _readable(exc)) from exc
        finally:
            if keep:
                self._local.con = con
            else:  # a short-lived connection, or one that just failed: never reused
                self._local.con = None
                con.close()

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (``BEGIN IMMEDIATE``); rolled back on any error."""
        with self._write_lock, self._connect() as con:
            con.execute("BEGIN IMMEDIATE")
            try:
                yield con
                if self._before_commit is not None:
                    self._before_commit()
                con.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):  # a failed COMMIT may have ended it
                    con.execute("ROLLBACK")
                raise

    def _migrate(self) -> None:
        with self._write() as con:
            version = int(con.execute("PRAGMA user_version").fetchone()[0])
            app_id = int(con.execute("PRAGMA application_id").fetchone()[0])
            tables = {
                r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            }
            if app_id != APPLICATION_ID and tables - {"sqlite_sequence"}:
                raise InputError(
                    self._name,
                    "a SQLite database of another kind, not a toolkit ratings store",
                    field="tables",
                    value=sorted(tables),
                )
            if version > SCHEMA_VERSION:
                raise InputError(
                    self._name,
                    f"written by a newer toolkit (schema {version}; this one knows up to "
                    f"{SCHEMA_VERSION})",
                    field="user_version",
                    value=version,
                )
            for step in range(version, SCHEMA_VERSION):
                for statement in _statements(MIGRATIONS[step]):
                    con.execute(statement)
            if version < SCHEMA_VERSION:
                con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            if app_id != APPLICATION_ID:
                con.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        if version < SCHEMA_VERSION or app_id != APPLICATION_ID:
            # Into the main file at once: its header is what tells a ratings store apart
            # (is_rating_store, the discussion loader) while a connection keeps the WAL.
            with self._connect() as con:
                con.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    @property
    def schema_version(self) -> int:
        """The schema version of the file."""
        with self._connect() as con:
            return int(con.execute("PRAGMA user_version").fetchone()[0])

    # -- ratings -----------------------------------------------------------

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
                into the rating); None = the packaged default's.

        Raises:
            InputError: a missing rater or transcript id, a score outside 1-5, bad answers.
        """
        row = self._rating_row(rater, transcript_id, score, answers, notes, instrument)
        return self._append("rating_events", _RATING_COLUMNS, row)

    def _rating_row(
        self,
        rater: str,
        transcript_id: str,
        score: int,
        answers: Mapping[str, bool | None] | None,
        notes: str,
        instrument: str | None,
    ) -> tuple[Any, ...]:
        return (
            str(uuid.uuid4()),
            _text(self._name, rater, "rater"),
            _text(self._name, transcript_id, "transcript_id"),
            _check_score(self._name, score),
            _check_answers(self._name, answers),
            notes if isinstance(notes, str) else str(notes),
            _now(),
            _text(self._name, instrument or _default_instrument(), "instrument"),
        )

    def _append(self, table: str, columns: tuple[str, ...], row: tuple[Any, ...]) -> int:
        """Append one event in its own write transaction; return its id."""
        sql = (
            f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)})"
        )
        with self._write() as con:
            event_id = con.execute(sql, row).lastrowid
        assert event_id is not None
        return int(event_id)

    def events(self) -> pl.DataFrame:
        """Every rating event ever saved, oldest first.

        Returns:
            :data:`~toolkit.frames.RATING_EVENTS_SCHEMA` (event_id, uid, rater,
            transcript_id, score, answers, notes, created_at).
        """
        with self._connect() as con:
            rows = con.execute(
                f"SELECT {_RATING_SELECT} FROM rating_events ORDER BY event_id"
            ).fetchall()
        return _frame(self._checked(rows), RATING_EVENTS_SCHEMA)

    def latest(self, rater: str | None = None) -> pl.DataFrame:
        """The rating that counts per rater and transcript: the latest saved (by time, then
        event id), optionally for one rater.

        Returns:
            :data:`~toolkit.frames.RATING_EVENTS_SCHEMA`, one row per rater and transcript.
        """
        where, params = ("WHERE rater = ?", (rater,)) if rater is not None else ("", ())
        with self._connect() as con:
            rows = con.execute(
                f"SELECT {_RATING_SELECT} "
                "FROM (SELECT *, row_number() OVER (PARTITION BY rater, transcript_id "
                "ORDER BY created_at DESC, event_id DESC) AS rank FROM rating_events "
                f"{where}) WHERE rank = 1 ORDER BY transcript_id, rater",
                params,
            ).fetchall()
        return _frame(self._checked(rows), RATING_EVENTS_SCHEMA)

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
            lambda v: _item_score_ok(v, none_ok=False),
        )

    def rated_ids(self, rater: str) -> set[str]:
        """The transcripts ``rater`` has a rating of (any; the latest counts).

        Raises:
            InputError: the store cannot be read.
        """
        with self._connect() as con:
            rows = con.execute(
                "SELECT DISTINCT transcript_id FROM rating_events WHERE rater = ?", (rater,)
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
                "SELECT rater FROM rating_events GROUP BY rater ORDER BY min(event_id)"
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

    # -- a rating session: raters, queues, drafts ------------------------------

    def session(self) -> Session | None:
        """The rating session this store holds, or None (see :meth:`open_session`).

        Raises:
            InputError: the store cannot be read, or its session rows are damaged.
        """
        with self._connect() as con:
            row = con.execute(
                "SELECT game_ids, overlap, seed, organiser_token, csrf_secret, created_at, kind "
                "FROM session WHERE id = 1"
            ).fetchone()
            if row is None:
                return None
            listed = con.execute(
                "SELECT item_id, text_sha256, about FROM session_items ORDER BY item_id"
            ).fetchall()
            raters = con.execute(
                "SELECT rater, token FROM session_raters ORDER BY position"
            ).fetchall()
            queued = con.execute(
                "SELECT rater, game_id FROM assignments ORDER BY rater, position"
            ).fetchall()
        try:
            game_ids = json.loads(row[0])
            ok = (
                isinstance(game_ids, list)
                and all(isinstance(g, str) for g in game_ids)
                and all(isinstance(v, int) for v in row[1:3])
                and all(isinstance(v, str) for v in row[3:6])
                and all(isinstance(v, str) for r in (*raters, *queued) for v in r)
            )
            items: dict[str, SessionItem] = {}
            for item_id, digest, about_text in listed:
                about = json.loads(about_text)
                ok = ok and (
                    isinstance(item_id, str)
                    and isinstance(digest, str)
                    and isinstance(about, dict)
                    and all(isinstance(v, str) for v in about.values())
                )
                items[str(item_id)] = SessionItem(str(item_id), str(digest), about)
            ok = ok and row[6] in SESSION_KINDS
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise InputError(
                self._name, "damaged ratings store: its rating session cannot be read",
                field="session",
            )  # fmt: skip
        queues: dict[str, list[str]] = {str(r): [] for r, _t in raters}
        for rater, game in queued:
            queues.setdefault(rater, []).append(game)
        return Session(
            game_ids=tuple(game_ids),
            overlap=int(row[1]),
            seed=int(row[2]),
            raters={str(r): str(t) for r, t in raters},
            queues={r: tuple(q) for r, q in queues.items()},
            organiser_token=str(row[3]),
            csrf_secret=str(row[4]),
            created_at=str(row[5]),
            kind=str(row[6]),
            items=items,
        )

    def open_session(
        self,
        game_ids: Sequence[str],
        raters: Sequence[str] | None = None,
        overlap: int | None = None,
        seed: int | None = None,
        *,
        items: Sequence[SessionItem] | None = None,
    ) -> tuple[Session, bool]:
        """Create the store's rating session, or resume the one it holds.

        A new session gives each rater an unguessable token (``secrets``) and a queue
        (:func:`~toolkit.ratings.assign.assign_games`: each game to ``overlap`` raters,
        balanced, seeded, shuffled); an existing one is returned as it is (same tokens,
        same queues), so restarting a session changes nothing.

        Args:
            game_ids: the games to rate (a new session only).
            raters: the raters; None resumes the session the store holds.
            overlap: raters per game (default: 2, or 1 with one rater).
            seed: the assignment's seed (default: a random one, kept in the store).
            items: a ``persona`` session's items (``game_ids`` are then their ids),
                their text hashes kept in the store; in each queue the items that show
                the same text come one after another. None: a session of games.

        Returns:
            (the session, whether it was created now).

        Raises:
            InputError: no session to resume and no raters; raters, overlap or seed that
                differ from the session the store holds; a bad overlap.
        """
        from toolkit.ratings.assign import assign_games

        kind = "games" if items is None else "persona"
        if items is not None:
            game_ids = [i.item_id for i in items]
            if len(set(game_ids)) != len(game_ids) or not game_ids:
                raise InputError(self._name, "a persona session needs items with distinct ids",
                                 field="items", value=len(game_ids))  # fmt: skip
        existing = self.session()
        if existing is not None:
            self._same_session(existing, raters, overlap, seed, kind)
            return existing, False
        if raters is None:
            raise InputError(
                self._name,
                "holds no rating session yet: name the raters (--raters ana,ben,chidi)",
                field="--raters",
            )
        names = [_text(self._name, r, "rater") for r in raters]
        overlap = overlap if overlap is not None else min(2, len(names))
        seed = seed if seed is not None else secrets.randbelow(2**31)
        queues = assign_games(game_ids, names, overlap, seed)
        if items is not None:
            queues = _text_together(queues, items)
        tokens = {r: secrets.token_urlsafe(24) for r in names}
        with self._write() as con:
            if con.execute("SELECT 1 FROM session").fetchone() is None:
                con.execute(
                    "INSERT INTO session (id, game_ids, overlap, seed, organiser_token, "
                    "csrf_secret, created_at, kind) VALUES (1, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        json.dumps(sorted(set(game_ids))),
                        overlap,
                        seed,
                        secrets.token_urlsafe(24),
                        secrets.token_urlsafe(32),
                        _now(),
                        kind,
                    ),
                )
                con.executemany(
                    "INSERT INTO session_items (item_id, text_sha256, about) VALUES (?, ?, ?)",
                    [
                        (i.item_id, i.text_sha256, json.dumps(dict(i.about), sort_keys=True))
                        for i in items or ()
                    ],
                )
                con.executemany(
                    "INSERT INTO session_raters (rater, token, position) VALUES (?, ?, ?)",
                    [(r, tokens[r], i) for i, r in enumerate(names)],
                )
                con.executemany(
                    "INSERT INTO assignments (rater, position, game_id) VALUES (?, ?, ?)",
                    [(r, i, g) for r in names for i, g in enumerate(queues[r])],
                )
                created = True
            else:  # another process created it first: resume that one
                created = False
        session = self.session()
        assert session is not None
        if not created:
            self._same_session(session, raters, overlap, seed, kind)
        return session, created

    def _same_session(
        self,
        session: Session,
        raters: Sequence[str] | None,
        overlap: int | None,
        seed: int | None,
        kind: str = "games",
    ) -> None:
        if session.kind != kind:
            what = "persona chats" if session.kind == "persona" else "games"
            raise InputError(
                self._name,
                f"holds a rating session of {what}: serve it the same kind of input, or name "
                "a new --store for a new session",
                field="session",
                value=kind,
            )
        if raters is not None and [r.strip().casefold() for r in raters] != [
            r.casefold() for r in session.raters
        ]:
            raise InputError(
                self._name,
                f"holds a session with the raters {','.join(session.raters)}: resume it "
                "without --raters (or with the same ones), or name a new --store for a new "
                "session",
                field="--raters",
                value=",".join(raters),
            )
        for flag, given, held in (
            ("--overlap", overlap, session.overlap),
            ("--seed", seed, session.seed),
        ):
            if given is not None and given != held:
                raise InputError(
                    self._name,
                    f"holds a session with {flag} {held}: resume it without {flag}, or "
                    "name a new --store for a new session",
                    field=flag,
                    value=given,
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
                    _text(self._name, save.rater, "rater"),
                    _text(self._name, save.transcript_id, "transcript_id"),
                    None if save.score is None else _check_score(self._name, save.score),
                    _check_answers(self._name, save.answers),
                    save.notes if isinstance(save.notes, str) else str(save.notes),
                    _now(),
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
        if not isinstance(digest, str) or len(digest) != 64 or not set(digest) <= _HEX:
            raise InputError(
                name, "text_sha256 must be 64 lowercase hex digits", field="text_sha256",
                value=digest,
            )  # fmt: skip
        if save.answers:
            raise InputError(name, "an item rating has no answers", field="answers",
                             value=dict(save.answers))  # fmt: skip
        if save.submit and save.score is None:
            raise InputError(name, _ITEM_SCORE_RULE, field="score")
        score = None if save.score is None else _check_item_score(name, save.score)
        rater = _text(name, save.rater, "rater")
        item = _text(name, save.transcript_id, "item_id")
        notes = save.notes if isinstance(save.notes, str) else str(save.notes)
        if save.submit:
            row = (str(uuid.uuid4()), rater, item, score, notes, digest, _now())
            return "item rating", row
        return "item draft", (rater, item, score, notes, digest, _now())

    # -- persona items: drafts and ratings on the 0-9 scale ---------------------

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
        if not (_item_score_ok(score, none_ok=True) and isinstance(notes, str)
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
            if not (texts and _item_score_ok(row[2], none_ok=True)):
                raise InputError(
                    self._name, "damaged ratings store: a stored draft holds a value it cannot "
                    "have", field="item_drafts", value=tuple(row[:2]),
                )  # fmt: skip
        schema = {"rater": pl.String(), "item_id": pl.String(), "score": pl.Int64(),
                  "updated_at": pl.String()}  # fmt: skip
        return pl.DataFrame(rows, schema=schema, orient="row")

    def item_latest(self, rater: str | None = None) -> pl.DataFrame:
        """The persona item rating that counts per rater and item: the latest saved (by
        time, then event id), optionally for one rater.

        Returns:
            :data:`~toolkit.frames.ITEM_RATING_EVENTS_SCHEMA` (event_id, uid, rater,
            item_id, score 0-9, notes, text_sha256, created_at), sorted by item, rater.
        """
        where, params = ("WHERE rater = ?", (rater,)) if rater is not None else ("", ())
        cols = ", ".join(("event_id", *_ITEM_COLUMNS))
        with self._connect() as con:
            rows = con.execute(
                f"SELECT {cols} FROM (SELECT *, row_number() OVER (PARTITION BY rater, item_id "
                "ORDER BY created_at DESC, event_id DESC) AS rank FROM item_rating_events "
                f"{where}) WHERE rank = 1 ORDER BY item_id, rater",
                params,
            ).fetchall()
        return _frame(self._checked_items(rows), ITEM_RATING_EVENTS_SCHEMA)

    def item_rated_ids(self, rater: str) -> set[str]:
        """The persona items ``rater`` has a rating of."""
        with self._connect() as con:
            rows = con.execute(
                "SELECT DISTINCT item_id FROM item_rating_events WHERE rater = ?", (rater,)
            ).fetchall()
        return {str(r[0]) for r in rows}

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

    # -- reviewer labels ---------------------------------------------------

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
            _text(self._name, reviewer, "reviewer"),
            _text(self._name, game_id, "game_id"),
            kind,
            _text(self._name, item_id, "item_id"),
            int(label),
            _now(),
        )
        return self._append(
            "label_events",
            ("uid", "reviewer", "game_id", "kind", "item_id", "label", "created_at"),
            row,
        )

    def label_events(self) -> pl.DataFrame:
        """Every label event, oldest first: :data:`~toolkit.frames.LABEL_EVENTS_SCHEMA`."""
        with self._connect() as con:
            rows = con.execute(
                "SELECT event_id, uid, reviewer, game_id, kind, item_id, label, created_at "
                "FROM label_events ORDER BY event_id"
            ).fetchall()
        return _frame([(*r[:6], bool(r[6]), r[7]) for r in rows], LABEL_EVENTS_SCHEMA)

    def labels(self, game_ids: Sequence[str] | None = None) -> pl.DataFrame:
        """The labels that count (the latest per game, kind and item, whoever set it), as
        :func:`toolkit.score_discussion` takes them.

        Returns:
            :data:`~toolkit.frames.DISCUSSION_LABELS_SCHEMA` (game_id, kind, item_id, label).
        """
        frame = (
            self.label_events()
            .sort("created_at", "event_id")
            .unique(["game_id", "kind", "item_id"], keep="last", maintain_order=True)
            .select(list(DISCUSSION_LABELS_SCHEMA))
        )
        if game_ids is not None:
            frame = frame.filter(pl.col("game_id").is_in(list(game_ids)))
        return frame.sort("game_id", "kind", "item_id")

    # -- export / import ---------------------------------------------------

    def item_events(self) -> pl.DataFrame:
        """Every persona item rating ever saved, oldest first (the whole history).

        Returns:
            :data:`~toolkit.frames.ITEM_RATING_EVENTS_SCHEMA` (event_id, uid, rater,
            item_id, score 0-9, notes, text_sha256, created_at).
        """
        cols = ", ".join(("event_id", *_ITEM_COLUMNS))
        with self._connect() as con:
            rows = con.execute(
                f"SELECT {cols} FROM item_rating_events ORDER BY event_id"
            ).fetchall()
        return _frame(self._checked_items(rows), ITEM_RATING_EVENTS_SCHEMA)

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
                self._draft_row(self._name, dict(zip(DRAFT_EXPORT_SCHEMA, row, strict=True)), None)
            except InputError:
                raise InputError(
                    self._name, "damaged ratings store: a stored draft holds a value it cannot "
                    "have", field=f"{'item_' if row[0] == 'item' else ''}drafts",
                    value=tuple(row[1:3]),
                ) from None  # fmt: skip
        return pl.DataFrame([*games, *items], schema=DRAFT_EXPORT_SCHEMA, orient="row")

    def export(self, path: str | Path, *, what: str = "ratings") -> Path:
        """Write one part of the store to Parquet or CSV, chosen by the suffix.

        A whole backup is every part (:meth:`backup` writes them all); :meth:`import_events`
        reads each back.

        Args:
            path: ``*.parquet`` or ``*.csv``; written atomically.
            what: one of :data:`EXPORT_PARTS`: ``ratings`` (the games' rating events,
                the whole history), ``labels`` (reviewer label events), ``items`` (the
                persona item rating events: score 0-9, notes, the hash of the text
                rated) or ``drafts`` (every draft of a game or an item, with its notes
                and answers: :data:`~toolkit.frames.DRAFT_EXPORT_SCHEMA`).

        Returns:
            The path written.
        """
        frame = self._events_of(what)
        target = Path(path)
        fmt = _format_of(target)
        with atomic_path(target) as tmp:
            if fmt == "parquet":
                frame.write_parquet(tmp)
            else:
                frame.write_csv(tmp)
        return target

    def backup(self, folder: str | Path, *, fmt: str = "parquet") -> list[Path]:
        """Export every part of the store (:data:`EXPORT_PARTS`) into ``folder`` as
        ``ratings``, ``labels``, ``items`` and ``drafts`` files (each written atomically);
        :meth:`restore` reads them back. A ``folder`` ending in ``.zip`` is one archive of
        those files instead (:meth:`backup_archive`), written atomically.

        Args:
            folder: where the files go (created when missing), or a ``.zip`` file.
            fmt: ``parquet`` or ``csv``.

        Returns:
            The files written, in the order of :data:`EXPORT_PARTS` (the archive alone
            for a ``.zip``).
        """
        if fmt not in ("parquet", "csv"):
            raise InputError(self._name, "a backup is parquet or csv", field="fmt", value=fmt)
        out = Path(folder)
        if out.suffix.lower() == ".zip":
            data = self.backup_archive(fmt=fmt)
            with atomic_path(out) as tmp:
                tmp.write_bytes(data)
            return [out]
        out.mkdir(parents=True, exist_ok=True)
        return [self.export(out / f"{part}.{fmt}", what=part) for part in EXPORT_PARTS]

    def backup_archive(self, *, fmt: str = "parquet") -> bytes:
        """:meth:`backup` as the bytes of one ``.zip`` archive (what the organiser's page
        offers for download): every part, drafts included, read in one go."""
        import tempfile
        import zipfile

        if fmt not in ("parquet", "csv"):
            raise InputError(self._name, "a backup is parquet or csv", field="fmt", value=fmt)
        buffer = io.BytesIO()
        with tempfile.TemporaryDirectory(prefix="toolkit-backup-") as tmp:
            files = self.backup(tmp, fmt=fmt)
            with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
                for path in files:
                    archive.write(path, path.name)
        return buffer.getvalue()

    def restore(self, folder: str | Path) -> dict[str, int]:
        """Import a :meth:`backup`: each part's file that is in ``folder`` (Parquet, else
        CSV) or in a ``.zip`` archive of them, all parts in one transaction (all or
        nothing), what the store already holds left as it is (see :meth:`import_events`).

        Returns:
            Part -> how many rows it added or brought up to date.

        Raises:
            InputError: a folder or archive without any part, an archive that is not a
                zip or holds a part larger than the reading limit, or what
                :meth:`import_events` refuses.
        """
        if Path(folder).suffix.lower() == ".zip" and not Path(folder).is_dir():
            import tempfile

            with tempfile.TemporaryDirectory(prefix="toolkit-restore-") as tmp:
                self._unpack_backup(Path(folder), Path(tmp))
                return self.restore(tmp)
        base = Path(folder)
        found = []
        for part in EXPORT_PARTS:
            for fmt in ("parquet", "csv"):
                if (base / f"{part}.{fmt}").is_file():
                    found.append((part, base / f"{part}.{fmt}"))
                    break
        if not found:
            raise InputError(
                str(folder), "holds no backup of a ratings store", field="files",
                value=[f"{p}.parquet" for p in EXPORT_PARTS],
            )  # fmt: skip
        prepared = [(part, self._import_plan(path, part)) for part, path in found]
        added: dict[str, int] = {}
        with self._write() as con:
            for part, plan in prepared:
                before = con.total_changes
                for sql, rows in plan:
                    con.executemany(sql, rows)
                added[part] = con.total_changes - before
        return added

    @staticmethod
    def _unpack_backup(archive: Path, into: Path) -> None:
        """The parts' files of a backup archive, written into ``into``; any other member
        is ignored (never extracted by its own name), and a part larger than the reading
        limit is refused before it is inflated."""
        import zipfile

        from toolkit.io.edge import limits

        wanted = {f"{part}.{fmt}" for part in EXPORT_PARTS for fmt in ("parquet", "csv")}
        limit = limits().max_file_bytes
        try:
            with zipfile.ZipFile(archive) as zipped:
                for info in zipped.infolist():
                    if info.filename not in wanted:
                        continue
                    if info.file_size > limit:
                        raise InputError(
                            str(archive), f"a backup part larger than the limit ({limit} bytes)",
                            field=info.filename, value=info.file_size,
                        )  # fmt: skip
                    (into / info.filename).write_bytes(zipped.read(info))
        except (zipfile.BadZipFile, OSError, EOFError) as exc:
            raise InputError(str(archive), f"not a readable zip backup ({exc})") from exc

    def import_events(self, path: str | Path, *, what: str = "ratings") -> int:
        """Append what an export (Parquet or CSV) holds that the store does not hold yet;
        returns how many rows were added. All or nothing, in one transaction.

        Events (``ratings``, ``labels``, ``items``) are matched by ``uid``: importing
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
            for sql, rows in plan:
                con.executemany(sql, rows)
            added = con.total_changes - before
        return int(added)

    def _import_plan(self, path: str | Path, what: str) -> list[tuple[str, list[tuple[Any, ...]]]]:
        """The statements and their checked rows that import ``path`` as part ``what``."""
        self._events_of(what)  # checks ``what``
        name = str(path)
        target = Path(path)
        fmt = _format_of(target)
        from toolkit.io import edge

        if not target.exists():
            raise InputError(name, "no such export file")
        raw = edge.read_frame(edge.read_bytes(target), name, fmt)
        if what == "ratings" and "instrument" not in raw.columns:
            # An export from before instruments were versioned: its ratings say so ("").
            raw = raw.with_columns(instrument=pl.lit("", dtype=pl.String))
        schema = _EXPORT_SCHEMAS[what]
        needed = [c for c in schema if c != "event_id"]
        missing = [c for c in needed if c not in raw.columns]
        if missing:
            raise InputError(name, "missing column of an export", field="columns", value=missing)
        rows = []
        for i, rec in enumerate(raw.select(needed).iter_rows(named=True)):
            line = i + 2 if fmt == "csv" else None
            if what == "drafts":
                rows.append(self._draft_row(name, rec, line))
            else:
                rows.append(self._import_row(name, rec, what, line))
        if what == "drafts":
            games = [r[1:6] + r[7:] for r in rows if r[0] == "game"]
            items = [r[1:4] + r[5:] for r in rows if r[0] == "item"]
            return [(_MERGE_DRAFT, games), (_MERGE_ITEM_DRAFT, items)]
        table = {"ratings": "rating_events", "labels": "label_events",
                 "items": "item_rating_events"}[what]  # fmt: skip
        cols = ", ".join(needed)
        marks = ", ".join("?" for _ in needed)
        return [(f"INSERT OR IGNORE INTO {table} ({cols}) VALUES ({marks})", rows)]

    @staticmethod
    def _draft_row(name: str, rec: Mapping[str, Any], line: int | None) -> tuple[Any, ...]:
        """A draft of a ``drafts`` export, checked: (kind, rater, id, score, answers,
        notes, text_sha256, updated_at)."""
        kind = rec["kind"]
        if kind not in ("game", "item"):
            raise InputError(name, "kind must be game or item", field="kind", value=kind,
                             line=line)  # fmt: skip
        for field in ("rater", "id", "updated_at"):
            if not isinstance(rec[field], str) or not rec[field].strip():
                raise InputError(name, "must not be empty", field=field, value=rec[field],
                                 line=line)  # fmt: skip
        try:
            parsed = datetime.fromisoformat(rec["updated_at"].replace("Z", "+00:00"))
        except ValueError:
            raise InputError(name, "not an ISO-8601 timestamp", field="updated_at",
                             value=rec["updated_at"], line=line) from None  # fmt: skip
        # As the store writes it (UTC, microseconds): the newer draft is the later string.
        updated = (parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)).astimezone(UTC)
        stamp = updated.isoformat(timespec="microseconds")
        score = rec["score"]
        if isinstance(score, str):
            score = int(score) if score.strip().lstrip("-").isdigit() else score
        low, high = (MIN_SCORE, MAX_SCORE) if kind == "game" else (ITEM_MIN_SCORE, ITEM_MAX_SCORE)
        if score is not None and not (type(score) is int and low <= score <= high):
            raise InputError(name, f"score must be a whole number from {low} to {high} or "
                             "empty", field="score", value=score, line=line)  # fmt: skip
        notes = rec["notes"] or ""
        if not isinstance(notes, str):
            raise InputError(name, "must be text", field="notes", value=notes, line=line)
        answers_text = rec["answers"] or "{}"
        try:
            answers = json.loads(answers_text)
        except (TypeError, json.JSONDecodeError):
            answers = None
        if not isinstance(answers, dict) or (kind == "item" and answers):
            raise InputError(name, "answers must be a JSON object ({} for an item)",
                             field="answers", value=answers_text, line=line)  # fmt: skip
        digest = rec["text_sha256"]
        if kind == "item":
            if not isinstance(digest, str) or len(digest) != 64 or not set(digest) <= _HEX:
                raise InputError(name, "text_sha256 must be 64 lowercase hex digits",
                                 field="text_sha256", value=digest, line=line)  # fmt: skip
            return ("item", rec["rater"], rec["id"], score, "{}", notes, digest, stamp)
        return ("game", rec["rater"], rec["id"], score, _check_answers(name, answers), notes,
                None, stamp)  # fmt: skip

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
        try:
            parsed = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
        except ValueError as exc:
            raise InputError(
                name, "not an ISO-8601 timestamp", field="created_at", value=created, line=line
            ) from exc
        utc = (parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)).astimezone(UTC)
        iso = utc.isoformat(timespec="microseconds")
        if what == "ratings":
            try:
                score = _check_score(name, int(str(rec["score"])), line)
            except (TypeError, ValueError) as exc:
                raise InputError(
                    name, "score must be a whole number from 1 to 5", field="score",
                    value=rec["score"], line=line,
                ) from exc  # fmt: skip
            answers_text = rec["answers"] or "{}"
            try:
                answers = json.loads(answers_text)
            except (TypeError, json.JSONDecodeError) as exc:
                raise InputError(
                    name, "answers must be JSON", field="answers", value=answers_text, line=line
                ) from exc
            return (
                req("uid"),
                req("rater"),
                req("transcript_id"),
                score,
                _check_answers(name, answers),
                str(rec["notes"] or ""),
                iso,
                str(rec["instrument"] or ""),
            )
        if what == "items":
            score = rec["score"]
            with contextlib.suppress(TypeError, ValueError):
                score = int(str(score)) if not isinstance(score, bool) else score
            digest = req("text_sha256")
            if not _item_score_ok(score, none_ok=False):
                raise InputError(name, _ITEM_SCORE_RULE, field="score", value=rec["score"],
                                 line=line)  # fmt: skip
            if len(digest) != 64 or not set(digest) <= _HEX:
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

    def _events_of(self, what: str) -> pl.DataFrame:
        if what == "ratings":
            return self.events()
        if what == "labels":
            return self.label_events()
        if what == "items":
            return self.item_events()
        if what == "drafts":
            return self.all_drafts()
        raise InputError(
            self._name, f"what must be one of {', '.join(EXPORT_PARTS)}", field="what",
            value=what,
        )  # fmt: skip

    def __repr__(self) -> str:
        return f"RatingStore({self._name!r})"


def _statements(script: str) -> list[str]:
    """Split a migration script into statements (``sqlite3.complete_statement`` aware)."""
    out: list[str] = []
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                out.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        out.append(buffer.strip())
    return out


def _format_of(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        return "parquet"
    if suffix == ".csv":
        return "csv"
    raise InputError(str(path), "an export is .parquet or .csv", field="suffix", value=suffix)


def _frame(rows: Sequence[Sequence[Any]], schema: Mapping[str, pl.DataType]) -> pl.DataFrame:
    cols = list(schema)
    records = [dict(zip(cols, r, strict=True)) for r in rows]
    for rec in records:
        rec["created_at"] = datetime.fromisoformat(rec["created_at"])
    return pl.DataFrame(records, schema=dict(schema), orient="row")


def open_rating_store(path: str | Path, *, create: bool = True) -> RatingStore:
    """Open (or create) the ratings store at ``path``; see :class:`RatingStore`."""
    return RatingStore(path, create=create)
