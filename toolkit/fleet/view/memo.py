"""What ``toolkit view --watch`` keeps between rounds: the site records of every find
already scored, each under a stamp of the files it was scored from.

A stamp is the sorted names and stamps (:func:`toolkit.io.stamp.file_stamp`: size,
modification and change time, inode, so a same-size rewrite within the clock's
resolution is seen) of every file
under a find's path, and of the files beside it that decide its score (a persona kit, a
ratings file, the agent transcripts an iteration log can name). Looking costs one
``stat`` a file; a find whose stamp is unchanged is not loaded or scored again, its
records (and the notes it gave) are replayed. Only local files are stamped: a find in
object storage or a database is scored again every round. A ``--repo`` is not stamped
(an iteration log is scored again when the log itself changes).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from toolkit.fleet.families import Found
from toolkit.io.source import open_source
from toolkit.io.stamp import FileStamp, file_stamp
from toolkit.views.site import SiteRun

#: A find's stamp: (path, file stamp) of every file it was scored from.
Stamp = tuple[tuple[str, FileStamp], ...]


def _files(path: str) -> Iterable[tuple[str, FileStamp]]:
    """(path, file stamp) of ``path`` (a file) or of every file under it."""
    try:
        st = os.stat(path)
    except OSError:
        return
    if not os.path.isdir(path):
        yield (path, file_stamp(st))
        return
    for folder, dirs, names in os.walk(path):
        dirs.sort()
        for name in sorted(names):
            full = os.path.join(folder, name)
            try:
                s = os.stat(full)
            except OSError:  # removed while we looked: the next round sees it gone
                continue
            yield (full, file_stamp(s))


def stamp_of(paths: Sequence[str]) -> Stamp | None:
    """The stamp of the files under ``paths``; ``None`` when one is not a local path
    (then the find is never taken from the memo)."""
    local = []
    for p in paths:
        disk = open_source(p).disk
        if disk is None:
            return None
        local.append(str(disk))
    return tuple(entry for p in local for entry in _files(p))


@dataclass
class Entry:
    """One find's records as scored: its runs, the notes it gave, the agent transcripts
    it attached (so they are not reported as loose), and the notes of its lenient reads
    (so a replay says them again)."""

    stamp: Stamp
    runs: list[SiteRun]
    notes: list[str]
    attached: set[str]
    lenient: list[str] = field(default_factory=list)


@dataclass
class Memo:
    """The finds scored in earlier rounds, by family and path; ``hits`` and ``misses``
    count the current round's replays and fresh scorings."""

    entries: dict[tuple[str, str], Entry] = field(default_factory=dict)
    hits: int = 0
    misses: int = 0
    #: This round's finds and their stamps (what :meth:`state` compares between rounds).
    seen: dict[tuple[str, str], Stamp | None] = field(default_factory=dict)
    #: Whether a find of this round could not be stamped (in object storage).
    unstamped: bool = False

    def start_round(self) -> None:
        """Count and look afresh (the entries stay)."""
        self.hits = self.misses = 0
        self.seen = {}
        self.unstamped = False

    def state(self) -> tuple[tuple[tuple[str, str], Stamp | None], ...]:
        """The finds of this round and their stamps: equal between two rounds exactly
        when no find came, went or changed (unstamped finds aside)."""
        return tuple(sorted(self.seen.items(), key=lambda kv: kv[0]))

    def look(self, f: Found, stamp: Stamp | None) -> None:
        """Note that ``f`` is here with this stamp (a find read every round, such as a
        calibration result, still decides whether the site is written again)."""
        self.seen[(f.family, f.path)] = stamp
        self.unstamped = self.unstamped or stamp is None

    def get(self, f: Found, stamp: Stamp | None) -> Entry | None:
        """The entry of ``f`` if it was scored from files with this very stamp."""
        self.look(f, stamp)
        entry = self.entries.get((f.family, f.path))
        if stamp is None or entry is None or entry.stamp != stamp:
            self.misses += 1
            return None
        self.hits += 1
        return entry

    def put(self, f: Found, stamp: Stamp | None, entry: Entry) -> None:
        """Keep ``f``'s records (never for an unstamped find)."""
        if stamp is not None:
            self.entries[(f.family, f.path)] = entry

    def forget_except(self, kept: Iterable[Found]) -> None:
        """Drop the entries of finds that are gone (so a removed run frees its records)."""
        keep = {(f.family, f.path) for f in kept}
        for key in [k for k in self.entries if k not in keep]:
            del self.entries[key]
