"""Many iteration logs at once: load, gather evidence and score each log in worker
processes, then summarise the fleet column-wise, one row per log, worst first."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import polars as pl
from tqdm.auto import tqdm

from toolkit.fleet.find import find_iteration_logs as find_iteration_logs
from toolkit.fleet.find import fleet_log_names as fleet_log_names
from toolkit.io.source import open_source
from toolkit.load.iterlog import load_iteration_logs
from toolkit.load.outcome_evidence import collect_outcome_evidence
from toolkit.rubrics.outcome import (
    OutcomeResult,
    OutcomeRubric,
    default_outcome_rubric,
    score_outcome,
)
from toolkit.scorecard import Dimension, Scorecard

#: Below this many logs (when ``workers`` is not given) one process is faster: a spawned
#: worker takes seconds to import Polars and the toolkit, a log about 30 ms to score.
PROCESS_MIN_LOGS = 400

OUTCOME_FLEET_SCHEMA: dict[str, pl.DataType] = {
    "log": pl.String(),
    "iterations": pl.Int64(),
    "scored": pl.Int64(),
    "mean": pl.Float64(),
    "band": pl.String(),
    "worst_iteration": pl.Int64(),
    "worst_value": pl.Float64(),
    "poor": pl.Int64(),
    "over_claims": pl.Int64(),
    "issues": pl.Int64(),
}


def _score_chunk(
    paths: Sequence[str],
    rubric: OutcomeRubric,
    repo: str | None,
    transcripts: tuple[str, ...],
    storage_options: Mapping[str, Any] | None = None,
) -> list[tuple[OutcomeResult, int]]:
    """Load a chunk of logs (those in object storage in one batched fetch), gather each
    one's evidence and score it."""
    done = []
    for log in load_iteration_logs(paths, storage_options=storage_options):
        evidence = collect_outcome_evidence(log, repo=repo, transcripts=transcripts)
        done.append((score_outcome(log, evidence, rubric), log.issues.height))
    return done


#: Logs loaded together (in object storage: listed and fetched in one batch) when scoring.
CHUNK_LOGS = 100


