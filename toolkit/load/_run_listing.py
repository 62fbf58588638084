"""Listing token-world runs: what each run folder holds, found without reading a file.

A run is a folder named by its slug::

    <slug>/universe.yaml, conservation.yaml, universe.db,
    <slug>/tick_summaries/ticks/tick_<id>.json, batch_<n>.json, epoch_<n>.json

The folders are listed through a :class:`~toolkit.io.source.Source` (a local folder or
object storage alike); an entry named like a source file that cannot be read as one is
kept with its reason, never dropped silently.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import overload

from toolkit._record import FieldsEqual, FieldsRepr, record
from toolkit.io import edge
from toolkit.io.source import Folder, Source, open_source
from toolkit.load._ticks import collector_paused
from toolkit.summary import plural

__all__ = ["MAX_NUMBER", "Listing", "TickPaths", "list_run", "list_runs"]

#: (Text: ``re`` compiles it on first use, which only a folder of tick files not all plainly named
#: makes; compiled at import, it cost every one-run command, issue 38.)
_TICK_FILE = r"^tick_(\d+)\.json$"
_COMPRESSED_FILE = re.compile(r"^(batch|epoch)_(\d+)\.json$")
_EXTRAS = re.compile(r"^(?:universe\.db|universe\.yaml|conservation\.yaml)$")
#: The folders of a run that hold its files: the run itself, its summaries, its ticks.
_SUBS = ("", "tick_summaries", "tick_summaries/ticks")

#: The largest tick or batch number a frame can hold (Int64).
MAX_NUMBER = 2**63 - 1


@record  # eq, hash, repr: toolkit._record
class Listing(FieldsEqual, FieldsRepr):
    """What a run folder holds, found without reading any file.

    ``key`` names every source file with its size and a mark of its modification and
    change times and inode (:func:`toolkit.io.source.file_mark`; an object's version
    mark, its ETag, in object storage): two listings with the same key hold the same
    bytes, as far as a cache can know. ``source`` is the source the run was listed
    through; the paths are its paths (``bucket/key`` in object storage).
    ``skipped`` holds the entries named like source files that cannot be read as one
    (a FIFO, a folder, a dangling or looping symlink, a link out of the run, a tick
    number beyond 64 bits), each with its reason; they are issues of the load.
    """

    root: Path
    ticks: Sequence[str]
    compressed: tuple[tuple[str, Path], ...]
    extras: tuple[Path, ...]
    key: tuple[tuple[str, int, int], ...]
    source: Source
    summaries: bool = True
    skipped: tuple[tuple[str, str], ...] = ()

    @property
    def slug(self) -> str:
        """The run's slug: its folder name."""
        return self.root.name

    @property
    def shown(self) -> str:
        """The run as the user names it: its URL, or its local path."""
        return self.source.url(str(self.root))


#: Tick file names joined by newlines, each ``tick_<n>.json`` with ``n`` in ASCII digits,
#: no leading zero and at most 18 digits (below 2**63): sorting such names by length, then
#: by text, sorts them by number.
_PLAIN_NAME = r"tick_(?:0|[1-9][0-9]{0,17})\.json"
_PLAIN_TICK_NAMES = re.compile(rf"(?:{_PLAIN_NAME}\n)*{_PLAIN_NAME}")


def _plain_tick_paths(source: Source, folder: Folder) -> TickPaths | tuple[()] | None:
    """The paths of a tick folder's files sorted by tick number, when the folder is plain:
    every entry a file named ``tick_<n>.json`` as token-world writes them (see
    :data:`_PLAIN_TICK_NAMES`); else ``None``, and :func:`_entries` looks at each entry on
    its own.

    The same listing as the entry-by-entry loop in a few C calls (one regular expression
    over the names joined, two sorts, one join and split for the paths) instead of a
    match, an ``int`` and a tuple per entry (docs/performance.md)."""
    if folder.skipped or folder.problem is not None:
        return None
    if not folder.files:
        return ()
    joined = "\n".join(folder.files)
    if (
        joined.count("\n") != len(folder.files) - 1  # a name holding a newline
        or _PLAIN_TICK_NAMES.fullmatch(joined) is None
    ):
        return None
    names = list(folder.files)  # the names checked above, as they are (no new strings)
    names.sort()
    names.sort(key=len)  # stable: by length, then by text, which is by number here
    return TickPaths(source.join(folder.path, ""), "\n".join(names), len(names))


class TickPaths(Sequence[str]):
    """A plain tick folder's file paths in tick order, held as the folder and the file
    names joined by newlines (two strings), not as a string per path.

    A fleet's listing is made before its first file is read and held until the load
    ends: 90,000 path strings cost about 12 MiB of small Python objects, whose memory
    outlived the load (docs/performance.md, "Memory"). The paths are built when they are
    read, a chunk of runs at a time. Equal to any sequence of the same paths."""

    __slots__ = ("_count", "_names", "_prefix")

    def __init__(self, prefix: str, names: str, count: int) -> None:
        self._prefix, self._names, self._count = prefix, names, count

    def _paths(self) -> list[str]:
        return (self._prefix + self._names.replace("\n", "\n" + self._prefix)).split("\n")

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths())

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...
    def __getitem__(self, index: int | slice) -> str | list[str]:
        return self._paths()[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str):
            return len(other) == self._count and list(other) == self._paths()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self._paths()))

    def __repr__(self) -> str:
        return f"TickPaths({self._prefix!r}, {plural(self._count, 'file')})"


