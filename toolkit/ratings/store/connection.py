"""The connection and transaction plumbing every part of the store stands on.

A store opens a short-lived SQLite connection per call, or keeps one per thread
(``keep_open``); either way a connection is set up the same way (busy timeout, WAL,
``synchronous=FULL``) and a write is one ``BEGIN IMMEDIATE`` transaction taken in turn on
the store's lock, rolled back on any error. SQLite's complaints become one-line
:class:`~toolkit.errors.InputError` naming the file (:func:`toolkit.io.edge.sqlite_problem`).
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from toolkit.io.edge import sqlite_problem

BUSY_TIMEOUT_MS = 30_000
#: The page cache of each connection a server keeps open (KiB; SQLite's default is 2 MiB).
_KEPT_CACHE_KIB = 512


def readable(exc: Exception) -> Exception:
    """SQLite's complaint about a damaged file, as text even when the damage reached the
    message itself (Python then raises UnicodeDecodeError while decoding it)."""
    if isinstance(exc, UnicodeDecodeError):
        said = bytes(exc.object).decode("utf-8", errors="replace")
        return RuntimeError(said)
    return exc


class Connections:
    """The plumbing of a :class:`~toolkit.ratings.store.RatingStore`: its connections,
    its write transactions and the append of one event. Every part of the store
    subclasses it; the store's ``__init__`` sets these attributes."""

    path: Path
    _name: str
    _keep_open: bool
    _local: threading.local
    _write_lock: threading.Lock
    #: Test hook: called inside a save's transaction, just before COMMIT.
    _before_commit: Callable[[], None] | None
    #: The instrument version a game rating is stamped with when its save names none.
    _instrument: str

    @contextlib.contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        con: sqlite3.Connection | None = getattr(self._local, "con", None)
        fresh = con is None
        if con is None:
            try:
                con = sqlite3.connect(
                    self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None
                )
            except sqlite3.Error as exc:
                raise sqlite_problem(self._name, exc) from exc
        keep = False
        try:
            if fresh:
                con.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
                con.execute("PRAGMA journal_mode = WAL")
                con.execute("PRAGMA synchronous = FULL")
                if self._keep_open:  # one per server thread: a small page cache each
                    con.execute(f"PRAGMA cache_size = -{_KEPT_CACHE_KIB}")
            yield con
            keep = self._keep_open
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
            raise sqlite_problem(self._name, readable(exc)) from exc
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

    def _append(self, table: str, columns: tuple[str, ...], row: tuple[Any, ...]) -> int:
        """Append one event in its own write transaction; return its id."""
        sql = (
            f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)})"
        )
        with self._write() as con:
            event_id = con.execute(sql, row).lastrowid
        assert event_id is not None
        return int(event_id)
