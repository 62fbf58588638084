"""The :class:`Source` interface: a folder of named byte strings, wherever it lives
(see :mod:`toolkit.io.source`, which opens one), what a listing finds in a folder
(:class:`Folder`), and the change marks a cache keys on."""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import Any, Literal

from toolkit._record import FieldsEqual, FieldsRepr, record
from toolkit.errors import InputError
from toolkit.io import edge

__all__ = ["Folder", "Kind", "Source", "file_mark", "version_mark"]

#: What :meth:`Source.kind` can say of a path (``"database"``: a database's tables,
#: :mod:`toolkit.io.source_postgres`).
Kind = Literal["folder", "file", "missing", "unknown", "database"]


@record  # eq, hash, repr: toolkit._record
class Folder(FieldsEqual, FieldsRepr):
    """What one folder holds directly, found without reading a file.

    Attributes:
        path: the folder's path in its source.
        files: the names of the files (objects) that can be read as one, in listing
            order; a symlink counts when it leads to a regular file inside the folder
            listed by :meth:`Source.list_many`.
        marks: ``{name: (size, mark)}`` for each file when marks were asked for; the
            mark changes when the file is rewritten (:func:`file_mark`,
            :func:`version_mark`).
        skipped: ``(name, why)`` of each entry that cannot be read as a file (a FIFO,
            a folder, a dangling or looping symlink, a link out of the listed folder);
            object storage has none.
        folders: the names of the subfolders (a local one is also in ``skipped``).
        problem: why the folder could not be listed (a missing folder lists as empty).
    """

    path: str
    files: Sequence[str] = ()
    marks: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    skipped: Sequence[tuple[str, str]] = ()
    folders: Sequence[str] = ()
    problem: str | None = None

    @property
    def empty(self) -> bool:
        """Whether nothing at all was found in it."""
        return not (self.files or self.skipped or self.folders)