class _Found:
    """The key and the skipped entries of one run's listing, as they are found."""

    def __init__(self, source: Source, stat: bool) -> None:
        self.source, self.stat = source, stat
        self.key: list[tuple[str, int, int]] = []
        self.skipped: list[tuple[str, str]] = []

    def entries(
        self, folder: Folder, pattern: re.Pattern[str], rel: str
    ) -> list[tuple[int, re.Match[str], str]]:
        """The entries of ``folder`` named by ``pattern`` that can be read: their number
        (0 for a name without one), match and path; the others are skipped, with why (a
        folder that cannot be listed too)."""
        if folder.problem is not None:
            edge.skipped_input(folder.path, folder.problem)
            self.skipped.append((folder.path, folder.problem))
            self.key.append((folder.path, -1, 0))
        bad = dict(folder.skipped)
        out: list[tuple[int, re.Match[str], str]] = []
        prefix = self.source.join(folder.path, "")  # joined once: a warm load lists every file
        group = pattern.groups  # the group holding the file's number (0: none)
        marks = folder.marks if self.stat else None
        if not bad:  # the common case, in comprehensions: a warm load lists every file
            named = [(m, name) for name in folder.files if (m := pattern.match(name))]
            numbers = [int(m.group(group)) for m, _ in named] if group else [0] * len(named)
            if max(numbers, default=0) <= MAX_NUMBER:
                if marks is not None:
                    self.key.extend([(rel + name, *marks[name]) for _, name in named])
                return [(n, m, prefix + name) for n, (m, name) in zip(numbers, named, strict=True)]
        for name in [*folder.files, *bad] if bad else folder.files:
            if (m := pattern.match(name)) is None:
                continue
            number = int(m.group(group)) if group else 0
            beyond = number > MAX_NUMBER
            if not beyond and name not in bad:
                out.append((number, m, prefix + name))
                if marks is not None:
                    self.key.append((rel + name, *marks[name]))
                continue
            problem = "its number is beyond 64 bits" if beyond else bad[name]
            edge.skipped_input(prefix + name, problem)
            self.skipped.append((prefix + name, f"skipped: {problem}"))
            self.key.append((rel + name, -1, 0))  # a cached load is rebuilt when it changes
        return out


def _listing(source: Source, root: str, found: dict[str, Folder], stat: bool) -> Listing:
    """One run's :class:`Listing` from what its three folders hold."""
    seen = _Found(source, stat)
    folder = found["tick_summaries/ticks"]
    plain = None if stat else _plain_tick_paths(source, folder)
    if plain is None:
        numbered = [(n, p) for n, _, p in seen.entries(folder, re.compile(_TICK_FILE), "ticks/")]
        ticks: Sequence[str] = tuple(p for _, p in sorted(numbered))
    else:
        ticks = plain
    compressed = [
        (m.group(1), n, Path(p))
        for n, m, p in seen.entries(found["tick_summaries"], _COMPRESSED_FILE, "")
    ]
    extras = [Path(p) for _, _, p in seen.entries(found[""], _EXTRAS, "")]
    return Listing(
        root=Path(root),
        ticks=ticks,
        compressed=tuple((k, p) for k, _, p in sorted(compressed)),
        extras=tuple(sorted(extras)),
        key=tuple(sorted(seen.key)),
        source=source,
        summaries="tick_summaries" in found[""].folders,
        skipped=tuple(sorted(seen.skipped)),
    )


def list_runs(
    source: Source, roots: Sequence[str], *, stat: bool = True, only_runs: bool = True
) -> list[Listing]:
    """List runs (one concurrent listing of every run's objects in object storage), with
    their files' sizes and change marks when ``stat`` (a cache needs them).

    A folder that holds nothing is left out; with ``only_runs``, so is a folder without
    ``tick_summaries/`` (not a run).

    Raises:
        InputError: a folder in object storage cannot be listed.
    """
    out: list[Listing] = []
    with collector_paused():  # a listing makes many tuples, none in a cycle
        listed = source.list_many(roots, _SUBS, marks=stat)
        for root, found in zip(roots, listed, strict=True):
            if found[""].empty and found[""].problem is None:
                continue
            listing = _listing(source, root, found, stat)
            if only_runs and not listing.summaries:
                continue
            out.append(listing)
    return out


def list_run(root: str | Path | Source, *, stat: bool = True) -> Listing:
    """List one run folder's source files (see :func:`list_runs`), even an empty one."""
    source = open_source(root)
    found = source.list_many([source.root], _SUBS, marks=stat)[0]
    return _listing(source, source.root, found, stat)
