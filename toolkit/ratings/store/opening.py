"""Which file a store is: the default store beside the transcripts, telling a ratings
store apart from any other file by its header, and refusing a damaged or foreign file
before anything is written to it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from toolkit.errors import InputError
from toolkit.io.edge import read_head, sqlite_problem
from toolkit.ratings.store.connection import BUSY_TIMEOUT_MS, Connections, readable
from toolkit.ratings.store.schema import APPLICATION_ID

#: The file a session uses when no store is named, beside the transcripts.
DEFAULT_STORE_NAME = "ratings.db"

_SQLITE_MAGIC = b"SQLite format 3\x00"


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
    try:
        head = read_head(path, 72)
    except InputError:
        return False
    return (
        len(head) == 72
        and head[:16] == _SQLITE_MAGIC
        and int.from_bytes(head[68:72], "big") == APPLICATION_ID
    )


class Opening(Connections):
    """The checks a store makes of its file before it opens it for writing."""

    def _check_file(self) -> None:
        if self.path.is_dir():
            raise InputError(self._name, "is a folder, not a ratings store")

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
        if self.path.stat().st_size == 0:
            return
        # Read only (``mode=ro``; the file URI quotes ``?``, ``#`` and ``%``), so that a
        # file refused here, whatever it is, is left byte for byte as it was.
        uri = f"{self.path.resolve().as_uri()}?mode=ro"
        try:
            con = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000)
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
            raise sqlite_problem(self._name, readable(exc)) from exc
        if found != ["ok"]:
            raise sqlite_problem(self._name, RuntimeError(str(found[0]) if found else "damaged"))
        if app_id != APPLICATION_ID and set(tables) - {"sqlite_sequence"}:
            raise InputError(
                self._name,
                "a SQLite database of another kind, not a toolkit ratings store",
                field="tables",
                value=tables,
            )
