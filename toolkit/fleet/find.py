"""What is in a folder of runs, and in what order it is scored: the one finder of every
command that takes a folder (``view``, ``compare``, ``quality --all``, ``outcome --all``,
``rate``), on a local folder or in object storage alike.

* :func:`survey` / :func:`discover`: every run, iteration log, game file and chat under a
  source, told by :mod:`toolkit.fleet.families` from names only, in path order (``view``);
* :func:`detect_family`: the one family a folder holds (``compare``, ``rate``);
* :func:`fleet_runs`: the run folders of a fleet folder (``quality --all``, the engine);
* :func:`find_iteration_logs` and :func:`fleet_log_names`: the iteration logs under a
  folder and what each is called in a fleet table (``outcome --all``, ``compare``);
* :func:`find_eval_runs`: the dot-agents eval-harness runs under a folder or repository;
* :func:`chat_files`, :func:`kit_for`, :func:`session_of`: the chats of a folder, the
  persona kit of a chat, the session an agent transcript belongs to.

Each function opens the :class:`~toolkit.io.source.Source` its argument names once (or
takes one) and asks it: a folder on the disk is walked with ``os.walk`` (links are not
followed); a folder in object storage is listed in one recursive listing and walked as
if it were a disk, so a folder is the same runs wherever it lives.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from toolkit.errors import InputError
from toolkit.fleet.families import (
    EXPERIMENT,
    FAMILIES,
    ITER_NAME,
    Found,
    PersonaKit,
    Walk,
    classify,
    file_family,
    is_experiment_file,
    kit_of,
    label,
)
from toolkit.io.source import RemoteSource, Source, open_source

# ---------------------------------------------------------------------------
# Walks: a local folder, or the objects of one recursive listing
# ---------------------------------------------------------------------------


def objects_under(source: Source) -> dict[str, dict[str, Any]]:
    """Every object under a folder in object storage, ``{path under it: info}``, in one
    recursive listing; ``{}`` for a folder on the disk (walked instead).

    Raises:
        InputError: the folder cannot be listed.
    """
    return objects_under_many(source, [source.root])[0]


def objects_under_many(source: Source, folders: Sequence[str]) -> list[dict[str, dict[str, Any]]]:
    """:func:`objects_under` of several folders of ``source`` (its paths), listed
    concurrently in object storage."""
    if isinstance(source, RemoteSource):
        return source.find_many(folders)
    return [{} for _ in folders]


def _local_walk(root: Path) -> Walk:
    for folder, dirs, files in os.walk(root):  # links are not followed
        yield Path(folder).as_posix(), dirs, files


def _listing_walk(root: str, objects: Sequence[str]) -> Walk:
    """An ``os.walk``-like top-down walk of the object keys ``objects`` (relative to
    ``root``), honouring pruned ``dirs``."""
    files: dict[str, list[str]] = {}
    dirs: dict[str, set[str]] = {}
    for key in objects:
        parts = key.strip("/").split("/")
        for depth in range(len(parts) - 1):
            parent = "/".join(parts[:depth])
            dirs.setdefault(parent, set()).add(parts[depth])
        files.setdefault("/".join(parts[:-1]), []).append(parts[-1])
    stack = [""]
    while stack:
        rel = stack.pop()
        here = sorted(dirs.get(rel, ()))
        yield (f"{root}/{rel}" if rel else root), here, sorted(files.get(rel, []))
        stack.extend(f"{rel}/{d}" if rel else d for d in reversed(here))


# ---------------------------------------------------------------------------
# Every run of every family (toolkit view), and the one family (toolkit compare)
# ---------------------------------------------------------------------------


def survey(
    source: str | Path | Source, storage_options: Mapping[str, Any] | None = None
) -> tuple[list[Found], dict[str, PersonaKit]]:
    """Every run, log, game file and chat under ``source`` (a folder, a file or an fsspec
    URL, listed in one recursive listing), in path order, and the persona kits found.

    Raises:
        InputError: no such file, folder or bucket, or one that cannot be listed.
    """
    src = open_source(source, storage_options)
    name = label(source if not isinstance(source, Source) else src.url())
    if src.kind() == "database":  # one find: the database (its URL, to connect)
        return [Found(database_family(src), str(source), name)], {}
    root = src.disk
    if root is None:
        assert isinstance(src, RemoteSource)  # the only source without a disk
        return _survey_remote(src, name)
    if not root.exists():
        raise InputError(root, "no such file or folder")
    if root.is_file():
        return _survey_file(root, name)
    found, kits = classify(_local_walk(root), root.as_posix(), name)
    return [Found(f.family, str(Path(f.path)), f.id) for f in found], kits


def _survey_remote(remote: RemoteSource, name: str) -> tuple[list[Found], dict[str, PersonaKit]]:
    objects = objects_under(remote)
    if not objects:
        # A URL naming one object, not a folder.
        fam = file_family(remote.root.rsplit("/", 1)[-1], chats_only=True)
        try:
            single = bool(fam) and bool(remote.fs.isfile(remote.root))
        except Exception as exc:  # any back-end's failure becomes one line
            raise remote.error(exc) from exc
        if single:
            return [Found(fam, remote.url(), name)], {}
        raise InputError(remote.url(), "no such file or folder (nothing under it)")
    found, kits = classify(_listing_walk(remote.root, list(objects)), remote.root, name)
    as_url = {k: _kit_urls(remote.url, v) for k, v in kits.items()}
    return [Found(f.family, remote.url(f.path), f.id) for f in found], {
        remote.url(k): v for k, v in as_url.items()
    }


def _survey_file(root: Path, name: str) -> tuple[list[Found], dict[str, PersonaKit]]:
    """A chat named alone is still scored by the kit of its folder."""
    folder = root.parent
    try:
        entries = list(os.scandir(folder))
    except OSError:  # an unlistable folder has no kit to offer; the file is still read
        entries = []
    dirs = [e.name for e in entries if e.is_dir(follow_symlinks=False)]
    kit = kit_of(folder.as_posix(), dirs, [e.name for e in entries if e.is_file()])
    kits = {folder.as_posix(): kit} if kit is not None else {}
    family = file_family(root.name, chats_only=True)
    if is_experiment_file(folder.as_posix(), root.name):
        family = EXPERIMENT
    return [Found(family, str(root), name)], kits


def _kit_urls(url: Any, kit: PersonaKit) -> PersonaKit:
    return PersonaKit(
        propositions=url(kit.propositions),
        cassette=url(kit.cassette),
        personas=url(kit.personas) if kit.personas else None,
        baselines=url(kit.baselines) if kit.baselines else None,
    )


def discover(
    source: str | Path | Source, storage_options: Mapping[str, Any] | None = None
) -> list[Found]:
    """Every run, log, game file and chat under ``source`` (see :func:`survey`).

    Raises:
        InputError: no such file or folder.
    """
    return survey(source, storage_options)[0]


def chat_files(source: str | Path) -> list[Path]:
    """The persona chat files of a local ``source``: itself when a file, else every chat
    :func:`discover` finds under it (path order).

    Raises:
        InputError: no such file or folder, or a folder with no chat file in it.
    """
    path = Path(source)
    if path.is_file():
        return [path]
    files = [Path(f.path) for f in discover(path) if f.family == "persona"]
    if not files:
        raise InputError(path, "no chat files (*.jsonl, *.run_messages.json) in it")
    return files


def detect_family(
    source: str | Path | Source, storage_options: Mapping[str, Any] | None = None
) -> str:
    """The one family of the runs in ``source``: ``simulation`` (run folders with
    tick_summaries/), ``eval`` (dot-agents eval-harness runs), ``outcome`` (iter-N.yaml
    files), ``persona`` (chat files) or ``discussion`` (game transcripts, exports or a
    game database); when a folder holds several, the first of
    :data:`~toolkit.fleet.families.FAMILIES`. A single file that is no chat is taken as
    games.

    Raises:
        InputError: nothing recognisable in ``source`` (name ``--family``).
    """
    src = open_source(source, storage_options)
    if src.kind() == "file":
        return file_family(src.name, chats_only=True) or "discussion"
    if src.kind() == "database":
        return database_family(src)
    families = {f.family for f in discover(source, storage_options)}
    for family in FAMILIES:
        if family in families:
            return family
    shown: str | Path = src.url() if isinstance(source, Source) else source
    if src.disk is not None:
        shown = src.disk
    if src.disk is not None and not any(p.is_file() for p in Path(src.disk).rglob("*")):
        raise InputError(shown, "the folder is empty: there is no run in it to read")
    raise InputError(
        shown,
        "no simulation run, iteration log, game or chat found in it (if its runs are "
        f"named otherwise, say which they are: --family {'|'.join(FAMILIES)})",
    )


#: A table only one system's database has -> that system's family.
DATABASE_TABLES = {"DiscussionMessage": "discussion"}


def database_family(src: Source) -> str:
    """The family of a database's runs, from its tables (2L's ``"DiscussionMessage"``).

    Raises:
        InputError: none of the known tables (name ``--family``).
    """
    tables = src.tables()  # type: ignore[attr-defined]
    for table, family in DATABASE_TABLES.items():
        if table in tables:
            return family
    raise InputError(
        src.url(), "no table of a known system (2L: \"DiscussionMessage\"): give --family",
        field="--family", value="auto",
    )  # fmt: skip


def kit_for(path: str, kits: Mapping[str, PersonaKit]) -> PersonaKit | None:
    """The kit of the nearest folder above ``path`` that holds one."""
    folder = path.replace("\\", "/").rsplit("/", 1)[0]
    while folder:
        if folder in kits:
            return kits[folder]
        if "/" not in folder:
            return None
        folder = folder.rsplit("/", 1)[0]
    return None


_SESSION = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I)


def session_of(path: str) -> str:
    """The session id an agent transcript's name carries (Claude Code's ``<id>.jsonl``,
    the last UUID of Codex's ``rollout-<time>-<id>.jsonl``), lower-cased; else its stem."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1].removesuffix(".jsonl")
    found = _SESSION.findall(name)
    return (found[-1] if found else name).lower()