class Source(ABC):
    """A folder of named byte strings, wherever it lives (see the module's docstring).

    Attributes:
        root: the folder's path in the source's own syntax.
    """

    root: str

    # -- naming ---------------------------------------------------------------

    @property
    def name(self) -> str:
        """The last part of the root (a run's slug)."""
        return self.root.rstrip("/").rsplit("/", 1)[-1]

    @property
    def disk(self) -> Path | None:
        """The local folder these bytes are in, when they are on this machine's disk
        (for what only a real folder allows: git, sidecars beside a log); else ``None``."""
        return None

    @abstractmethod
    def url(self, path: str | None = None) -> str:
        """How a path of this source (the root by default) is shown to a user."""

    @abstractmethod
    def join(self, folder: str, *names: str) -> str:
        """The path of ``names`` inside the path ``folder`` of this source."""

    @abstractmethod
    def lookup(self, folder: str, ref: str) -> str | None:
        """The path that ``ref``, a relative path written in a file of ``folder``, names
        (``..`` parts followed); ``None`` when it leads out of the storage."""

    @abstractmethod
    def at(self, path: str) -> Source:
        """The source rooted at ``path``, a path of this one (same storage, same
        options)."""

    @abstractmethod
    def identity(self, path: str | None = None) -> str:
        """One string per place (a local path resolved; a remote path's URL), so two
        names of one folder are told to be one."""

    @abstractmethod
    def absolute(self, path: str | None = None) -> str:
        """The path as a name that does not depend on the working folder (a local path
        made absolute, its links kept; a remote path's URL)."""

    @abstractmethod
    def same_store(self, other: Source) -> bool:
        """Whether ``other`` is reached the same way (the local disk; one storage scheme
        with the same options), so that this source can list and fetch its paths too."""

    # -- listing --------------------------------------------------------------

    @abstractmethod
    def kind(self, path: str | None = None) -> Kind:
        """What the path (the root by default) is, when that can be told without
        contacting a remote storage: ``"unknown"`` otherwise (found when it is listed)."""

    @abstractmethod
    def subfolders(self, path: str | None = None) -> list[str]:
        """The folders directly inside a folder (the root by default): paths, sorted.

        Raises:
            InputError: the folder cannot be listed (a remote one: does not exist).
        """

    @abstractmethod
    def glob(self, pattern: str) -> list[str]:
        """The paths of the folders that ``pattern`` (a glob of this source's paths)
        matches, sorted (a local match may also be a file).

        Raises:
            InputError: the storage cannot be listed, or its bucket does not exist.
        """

    @abstractmethod
    def list_many(
        self, roots: Sequence[str], subs: Sequence[str] = ("",), *, marks: bool = True
    ) -> list[dict[str, Folder]]:
        """What the folders ``subs`` (relative, ``""`` the root itself) of each root hold,
        as ``{sub: Folder}`` per root, with each file's size and change mark when
        ``marks``. A remote source lists every root in one concurrent request.

        Raises:
            InputError: a remote folder cannot be listed (a local folder that cannot be
                has its :attr:`Folder.problem`).
        """

    def is_link(self, path: str) -> bool:
        """Whether ``path`` is a symbolic link (one that leads elsewhere)."""
        return False

    # -- reading --------------------------------------------------------------

    @abstractmethod
    def fetch(self, paths: Sequence[str]) -> dict[str, bytes | InputError]:
        """The bytes of many files, each held to the reading edge's size limit: bytes,
        or the one-line problem (a missing file's problem has its
        :class:`FileNotFoundError` as ``__cause__`` when the storage says so).

        Raises:
            InputError: the storage could not be reached at all.
        """

    @abstractmethod
    def fetch_some(self, paths: Sequence[str], budget: int) -> list[bytes | InputError]:
        """The bytes of the first of ``paths`` (at least one, in order), stopping once
        ``budget`` bytes are read; a file the listing vetted, so read as fast as the
        storage allows (the local one: :func:`toolkit.io.edge.read_many_fast`)."""

    def fetch_packed(self, paths: Sequence[str], budget: int) -> edge.Packed:
        """:meth:`fetch_some` as one buffer (:class:`~toolkit.io.edge.Packed`): the same
        files, bytes and problems, without a bytes object per file where the storage can
        read so (the local one: :func:`toolkit.io.edge.read_packed`). Here: the bytes of
        :meth:`fetch_some`, packed."""
        return edge.pack(self.fetch_some(paths, budget))

    # -- writing --------------------------------------------------------------

    @abstractmethod
    def put_many(
        self, files: Mapping[str, bytes], *, durable: bool = True, own_folders: bool = False
    ) -> dict[str, OSError | InputError]:
        """Write each file ``{path: bytes}``, each replacing the old one whole (a reader
        sees the old file or the new one); every file is tried.

        Args:
            files: the bytes by path.
            durable: on disk, fsync the file and its folder (``False`` for caches).
            own_folders: the files' folders are the writer's own: leftovers of its
                interrupted writes there are removed first.

        Returns:
            The files that could not be written, with why.
        """

    @abstractmethod
    def remove_many(self, paths: Sequence[str]) -> None:
        """Delete each file by its exact path (never a glob, never a folder, never a
        symlink), best effort: a file that cannot be deleted stays."""


def version_mark(info: Mapping[str, Any]) -> int:
    """An integer that changes when an object is rewritten: its ETag (or generation,
    or modification time), hashed; 0 when the back-end reports none."""
    for key in ("ETag", "etag", "md5Hash", "generation", "LastModified", "mtime", "updated"):
        if info.get(key) is not None:
            digest = hashlib.sha256(str(info[key]).encode()).hexdigest()[:15]
            return int(digest, 16)
    return 0


def file_mark(st: Any) -> int:
    """An integer that changes when a local file is rewritten, for a cache key: its
    modification time, change time and inode, hashed. The change time cannot be set back
    (``os.utime``, ``touch -d`` and ``cp -p`` set it to now), so a same-size edit with the
    old modification time restored still changes the mark; a file replaced by another
    (a rename over it) changes the inode. Python's hash of a tuple of integers is the
    same in every process (integers are not salted), and costs no more than the ``stat``
    a warm load makes anyway."""
    return hash((st.st_mtime_ns, st.st_ctime_ns, st.st_ino))