def score_outcome_logs(
    paths: Sequence[str | Path],
    rubric: OutcomeRubric | None = None,
    *,
    repo: str | Path | None = None,
    transcripts: Iterable[str | Path] = (),
    workers: int | None = None,
    progress: bool | None = None,
    storage_options: Mapping[str, Any] | None = None,
) -> dict[str, tuple[OutcomeResult, int]]:
    """Score many iteration logs; chunks of logs are loaded and scored in worker processes.

    Args:
        paths: the log folders, or their URLs (``s3://bucket/logs/run-1``): the logs of a
            chunk in object storage are listed and fetched together.
        rubric: the outcome rubric (default: dot-agents 2.1.0).
        repo: a git repository all the logs' commits live in (optional, a local folder).
        transcripts: local transcript folders for token backfill (optional).
        workers: worker processes; default: the machine's cores for
            :data:`PROCESS_MIN_LOGS` logs or more, else this process alone.
        progress: show a progress bar (``None``: only on a terminal or in a notebook).
        storage_options: fsspec options for URLs (e.g. ``endpoint_url``).

    Returns:
        ``{log folder: (result, number of load issues)}`` in the order of ``paths``.
    """
    rule = rubric or default_outcome_rubric()
    repo_s = None if repo is None else str(repo)
    extra = tuple(str(t) for t in transcripts)
    options = dict(storage_options or {})
    jobs = [str(p) if open_source(p).disk is None else str(Path(p)) for p in paths]
    if workers is None:
        n = (os.cpu_count() or 1) if len(jobs) >= PROCESS_MIN_LOGS else 1
    else:
        n = max(1, workers)
    bar = tqdm(
        total=len(jobs),
        desc="scoring iteration logs",
        unit="log",
        disable=(not progress) if progress is not None else None,
        leave=False,
    )
    pooled = n > 1 and len(jobs) >= 2
    size = max(1, min(CHUNK_LOGS, len(jobs) // (n * 4))) if pooled else CHUNK_LOGS
    chunks = [jobs[i : i + size] for i in range(0, len(jobs), size)]
    done: list[tuple[OutcomeResult, int]] = []
    if not pooled:
        for chunk in chunks:
            done.extend(_score_chunk(chunk, rule, repo_s, extra, options))
            bar.update(len(chunk))
    else:
        # "spawn", not "fork": forking a process whose Polars thread pool is running can
        # deadlock the child.
        with ProcessPoolExecutor(n, mp_context=multiprocessing.get_context("spawn")) as pool:
            for chunk, result in zip(
                chunks,
                pool.map(
                    _score_chunk,
                    chunks,
                    [rule] * len(chunks),
                    [repo_s] * len(chunks),
                    [extra] * len(chunks),
                    [options] * len(chunks),
                ),
                strict=True,
            ):
                done.extend(result)
                bar.update(len(chunk))
    bar.close()
    return dict(zip(jobs, done, strict=True))


def score_log_partition(
    paths: Sequence[str],
    rubric: OutcomeRubric | None = None,
    repo: str | None = None,
    transcripts: Sequence[str] = (),
    storage_options: Mapping[str, Any] | None = None,
) -> list[tuple[str, tuple[OutcomeResult, int]]]:
    """Score a partition of logs in one process: the unit of work of the Dask engine
    (:func:`toolkit.fleet.engine.map_partitions`), the same per-log function as above. Only
    the paths or URLs and the storage options travel to the worker, which reads the
    logs itself."""
    done = score_outcome_logs(
        paths,
        rubric,
        repo=repo,
        transcripts=transcripts,
        workers=1,
        progress=False,
        storage_options=storage_options,
    )
    return list(done.items())


def outcome_fleet(
    results: Mapping[str, tuple[OutcomeResult, int]], rubric: OutcomeRubric | None = None
) -> pl.DataFrame:
    """One row per log, worst mean score first (unscored logs last).

    Returns:
        Columns log, iterations, scored, mean (of scored iterations), band (of the mean),
        worst_iteration and worst_value, poor (iterations in the lowest band), over_claims
        (integrity pairs with a negative delta), issues (load problems).
    """
    rule = rubric or default_outcome_rubric()
    lowest = rule.bands[-1].band
    if not results:
        return pl.DataFrame(schema=OUTCOME_FLEET_SCHEMA)
    scores = pl.concat(
        [r.scores.with_columns(log=pl.lit(name)) for name, (r, _) in results.items()]
    )
    claims = pl.concat(
        [r.integrity.with_columns(log=pl.lit(name)) for name, (r, _) in results.items()]
    )
    over = claims.group_by("log").agg(over_claims=(pl.col("delta") < 0).sum().cast(pl.Int64))
    issues = pl.DataFrame(
        {"log": list(results), "issues": [n for _, n in results.values()]},
        schema={"log": pl.String(), "issues": pl.Int64()},
    )
    scored = pl.col("value").filter(pl.col("scored"))
    summary = (
        scores.group_by("log", maintain_order=True)
        .agg(
            iterations=pl.len().cast(pl.Int64),
            scored=pl.col("scored").sum().cast(pl.Int64),
            mean=scored.mean(),
            worst_iteration=pl.col("iteration").filter(pl.col("scored")).sort_by(scored).first(),
            worst_value=scored.min(),
            poor=(pl.col("band") == lowest).sum().cast(pl.Int64),
        )
        .with_columns(band=rule.band_expr(pl.col("mean")))
        .join(over, on="log", how="left")
        .join(issues, on="log", how="left")
        .with_columns(pl.col("over_claims").fill_null(0))
    )
    ordered = summary.select(list(OUTCOME_FLEET_SCHEMA)).cast(pl.Schema(OUTCOME_FLEET_SCHEMA))
    return ordered.sort(["mean", "log"], nulls_last=True)


def fleet_scorecards(fleet: pl.DataFrame, rubric: OutcomeRubric | None = None) -> list[Scorecard]:
    """One :class:`~toolkit.scorecard.Scorecard` per row of :func:`outcome_fleet`: the log's
    mean score as its one dimension, whose status and the verdict are the mean's band
    (``unscored`` when no iteration was scored).
    """
    rule = rubric or default_outcome_rubric()
    floors = ", ".join(f"{b.band} >= {b.min:g}" for b in rule.bands)
    cards: list[Scorecard] = []
    for row in fleet.iter_rows(named=True):
        band = row["band"] if row["mean"] is not None else "unscored"
        worst = (
            f"; worst #{row['worst_iteration']} {row['worst_value']:.3f}"
            if row["worst_value"] is not None
            else ""
        )
        detail = f"{row['scored']}/{row['iterations']} iterations scored{worst}"
        dim = Dimension("mean", "Mean score", row["mean"], band, detail, floors, "")
        cards.append(
            Scorecard(
                rubric=rule.rubric,
                rubric_version=rule.version,
                subject=row["log"],
                title=f"{row['log']} · {row['iterations']} iterations",
                verdict=band,
                verdict_reason=detail,
                dimensions=Scorecard.dimensions_frame(row["log"], [dim]),
            )
        )
    return cards