# ---------------------------------------------------------------------------
# The runs of a fleet (toolkit quality --all, the fleet engine)
# ---------------------------------------------------------------------------


def fleet_runs(
    source: str | Path | Source, storage_options: Mapping[str, Any] | None = None
) -> list[str]:
    """The run folders of a fleet folder, as paths or URLs, sorted.

    Local runs are named as ``source`` names them (a Dask cluster beyond this machine
    needs an absolute path that every worker sees). A local folder counts as a run when
    it holds ``tick_summaries/``; in object storage
    every subfolder is a candidate and the worker that lists it leaves out the ones that
    are not runs (one listing per run, done where the run is read).

    Raises:
        InputError: no such folder or bucket, or no run in it.
    """
    src = open_source(source, storage_options)
    folder = src.disk
    if folder is None:
        runs = [src.url(p) for p in src.subfolders()]
        if not runs:
            raise InputError(src.url(), "no run folders in it")
        return runs
    if not folder.is_dir():
        raise InputError(folder, "no such folder of runs")
    found = sorted(
        str(p)
        for p in folder.iterdir()
        if not p.name.startswith(".") and p.is_dir() and (p / "tick_summaries").is_dir()
    )  # fmt: skip
    if not found:
        raise InputError(folder, "no run folders (with tick_summaries/) in it")
    return found


