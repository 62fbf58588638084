"""The ratings store itself: one class composed from the parts of this package."""

from __future__ import annotations

import threading
from pathlib import Path

from toolkit.errors import InputError
from toolkit.ratings.store.backup import Backup
from toolkit.ratings.store.opening import Opening
from toolkit.ratings.store.roster import Roster
from toolkit.ratings.store.rows import checked_text
from toolkit.ratings.store.saves import Saves
from toolkit.ratings.store.schema import Migrations
from toolkit.ratings.store.skips import Skips


class RatingStore(Backup, Saves, Skips, Roster, Opening, Migrations):
    """A SQLite ratings store (see :mod:`toolkit.ratings.store`).

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
        instrument: the version of the engagement instrument a game rating is stamped
            with when its save names none: the caller's instrument (the store knows no
            rubric; the rating server and ``toolkit rate`` give the packaged one's,
            ``toolkit.rubrics.discussion.DEFAULT_ENGAGEMENT_SCALE.version``). Not
            given, such a rating is stamped "" (its instrument is not known), as ratings
            saved before instruments were versioned are.

    Raises:
        InputError: the file is missing (``create=False``), is not SQLite, is another
            kind of SQLite database, or was written by a newer toolkit.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        create: bool = True,
        keep_open: bool = False,
        instrument: str = "",
    ) -> None:
        self.path = Path(path)
        self._name = str(path)
        self._keep_open = keep_open
        self._instrument = checked_text(self._name, instrument, "instrument") if instrument else ""
        self._local = threading.local()
        self._write_lock = threading.Lock()
        #: Test hook: called inside a save's transaction, just before COMMIT.
        self._before_commit = None
        exists = self.path.exists()
        if not exists and not create:
            raise InputError(self._name, "no such ratings store")
        if exists:
            self._check_file()
            self._check_integrity()
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._migrate()

    def __repr__(self) -> str:
        return f"RatingStore({self._name!r})"


def open_rating_store(
    path: str | Path, *, create: bool = True, instrument: str = ""
) -> RatingStore:
    """Open (or create) the ratings store at ``path``; see :class:`RatingStore`."""
    return RatingStore(path, create=create, instrument=instrument)
