"""A folder on the local disk as a :class:`~toolkit.io.source_base.Source`: listed with
``os.scandir``, read through the reading edge (the fast bulk read for tick files),
written through :mod:`toolkit.io.atomic`."""

from __future__ import annotations

import contextlib
import glob as globmod
import operator
import os
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path

from toolkit._record import FieldsEqual, FieldsRepr, record
from toolkit.errors import InputError
from toolkit.io import edge
from toolkit.io.atomic import atomic_path, remove_leftovers
from toolkit.io.source_base import Folder, Kind, Source

__all__ = ["LocalSource"]

_NAME = operator.attrgetter("name")
_REGULAR = operator.methodcaller("is_file", follow_symlinks=False)


def _is_dir(entry: os.DirEntry[str]) -> bool:
    """Whether the entry is a folder or a link to one (a symlink loop is neither)."""
    try:
        return entry.is_dir()
    except OSError:
        return False


@record  # eq, hash, repr: toolkit._record
class LocalSource(FieldsEqual, FieldsRepr, Source):
    """A folder on the local disk: bytes read through the reading edge.

    Attributes:
        path: the folder as given (relative paths stay relative, as the user named them).
    """

    path: Path

    @property
    def root(self) -> str:  # type: ignore[override]
        return os.fspath(self.path)

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def disk(self) -> Path:
        return self.path

    def url(self, path: str | None = None) -> str:
        return self.root if path is None else path

    def join(self, folder: str, *names: str) -> str:
        return os.path.join(folder, *names)

    def lookup(self, folder: str, ref: str) -> str | None:
        return os.fspath(Path(folder) / ref)

    def at(self, path: str) -> LocalSource:
        return LocalSource(Path(path))

    def identity(self, path: str | None = None) -> str:
        return str(Path(self.root if path is None else path).resolve())

    def absolute(self, path: str | None = None) -> str:
        return os.path.abspath(self.root if path is None else path)

    def same_store(self, other: Source) -> bool:
        return isinstance(other, LocalSource)

    def kind(self, path: str | None = None) -> Kind:
        where = self.path if path is None else Path(path)
        if where.is_dir():
            return "folder"
        return "file" if where.exists() else "missing"

    def subfolders(self, path: str | None = None) -> list[str]:
        folder = self.root if path is None else path
        entries, problem = edge.scan_folder(folder)
        if problem is not None:
            raise InputError(folder, problem)
        return sorted(e.path for e in entries if e.is_dir())

    def glob(self, pattern: str) -> list[str]:
        return sorted(globmod.glob(pattern))

    def list_many(
        self, roots: Sequence[str], subs: Sequence[str] = ("",), *, marks: bool = True
    ) -> list[dict[str, Folder]]:
        return [
            {sub: self._folder(self.join(root, sub) if sub else root, root, marks) for sub in subs}
            for root in roots
        ]

    @staticmethod
    def _folder(path: str, within: str, marks: bool) -> Folder:
        """One folder's entries: regular files (and symlinks to regular files inside
        ``within``), subfolders, and the entries that cannot be read as a file."""
        if not marks and (names := edge.regular_names(path)) is not None:
            return Folder(path, names, {}, [], [])  # regular files only, no DirEntry made
        entries, problem = edge.scan_folder(path)
        if problem is not None:
            return Folder(path, problem=problem)
        if all(map(_REGULAR, entries)):  # the common case: regular files only
            files = list(map(_NAME, entries))
            usable = entries
            folders: list[str] = []
            skipped: list[tuple[str, str]] = []
        else:
            usable, folders, skipped = [], [], []
            for e in entries:
                if (
                    e.is_file(follow_symlinks=False)
                    or (why := edge.entry_problem(e, within)) is None
                ):
                    usable.append(e)
                    continue
                skipped.append((e.name, why))  # a folder too: it is not a file either
                if _is_dir(e):  # a link to a folder counts, as for Path.is_dir
                    folders.append(e.name)
            files = [e.name for e in usable]
        noted: dict[str, tuple[int, int]] = {}
        if marks:  # file_mark, inline: a warm load stats every tick file
            for e in usable:
                st = e.stat()
                noted[e.name] = (st.st_size, hash((st.st_mtime_ns, st.st_ctime_ns, st.st_ino)))
        return Folder(path, files, noted, skipped, folders)

    def is_link(self, path: str) -> bool:
        return os.path.islink(path)

    def fetch(self, paths: Sequence[str]) -> dict[str, bytes | InputError]:
        out: dict[str, bytes | InputError] = {}
        for path in paths:
            try:
                out[path] = edge.read_bytes(path)
            except InputError as err:
                out[path] = err
        return out

    def fetch_some(self, paths: Sequence[str], budget: int) -> list[bytes | InputError]:
        return edge.read_many_fast(paths, edge.limits().max_file_bytes, budget)

    def fetch_packed(self, paths: Sequence[str], budget: int) -> edge.Packed:
        return edge.read_packed(paths, edge.limits().max_file_bytes, budget)

    def put_many(
        self, files: Mapping[str, bytes], *, durable: bool = True, own_folders: bool = False
    ) -> dict[str, OSError | InputError]:
        failed: dict[str, OSError | InputError] = {}
        for path, data in files.items():
            try:  # one file that cannot be written never keeps the others from theirs
                folder = os.path.dirname(path)
                if own_folders:
                    os.makedirs(folder, exist_ok=True)
                    remove_leftovers(Path(folder))
                with atomic_path(path, durable=durable) as tmp:
                    tmp.write_bytes(data)
            except OSError as exc:  # named by the file it was to replace, not a temp file
                failed[path] = OSError(exc.errno, exc.strerror, path)
            except InputError as exc:
                failed[path] = exc
        return failed

    def remove_many(self, paths: Sequence[str]) -> None:
        for path in paths:
            with contextlib.suppress(OSError):
                if stat.S_ISREG(os.lstat(path).st_mode):
                    os.unlink(path)