# ---------------------------------------------------------------------------
# The iteration logs under a folder (toolkit outcome --all, toolkit compare)
# ---------------------------------------------------------------------------


def find_iteration_logs(
    folder: str | Path | Source, *, storage_options: Mapping[str, Any] | None = None
) -> list[Path] | list[str]:
    """Every folder under ``folder`` (itself included) holding ``iter-N.yaml`` files.

    Args:
        folder: a local folder, or an fsspec URL (``s3://bucket/logs``): then every
            object under it is listed in one recursive listing, and the logs are
            returned as URLs.
        storage_options: fsspec options when ``folder`` is a URL.

    Raises:
        InputError: ``folder`` is not a folder, or holds no iteration log.
    """
    src = open_source(folder, storage_options)
    root = src.disk
    if root is None:
        return _find_remote_logs(src)
    if not root.is_dir():
        raise InputError(root, "no such folder of iteration logs")
    found = sorted(
        {
            Path(dirpath)
            for dirpath, _, files in os.walk(root)
            if any(ITER_NAME.match(name) for name in files)
        }
    )
    if not found:
        raise InputError(root, "no iteration logs (folders with iter-N.yaml files) found")
    return found


def _find_remote_logs(source: Source) -> list[str]:
    objects = objects_under(source)
    parents = sorted(
        {rel.rpartition("/")[0] for rel in objects if ITER_NAME.match(rel.rpartition("/")[2])}
    )
    if not parents:
        raise InputError(
            source.url(), "no iteration logs (folders with iter-N.yaml objects) under it"
        )
    return [source.url(f"{source.root}/{p}" if p else source.root) for p in parents]


def fleet_log_names(
    folder: str | Path | Source,
    logs: Sequence[str | Path],
    *,
    storage_options: Mapping[str, Any] | None = None,
) -> list[str]:
    """What each log of :func:`find_iteration_logs` is called in a fleet table: its path
    under ``folder`` (the folder's own name when it is a log itself, or ``.`` when a log
    under it has that name too), so a fleet reads the same wherever it lives. The names
    are distinct: two logs never share a row."""
    src = open_source(folder, storage_options)
    top, base = src.url(), (src.name or Path(src.identity()).name)
    names: list[str] = []
    for log in logs:
        shown = str(log)
        if shown == top:
            names.append(base)
        elif shown.startswith(top.rstrip("/") + "/"):
            names.append(shown[len(top.rstrip("/")) + 1 :])
        else:
            names.append(shown)
    if len(set(names)) < len(names):
        names = ["." if str(log) == top else name for log, name in zip(logs, names, strict=True)]
    if len(set(names)) < len(names):  # cannot happen for distinct paths; never merge rows
        names = [str(log) for log in logs]
    return names


# ---------------------------------------------------------------------------
# dot-agents eval-harness runs (toolkit outcome, compare, compare --pass-k)
# ---------------------------------------------------------------------------


def find_eval_runs(
    source: str | Path | Source, storage_options: Mapping[str, Any] | None = None
) -> list[str]:
    """The eval-harness run folders (each holding ``eval-run.yaml``) under ``source``: a
    repository (its ``.agents/eval/runs/``), that folder, a folder of run folders or one
    run folder; paths or URLs in path order.

    Raises:
        InputError: no such folder, or no eval run in it.
    """
    src = open_source(source, storage_options)
    runs = [f.path for f in discover(src, storage_options) if f.family == "eval"]
    if not runs:
        shown: str | Path = src.disk if src.disk is not None else src.url()
        raise InputError(
            shown, "no eval-harness runs (folders with eval-run.yaml, as in .agents/eval/runs/)"
        )
    return runs
