"""The store's schema: its tables as migrations, the version and mark of the file, and
bringing an older file up to date when a store is opened.

The schema is versioned (``PRAGMA user_version``) and brought up to date by
:data:`MIGRATIONS` when a store is opened; the file is marked as a toolkit ratings store
by ``PRAGMA application_id`` so other SQLite files (a game database) are told apart.
"""

from __future__ import annotations

import sqlite3

from toolkit.errors import InputError
from toolkit.ratings.store.connection import Connections

#: ``PRAGMA application_id`` of a toolkit ratings store ("TkRt").
APPLICATION_ID = 0x546B5274

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
    # 7: the order of submission the store records (``seq``), which decides the rating
    # (and the reviewer label) that counts, not wall-clock stamps (which a backup from
    # another machine may carry ahead of this one's); ``origin``: "" for this store's
    # session, else the session id of another session's backup imported as that
    # session's data (never counted here); ``store_meta``: the session identity a
    # restore adopted. Existing rows keep the order they counted in (time, event id).
    """
    ALTER TABLE rating_events ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE rating_events ADD COLUMN origin TEXT NOT NULL DEFAULT '';
    ALTER TABLE item_rating_events ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE item_rating_events ADD COLUMN origin TEXT NOT NULL DEFAULT '';
    DROP TRIGGER rating_events_no_update;
    DROP TRIGGER item_rating_events_no_update;
    UPDATE rating_events SET seq = ranked.n FROM (SELECT event_id AS id, row_number() OVER
        (ORDER BY created_at, event_id) AS n FROM rating_events) AS ranked
        WHERE rating_events.event_id = ranked.id;
    UPDATE item_rating_events SET seq = ranked.n FROM (SELECT event_id AS id, row_number()
        OVER (ORDER BY created_at, event_id) AS n FROM item_rating_events) AS ranked
        WHERE item_rating_events.event_id = ranked.id;
    CREATE TRIGGER rating_events_no_update BEFORE UPDATE ON rating_events
    BEGIN SELECT RAISE(ABORT, 'rating_events is append-only'); END;
    CREATE TRIGGER item_rating_events_no_update BEFORE UPDATE ON item_rating_events
    BEGIN SELECT RAISE(ABORT, 'item_rating_events is append-only'); END;
    ALTER TABLE label_events ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
    DROP TRIGGER label_events_no_update;
    UPDATE label_events SET seq = ranked.n FROM (SELECT event_id AS id, row_number() OVER
        (ORDER BY created_at, event_id) AS n FROM label_events) AS ranked
        WHERE label_events.event_id = ranked.id;
    CREATE TRIGGER label_events_no_update BEFORE UPDATE ON label_events
    BEGIN SELECT RAISE(ABORT, 'label_events is append-only'); END;
    CREATE INDEX label_events_seq ON label_events (seq);
    CREATE INDEX rating_events_seq ON rating_events (seq);
    CREATE INDEX item_rating_events_seq ON item_rating_events (seq);
    CREATE TABLE store_meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    """,
    # 8: a rater's skip of a game or persona item, with their reason (append-only; the
    # draft of the unit is left as it was, and a skip is no rating).
    """
    CREATE TABLE skip_events (
        event_id INTEGER PRIMARY KEY AUTOINCREMENT,
        rater TEXT NOT NULL CHECK (length(trim(rater)) > 0),
        unit_id TEXT NOT NULL CHECK (length(unit_id) > 0),
        reason TEXT NOT NULL CHECK (length(trim(reason)) > 0),
        created_at TEXT NOT NULL
    );
    CREATE INDEX skip_events_latest ON skip_events (rater, unit_id, event_id);
    """
    + _APPEND_ONLY.format(table="skip_events"),
    # 9: a skip's unique id (``uid``, a random UUID like every other event's: a restore
    # or an import matches skips by it, so twice adds nothing) and its ``origin`` ("" for
    # this store's session, else the session id of another session's backup it came in
    # with: kept, never shown here). Existing skips get a fresh random UUID (version 4).
    """
    ALTER TABLE skip_events ADD COLUMN uid TEXT NOT NULL DEFAULT '';
    ALTER TABLE skip_events ADD COLUMN origin TEXT NOT NULL DEFAULT '';
    DROP TRIGGER skip_events_no_update;
    UPDATE skip_events SET uid = lower(hex(randomblob(4)) || '-' || hex(randomblob(2))
        || '-4' || substr(hex(randomblob(2)), 2) || '-'
        || substr('89ab', 1 + abs(random() % 4), 1) || substr(hex(randomblob(2)), 2) || '-'
        || hex(randomblob(6)));
    CREATE TRIGGER skip_events_no_update BEFORE UPDATE ON skip_events
    BEGIN SELECT RAISE(ABORT, 'skip_events is append-only'); END;
    CREATE UNIQUE INDEX skip_events_uid ON skip_events (uid);
    """,
    # adjudications (issue 41): the organiser's decision where raters disagree, kept
    # beside the raters' ratings (never over them): a unit (game or persona item), the
    # question decided (``score`` or an instrument question's key), the value as JSON
    # (a score, or true/false), a note, who decided and when; append-only, the latest per
    # unit and question in the store's order (``seq``) counts; ``origin`` as for ratings.
    # A session's rater whose remaining games were given to others takes no new ones
    # (``taking`` 0) when raters are added later.
    """
    CREATE TABLE adjudication_events (
        event_id INTEGER PRIMARY KEY AUTOINCREMENT,
        uid TEXT NOT NULL UNIQUE,
        unit_id TEXT NOT NULL CHECK (length(unit_id) > 0),
        question TEXT NOT NULL CHECK (length(question) > 0),
        value TEXT NOT NULL,
        note TEXT NOT NULL DEFAULT '',
        adjudicator TEXT NOT NULL CHECK (length(trim(adjudicator)) > 0),
        created_at TEXT NOT NULL,
        seq INTEGER NOT NULL DEFAULT 0,
        origin TEXT NOT NULL DEFAULT ''
    );
    CREATE INDEX adjudication_events_seq ON adjudication_events (unit_id, question, seq);
    ALTER TABLE session_raters ADD COLUMN taking INTEGER NOT NULL DEFAULT 1;
    """
    + _APPEND_ONLY.format(table="adjudication_events"),
    # the order a session hands out its units (``random`` or ``informative``) and, per
    # unit, the probability it was drawn into the raters' queues with, whether it was,
    # and the judge's score and predicted error it was drawn by (null when not given):
    # the estimate weighs each rated unit by the inverse of its probability. Append-only,
    # matched by ``uid`` on a restore; ``origin`` as a skip's.
    """
    CREATE TABLE draw_events (
        event_id INTEGER PRIMARY KEY AUTOINCREMENT,
        uid TEXT NOT NULL UNIQUE,
        unit_id TEXT NOT NULL CHECK (length(unit_id) > 0),
        draw_order TEXT NOT NULL CHECK (draw_order IN ('random', 'informative')),
        probability REAL NOT NULL CHECK (probability > 0 AND probability <= 1),
        drawn INTEGER NOT NULL CHECK (drawn IN (0, 1)),
        judge_score REAL,
        uncertainty REAL CHECK (uncertainty IS NULL OR uncertainty >= 0),
        created_at TEXT NOT NULL,
        origin TEXT NOT NULL DEFAULT ''
    );
    CREATE INDEX draw_events_unit ON draw_events (unit_id, event_id);
    """
    + _APPEND_ONLY.format(table="draw_events"),
)
SCHEMA_VERSION = len(MIGRATIONS)

#: The columns a save writes into the events tables (all but ``event_id``).
RATING_COLUMNS = (
    "uid", "rater", "transcript_id", "score", "answers", "notes", "created_at", "instrument",
)  # fmt: skip
ITEM_COLUMNS = ("uid", "rater", "item_id", "score", "notes", "text_sha256", "created_at")


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


class Migrations(Connections):
    """Bring the file up to the schema this toolkit knows (and say which it holds)."""

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
