"""The engine of fleets: the same per-run load → score function, mapped over partitions of
runs in this process (``local``) or on a Dask cluster (``dask``).

A fleet is a list of independent runs (or iteration logs). The unit of work is a function
of a *partition* (a list of runs) that loads and scores them and returns small results
(scorecards without their per-tick series). The local engine calls it once with every
run (one bulk read, today's behaviour); the Dask engine calls the very same function on
each partition on a worker, which reads its runs where they live (a path it can see, or
object storage), so nothing large passes through the client. No rubric knows which
engine ran it.

Dask and distributed are imported only when ``engine="dask"``.
"""

from __future__ import annotations

import html
import logging
import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from toolkit.errors import InputError
from toolkit.fleet.find import fleet_runs
from toolkit.load.universe import load_runs
from toolkit.rubrics.simulation import DEFAULT_RUBRIC, SimulationRubric, score_universe
from toolkit.scorecard import Scorecard, scorecards_frame

if TYPE_CHECKING:
    import polars as pl

Engine = Literal["local", "dask"]
ENGINES: tuple[str, ...] = ("local", "dask")
T = TypeVar("T")

#: How long to wait for a Dask scheduler named by address before giving up (seconds).
CONNECT_TIMEOUT_S = 10.0
#: The largest default partition (runs); smaller fleets are split about 2 per worker thread.
MAX_PARTITION = 200


@dataclass(frozen=True)
class PartitionFailure:
    """A partition whose task failed: its runs and the error, in one line."""

    index: int
    runs: tuple[str, ...]
    error: str

    def __str__(self) -> str:
        shown = ", ".join(Path(r).name for r in self.runs[:3])
        more = f", … ({len(self.runs)} runs)" if len(self.runs) > 3 else ""
        return f"partition {self.index} ({shown}{more}) failed: {self.error}"


@dataclass(frozen=True)
class FleetScores:
    """The scorecards of a fleet, and the partitions that failed (if any).

    Attributes:
        cards: one :class:`~toolkit.scorecard.Scorecard` per run scored, in run order
            (without per-tick series).
        failures: the partitions that failed; their runs have no card.
        engine: ``"local"`` or ``"dask"``.
        partitions: how many partitions the runs were split into.
    """

    cards: list[Scorecard]
    failures: tuple[PartitionFailure, ...] = ()
    engine: str = "local"
    partitions: int = 1
    runs: tuple[str, ...] = field(default=(), repr=False)

    @property
    def ok(self) -> bool:
        """Whether every partition was scored."""
        return not self.failures

    @property
    def frame(self) -> pl.DataFrame:
        """Every card's dimension rows in one frame
        (:data:`toolkit.scorecard.SCORECARD_SCHEMA`)."""
        return scorecards_frame(self.cards)

    def __repr__(self) -> str:
        failed = f", {len(self.failures)} partition(s) failed" if self.failures else ""
        return (
            f"FleetScores({len(self.cards)} runs scored, engine={self.engine}, "
            f"{self.partitions} partition(s){failed})"
        )

    def _repr_html_(self) -> str:
        head = f"<p>{html.escape(repr(self))}</p>"
        fails = "".join(f"<li>{html.escape(str(f))}</li>" for f in self.failures)
        return head + (f"<ul>{fails}</ul>" if fails else "") + self.frame._repr_html_()


# ---------------------------------------------------------------------------
# The unit of work
# ---------------------------------------------------------------------------


def score_runs(
    runs: Sequence[str],
    rubric: SimulationRubric | None = None,
    window: int | None = None,
    cache: bool | str = False,
    storage_options: Mapping[str, Any] | None = None,
    progress: bool | None = False,
) -> list[Scorecard]:
    """Load the run folders ``runs`` (paths or URLs) and score them: the per-partition
    unit of work of both engines (one bulk read, one ``group_by`` pass)."""
    universe = load_runs(runs, cache=cache, progress=progress, storage_options=storage_options)
    return score_universe(universe, rubric or DEFAULT_RUBRIC, window, series=False)


# ---------------------------------------------------------------------------
# Mapping partitions
# ---------------------------------------------------------------------------


def partitions(items: Sequence[T], size: int) -> list[list[T]]:
    """``items`` in consecutive partitions of ``size`` (the last may be smaller)."""
    if size < 1:
        raise InputError(None, "must be at least 1", field="--partition-size", value=size)
    return [list(items[i : i + size]) for i in range(0, len(items), size)]


def _connect(scheduler: str | None) -> tuple[Any, Any]:
    """A Dask client: to ``scheduler``, or to a LocalCluster started here (closed by the
    caller). Returns ``(client, cluster or None)``."""
    try:  # Dask: a local fleet never imports it (tests/test_startup_imports.py, STORAGE)
        import distributed
    except ImportError:
        raise InputError(
            None, "--engine dask needs Dask distributed: pip install 'toolkit[dask]'"
        ) from None
    dist: Any = distributed  # untyped: called through Any
    if scheduler:
        try:
            client = dist.Client(scheduler, timeout=CONNECT_TIMEOUT_S)
        except (ValueError, TypeError) as exc:  # distributed's own address parser
            said = " ".join(str(exc).split())[:120] or type(exc).__name__
            raise InputError(
                None, f"not a scheduler address ({said}); e.g. tcp://127.0.0.1:8786",
                field="--scheduler", value=scheduler,
            ) from None  # fmt: skip
        except (OSError, TimeoutError) as exc:
            raise InputError(
                scheduler,
                f"no Dask scheduler answered within {CONNECT_TIMEOUT_S:.0f}s "
                f"({type(exc).__name__}); start one (`dask scheduler`) or check the address",
            ) from None
        return client, None
    cluster = dist.LocalCluster(
        n_workers=os.cpu_count() or 1,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        silence_logs=logging.ERROR,
    )
    return dist.Client(cluster), cluster


