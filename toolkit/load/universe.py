"""Token-world simulation runs ("universes") into typed Polars frames: the public load
functions.

A run is a folder named by its slug::

    <slug>/universe.yaml, conservation.yaml, universe.db,
    <slug>/tick_summaries/ticks/tick_<id>.json, batch_<n>.json, epoch_<n>.json

Tick summaries of schema v1 and v2 are normalised into one ticks frame
(:data:`toolkit.frames.TICKS_SCHEMA`). A file that cannot be used is never dropped
silently: it is listed in ``issues`` with its path and the reason.

Each function opens the run's :class:`~toolkit.io.source.Source` once (a local folder or
a URL: the same code path), lists the runs (:mod:`toolkit.load._run_listing`) and loads
them (:mod:`toolkit.load._run_build`: cache, bulk tick parse, the other files).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from toolkit.errors import InputError, NothingLoadable
from toolkit.io.source import Source, open_source
from toolkit.load._run_build import load_listed
from toolkit.load._run_listing import Listing, list_runs
from toolkit.load._run_result import Universe, combine
from toolkit.load._ticks import CONTINUATION_MECHANIC, CONTINUATION_TEXT, tick_number

__all__ = [
    "CONTINUATION_MECHANIC",
    "CONTINUATION_TEXT",
    "UNIVERSES_ROOT_ENV",
    "Universe",
    "combine",
    "load_runs",
    "load_universe",
    "load_universes",
    "parse_tick_number",
    "resolve_run",
]

parse_tick_number = tick_number

#: The environment variable naming the folder (or URL) that holds runs by slug, as
#: token-world keeps its universes; ``--root`` overrides it.
UNIVERSES_ROOT_ENV = "TOOLKIT_UNIVERSES_ROOT"

#: (Text: ``re`` compiles it on first use, which only a run named by its slug (not its path)
#: makes; compiled at import, it cost every one-run command, issue 38.)
_SLUG = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"


def resolve_run(
    name: str | Path, root: str | Path | None = None, env: Mapping[str, str] | None = None
) -> str | Path:
    """Where the run ``name`` lives: a folder or URL as given, or a slug under a root.

    token-world names a run by its slug (``quality willowbrook``). ``name`` is used as it
    is when it is a URL or an existing path; otherwise, when it is a plain slug (letters,
    digits, ``.``, ``_``, ``-``; no folder parts, so it cannot leave the root) and a
    universes root is known, it is ``<root>/<slug>``. The root is ``root`` (``--root``),
    else the ``TOOLKIT_UNIVERSES_ROOT`` environment variable; a URL root is joined and
    left for the loader to check.

    Args:
        name: a run folder, a run URL, or a slug.
        root: the universes root (a folder or URL); ``None`` reads the environment.
        env: the environment to read (default: ``os.environ``).

    Returns:
        The path or URL to load.

    Raises:
        InputError: neither a folder nor a run of that slug under the root exists (one
            line naming both places), or the root itself does not exist.
    """
    source = open_source(name)
    if source.kind() != "missing":  # a folder, a file, or a URL (checked when loaded)
        return name
    environ = os.environ if env is None else env
    where = "--root"
    if root is None or str(root) == "":
        root, where = environ.get(UNIVERSES_ROOT_ENV) or None, UNIVERSES_ROOT_ENV
    text = str(name)
    if root is None:
        hint = f" (to name a run by its slug, give --root DIR or set {UNIVERSES_ROOT_ENV})"
        raise InputError(source.url(), "no such run folder" + (hint * bool(re.match(_SLUG, text))))
    if not re.match(_SLUG, text) or text in (".", ".."):
        raise InputError(
            source.url(),
            f"no such run folder, and not a slug to look up under {root} ({where})",
        )
    base = open_source(root)
    kind = base.kind()
    if kind == "unknown":  # a URL root: joined, and left for the loader to check
        return base.url(base.join(base.root, text))
    if kind != "folder":
        raise InputError(base.url(), f"the universes root ({where}) is not an existing folder")
    candidate = base.join(base.root, text)
    if base.kind(candidate) == "missing":
        raise InputError(
            text, f"no such run folder here, and no run {text!r} under {base.url()} ({where})"
        )
    return Path(candidate)


def load_universe(
    path: str | Path,
    *,
    cache: bool | str | Path = False,
    progress: bool | None = False,
    storage_options: Mapping[str, Any] | None = None,
) -> Universe:
    """Load one universe folder.

    Args:
        path: the run folder (its name is the slug).
        cache: ``True`` keeps normalised frames as Parquet in ``<run>/.toolkit_cache/``;
            a folder path keeps them there instead, and a URL (``s3://bucket/cache``)
            in object storage; ``False`` (default) reads the files. A cache entry is
            used only while every source file has the name, size and modification time
            (ETag for an object) it was built from. A cache that cannot be written
            costs only speed: a :class:`~toolkit.errors.CacheWarning` says so.
        progress: show a progress bar (``None``: only on a terminal or in a notebook).
        storage_options: fsspec options when ``path`` or ``cache`` is a URL
            (``s3://bucket/run``): the same options serve both.

    Returns:
        A :class:`Universe` whose ``ticks`` frame has the columns of
        :data:`toolkit.frames.TICKS_SCHEMA` (slug, tick, schema_version, timestamp, actor,
        action_text, verb, target, mechanic, status, refusal_reason, rollback,
        continuation, mutation_count, claimed_count, unsupported_claims, grounded,
        grounded_source, observation_text, cost_usd, tokens_in, tokens_out, duration_ms,
        source_file), sorted by tick number.

    Raises:
        InputError: the folder does not exist, is not a folder, is not a run (no
            ``tick_summaries/``; a folder of runs is named as such) or holds nothing
            loadable (no tick file or batch record could be read). Every face (API,
            reports, CLI) meets this one rule.
    """
    source = open_source(path, storage_options)
    kind = source.kind()  # "unknown" in object storage: found when listed
    if kind == "missing":
        raise InputError(source.url(), "no such run folder")
    if kind == "file":
        raise InputError(source.url(), "a run must be a folder (the universe's slug)")
    if source.name in ("", ".", ".."):
        source = source.at(source.identity())
    listed = list_runs(source, [source.root], stat=bool(cache), only_runs=False)
    if kind == "folder" and not (listed and listed[0].summaries):
        _not_a_run(source, path)
    if not listed:
        raise InputError(source.url(), "no such run folder (no objects under it)")
    universe = load_listed(listed, _cache_for(cache, source), progress, storage_options)[0]
    if kind == "folder" and not universe.loadable:
        if universe.issues.height:
            raise NothingLoadable(None, f"nothing loadable: {universe.issues['reason'][0]}")
        raise NothingLoadable(source.url(), "nothing loadable: no tick files and no batch records")
    return universe


def _not_a_run(source: Source, path: str | Path) -> None:
    """Refuse a folder without ``tick_summaries/``, naming a folder of runs as such.

    Raises:
        InputError: always (:class:`~toolkit.errors.NothingLoadable` for a folder that
            holds no run either).
    """
    runs = list_runs(source, source.glob(source.join(source.root, "*")), stat=False)
    count = len({run.source.identity(str(run.root)) for run in runs})
    if count:
        raise InputError(
            source.url(),
            f"a folder of {count} runs, not a run: score them as a fleet with "
            f"toolkit quality --all {path} (or toolkit report fleet {path})",
        )
    raise NothingLoadable(source.url(), "not a run folder: it has no tick_summaries/")


def load_universes(
    *patterns: str | Path,
    cache: bool | str | Path = False,
    progress: bool | None = None,
    storage_options: Mapping[str, Any] | None = None,
) -> Universe:
    """Load every run folder matching the glob ``patterns`` into one set of frames.

    A folder counts as a run when it holds ``tick_summaries/``. Every frame carries the
    ``slug`` column, so ``universe.ticks.group_by("slug")`` works across runs. The tick
    files of all runs not served by the cache are parsed in one bulk read.

    Args:
        patterns: globs such as ``"runs/*"``, or URLs such as ``"s3://bucket/sweep/*"``.
        cache: as for :func:`load_universe`.
        progress: show a progress bar (``None``: only on a terminal or in a notebook).
        storage_options: fsspec options for URL patterns (e.g. ``endpoint_url``).

    Raises:
        InputError: no run folder matches, or two runs share a slug.
    """
    listed: list[Listing] = []
    first: tuple[str | Path, Source] | None = None
    for pattern in patterns:
        source = open_source(pattern, storage_options)
        if first is None:
            first = (pattern, source)
        _same_storage(first, (pattern, source))
        listed.extend(list_runs(source, source.glob(source.root), stat=bool(cache)))
    if not listed or first is None:
        shown = ", ".join(str(p) for p in patterns)
        raise InputError(shown, "no run folders (with tick_summaries/) match")
    keep = _each_run_once((x.source.identity(str(x.root)), x.slug, x.shown) for x in listed)
    listed = [listed[i] for i in keep]  # overlapping patterns name a run twice
    return combine(load_listed(listed, _cache_for(cache, first[1]), progress, storage_options))


def _same_storage(first: tuple[str | Path, Source], other: tuple[str | Path, Source]) -> None:
    """Refuse runs of one load in two kinds of storage, naming the local one.

    Raises:
        InputError: a local path and a URL in one load.
    """
    if type(first[1]) is not type(other[1]):
        local = first[0] if first[1].disk is not None else other[0]
        raise InputError(local, "mix of local paths and URLs: load them separately")


def _each_run_once(runs: Iterable[tuple[str, str, str]]) -> list[int]:
    """The runs of one load to read, by position: one run named twice is read once, and
    two different runs that share a slug are refused (their frames would mix).

    Args:
        runs: per run, its identity (the resolved path, or the storage path of a URL),
            its slug (the folder's name) and the path or URL as the user gave it.

    Raises:
        InputError: two different runs share a slug; the line names both.
    """
    keep: list[int] = []
    seen: set[str] = set()
    slugs: dict[str, str] = {}
    for i, (identity, slug, shown) in enumerate(runs):
        if identity in seen:
            continue
        if slug in slugs:
            raise InputError(shown, f"two runs share the slug {slug!r} (also {slugs[slug]})")
        seen.add(identity)
        slugs[slug] = shown
        keep.append(i)
    return keep


def _cache_for(cache: bool | str | Path, source: Source) -> bool | str | Path:
    """``cache`` for runs of ``source``: a cache beside each run only on the local disk.

    Raises:
        InputError: ``cache=True`` for runs in object storage.
    """
    if cache is True and source.disk is None:
        raise InputError(
            source.url(),
            "runs in object storage keep no cache beside them: name a cache DIR or URL",
        )
    return cache


def load_runs(
    runs: Sequence[str | Path],
    *,
    cache: bool | str | Path = False,
    progress: bool | None = False,
    storage_options: Mapping[str, Any] | None = None,
) -> Universe:
    """Load the given run folders (paths, or URLs of one storage) into one set of frames.

    The unit of work of a fleet engine (:func:`toolkit.fleet.engine.score_fleet`): a folder
    without ``tick_summaries/`` is not a run and is left out, and a run named twice is
    read once, as in :func:`load_universes`.

    Raises:
        InputError: two different runs share a slug (a folder name), e.g.
            ``a/run-1`` and ``b/run-1``: their ticks would mix under one slug.
    """
    if not runs:
        return combine([])
    first = (runs[0], open_source(runs[0], storage_options))
    roots: dict[str, None] = {}
    for run in runs:
        source = open_source(run, storage_options)
        _same_storage(first, (run, source))
        roots[source.root] = None
    listed = list_runs(first[1], list(roots), stat=bool(cache))
    keep = _each_run_once((x.source.identity(str(x.root)), x.slug, x.shown) for x in listed)
    listed = [listed[i] for i in keep]
    return combine(load_listed(listed, _cache_for(cache, first[1]), progress, storage_options))
