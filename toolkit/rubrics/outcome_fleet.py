"""Many iteration logs at once: load, gather evidence and score each log in worker
processes, then summarise the fleet column-wise, one row per log, worst first."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import polars as pl

from toolkit.errors import InputError
from toolkit.load.iterlog import ITER_FILE, load_iteration_log
from toolkit.load.outcome_evidence import collect_outcome_evidence
from toolkit.rubrics.outcome import OutcomeResult, OutcomeRubric, default_outcome_rubric

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


def find_iteration_logs(folder: str | Path) -> list[Path]:
    """Every folder under ``folder`` (itself included) holding ``iter-N.yaml`` files.

    Raises:
        InputError: ``folder`` is not a folder, or holds no iteration log.
    """
    root = Path(folder)
    if not root.is_dir():
        raise InputError(root, "no such folder of iteration logs")
    found = sorted(
        {
            Path(dirpath)
            for dirpath, _, files in os.walk(root)
            if any(ITER_FILE.match(name) for name in files)
        }
    )
    if not found:
        raise InputError(root, "no iteration logs (folders with iter-N.yaml files) found")
    return found


def _score_one(
    path: Path, rubric: OutcomeRubric, repo: str | None, transcripts: tuple[str, ...]
) -> tuple[OutcomeResult, int]:
    log = load_iteration_log(path)
    evidence = collect_outcome_evidence(log, repo=repo, transcripts=transcripts)
    from toolkit.rubrics.outcome import score_outcome

    return score_outcome(log, evidence, rubric), log.issues.height


def score_outcome_logs(
    paths: Sequence[str | Path],
    rubric: OutcomeRubric | None = None,
    *,
    repo: str | Path | None = None,
    transcripts: Iterable[str | Path] = (),
    workers: int | None = None,
    progress: bool | None = None,
) -> dict[str, tuple[OutcomeResult, int]]:
    """Score many iteration logs; each log is loaded and scored in a worker process.

    Args:
        paths: the log folders.
        rubric: the outcome rubric (default 2.1.0).
        repo: a git repository all the logs' commits live in (optional).
        transcripts: transcript folders for token backfill (optional).
        workers: worker processes; default: the machine's cores for
            :data:`PROCESS_MIN_LOGS` logs or more, else this process alone.
        progress: show a progress bar (``None``: only on a terminal or in a notebook).

    Returns:
        ``{log folder: (result, number of load issues)}`` in the order of ``paths``.
    """
    rule = rubric or default_outcome_rubric()
    repo_s = None if repo is None else str(repo)
    extra = tuple(str(t) for t in transcripts)
    jobs = [Path(p) for p in paths]
    if workers is None:
        n = (os.cpu_count() or 1) if len(jobs) >= PROCESS_MIN_LOGS else 1
    else:
        n = max(1, workers)
    from tqdm.auto import tqdm

    bar = tqdm(
        total=len(jobs),
        desc="scoring iteration logs",
        unit="log",
        disable=(not progress) if progress is not None else None,
        leave=False,
    )
    if n <= 1 or len(jobs) < 2:
        done = []
        for p in jobs:
            done.append(_score_one(p, rule, repo_s, extra))
            bar.update()
    else:
        # "spawn", not "fork": forking a process whose Polars thread pool is running can
        # deadlock the child.
        with ProcessPoolExecutor(n, mp_context=multiprocessing.get_context("spawn")) as pool:
            done = []
            for result in pool.map(
                _score_one,
                jobs,
                [rule] * len(jobs),
                [repo_s] * len(jobs),
                [extra] * len(jobs),
                chunksize=max(1, len(jobs) // (n * 4)),
            ):
                done.append(result)
                bar.update()
    bar.close()
    return {str(p): r for p, r in zip(jobs, done, strict=True)}


def score_log_partition(
    paths: Sequence[str],
    rubric: OutcomeRubric | None = None,
    repo: str | None = None,
    transcripts: Sequence[str] = (),
) -> list[tuple[str, tuple[OutcomeResult, int]]]:
    """Score a partition of logs in one process: the unit of work of the Dask engine
    (:func:`toolkit.engine.map_partitions`), the same per-log function as above."""
    done = score_outcome_logs(
        paths, rubric, repo=repo, transcripts=transcripts, workers=1, progress=False
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