def _bar(parts: Sequence[Any], desc: str, disable: bool | None) -> Iterable[Any]:
    """``parts``, under a progress bar unless ``disable``."""
    if disable:
        return parts
    # tqdm.auto imports asyncio and IPython's probes, ~45 ms of CPU: not when no bar
    from tqdm.auto import tqdm

    bar: Iterable[Any] = tqdm(parts, desc=desc, unit="partition", disable=disable, leave=False)
    return bar


def map_partitions(
    func: Callable[..., list[T]],
    parts: Sequence[Sequence[str]],
    *args: Any,
    engine: str = "local",
    client: Any = None,
    scheduler: str | None = None,
    progress: bool | None = None,
    desc: str = "scoring partitions",
) -> tuple[list[T], list[PartitionFailure]]:
    """Run ``func(partition, *args)`` for every partition and concatenate the results in
    partition order.

    With ``engine="local"`` the partitions run here, one after another, and an error
    propagates. With ``engine="dask"`` each is a task on ``client`` (or on a cluster at
    ``scheduler``, or on a LocalCluster started for the call and closed after); a failed
    task becomes a :class:`PartitionFailure` and the others still count.
    """
    disable = (not progress) if progress is not None else None
    if engine == "local":
        out: list[T] = []
        for part in _bar(parts, desc, disable):
            out.extend(func(part, *args))
        return out, []
    if engine != "dask":
        raise InputError(None, f"unknown engine (use one of {', '.join(ENGINES)})", value=engine)
    cluster = None
    if client is None:
        client, cluster = _connect(scheduler)
        owned = client
    else:
        owned = None
    try:
        import distributed  # Dask: only with engine="dask" (as in _connect)
        from tqdm.auto import tqdm  # with Dask (as in _bar)

        as_completed: Any = distributed.as_completed
        futures = [client.submit(func, list(part), *args, pure=False) for part in parts]
        index = {f.key: i for i, f in enumerate(futures)}
        results: dict[int, list[T]] = {}
        failures: list[PartitionFailure] = []
        with tqdm(total=len(futures), desc=desc, unit="partition", disable=disable) as bar:
            for future in as_completed(futures):
                i = index[future.key]
                if future.status == "finished":
                    results[i] = future.result()
                else:
                    exc = future.exception()
                    text = " ".join(str(exc).split())
                    failures.append(
                        PartitionFailure(i, tuple(parts[i]), f"{type(exc).__name__}: {text}")
                    )
                bar.update()
        failures.sort(key=lambda f: f.index)
        return [r for i in sorted(results) for r in results[i]], failures
    finally:
        if owned is not None:
            owned.close()
        if cluster is not None:
            cluster.close()


def default_partition_size(count: int, client: Any = None, workers: int | None = None) -> int:
    """About two partitions per worker thread, at most :data:`MAX_PARTITION` runs."""
    if workers is None:
        workers = sum(client.nthreads().values()) if client is not None else os.cpu_count() or 1
    return max(1, min(MAX_PARTITION, math.ceil(count / max(1, 2 * workers))))


def score_fleet(
    source: str | Path,
    *,
    engine: str = "local",
    client: Any = None,
    scheduler: str | None = None,
    partition_size: int | None = None,
    rubric: SimulationRubric | None = None,
    window: int | None = None,
    cache: bool | str = False,
    storage_options: Mapping[str, Any] | None = None,
    progress: bool | None = None,
) -> FleetScores:
    """Score every run of a fleet folder, here or on a Dask cluster, with the same code.

    Args:
        source: a folder of run folders: a path, or a URL (``s3://bucket/sweep``).
        engine: ``"local"`` (this process, one bulk read) or ``"dask"``.
        client: a ``distributed.Client`` to use (``engine="dask"``).
        scheduler: the address of a Dask scheduler to connect to when no ``client`` is
            given; without either, a LocalCluster is started for the call and closed.
        partition_size: runs per Dask task (default: about two partitions per worker
            thread, at most :data:`MAX_PARTITION`).
        rubric: the simulation rubric (default 1.0.0).
        window: the ticks scored per run (default: the rubric's).
        cache: a folder or a URL (or ``True``: beside each local run) for the Parquet
            cache; the workers read and write it themselves.
        storage_options: fsspec options for a URL, of the runs and of the cache alike
            (e.g. ``{"endpoint_url": …}``).
        progress: a progress bar over completed partitions (``None``: on a terminal).

    Returns:
        :class:`FleetScores`: the cards (``.frame`` stacks their dimension rows: subject,
        dimension, name, value, status, detail, …) and any failed partitions.

    Raises:
        InputError: no such fleet, a bad URL, or (local engine) a run that cannot load.
    """
    if engine not in ENGINES:
        raise InputError(None, f"unknown engine (use one of {', '.join(ENGINES)})", value=engine)
    options = dict(storage_options or {})
    runs = fleet_runs(source, options)
    args = (rubric, window, cache, options)
    if engine == "local":
        cards = score_runs(runs, *args, progress=progress)
        return FleetScores(cards, engine="local", partitions=1, runs=tuple(runs))
    cluster = None
    owned = None
    if client is None:
        client, cluster = _connect(scheduler)
        owned = client
    try:
        size = partition_size or default_partition_size(len(runs), client)
        parts = partitions(runs, size)
        cards, failures = map_partitions(
            score_runs, parts, *args, engine="dask", client=client, progress=progress
        )
    finally:
        if owned is not None:
            owned.close()
        if cluster is not None:
            cluster.close()
    return FleetScores(cards, tuple(failures), "dask", len(parts), tuple(runs))
