"""pass^k as τ-bench defines it (Yao et al. 2024, §4), on one set of trials or per arm.

For a task that passed c of its n trials, C(c, k) / C(n, k) is the chance that k trials
drawn from its n all pass; pass^k is the mean over tasks, for k = 1 .. the most trials of
a task (pass^1 is the pass rate). τ-bench runs every task the same number of times; here
a task with fewer than k trials is left out of pass^k (the ``tasks`` column says how many
count). The interval is a seeded percentile bootstrap over tasks (tasks are what was
sampled): none with fewer than two tasks.

The input is the per-trial frame (:data:`toolkit.frames.PASS_K_TRIALS_SCHEMA`: task,
trial, passed[, reward]) read by :func:`toolkit.load.trials.read_trials` or built from a
folder of runs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from toolkit.errors import InputError
from toolkit.frames import PASS_K_SCHEMA, PASS_K_TRIALS_SCHEMA
from toolkit.rubrics.compare.rubric import COMPARE_VERSION
from toolkit.rubrics.compare.stats import bootstrap_interval
from toolkit.summary import Shows, Summary, plural

Counts = Sequence[tuple[int, int]]  # (trials n, passes c) per task


def pass_k_terms(counts: Counts, k: int) -> list[float]:
    """C(c, k) / C(n, k) of each task with at least ``k`` trials."""
    return [math.comb(c, k) / math.comb(n, k) for n, c in counts if n >= k]


def pass_k_rows(
    counts: Counts, *, level: float, resamples: int, seed: int | Sequence[int] = 0
) -> list[dict[str, Any]]:
    """pass^k for k = 1 .. the most trials of a task: ``k``, ``tasks`` (those counted),
    ``pass_k`` and its bootstrap interval ``ci_low``, ``ci_high`` (each k its own
    stream of ``seed``)."""
    base = list(seed) if isinstance(seed, Sequence) else [seed]
    rows: list[dict[str, Any]] = []
    for k in range(1, max((n for n, _ in counts), default=0) + 1):
        terms = np.asarray(pass_k_terms(counts, k), dtype=np.float64)
        rng = np.random.default_rng([*base, k])
        low, high = bootstrap_interval([terms], rng, level, resamples)
        rows.append({"k": k, "tasks": int(terms.size),
                     "pass_k": float(terms.mean()) if terms.size else None,
                     "ci_low": low, "ci_high": high})  # fmt: skip
    return rows


def task_counts(trials: pl.DataFrame) -> pl.DataFrame:
    """Per task (in order of appearance): ``trials`` n and ``passes`` c."""
    return trials.group_by("task", maintain_order=True).agg(
        pl.len().cast(pl.Int64).alias("trials"),
        pl.col("passed").sum().cast(pl.Int64).alias("passes"),
    )


def check_trials(trials: pl.DataFrame) -> pl.DataFrame:
    """``trials`` with the :data:`PASS_K_TRIALS_SCHEMA` columns cast.

    Raises:
        InputError: a missing column, a null verdict, a trial of a task twice, no row.
    """
    if "reward" not in trials.columns:
        trials = trials.with_columns(pl.lit(None, pl.Float64()).alias("reward"))
    missing = [c for c in PASS_K_TRIALS_SCHEMA if c not in trials.columns]
    if missing:
        raise InputError(None, f"no column {missing[0]!r} in the trials frame")
    frame = trials.select([pl.col(c).cast(t) for c, t in PASS_K_TRIALS_SCHEMA.items()])
    if frame.is_empty():
        raise InputError(None, "no trials")
    if frame["passed"].null_count() or frame["task"].null_count():
        raise InputError(None, "a trial without a task or a verdict (passed is null)")
    twice = frame.filter(pl.struct("task", "trial").is_duplicated())
    if twice.height:
        row = twice.row(0, named=True)
        raise InputError(None, f"trial {row['trial']!r} of this task is given twice",
                         field="task", value=row["task"])  # fmt: skip
    return frame


@dataclass(frozen=True, repr=False)
class PassKResult(Shows):
    """pass^k of one set of trials (``toolkit compare --pass-k``).

    Attributes:
        label: what the set is called (its file or folder).
        table: :data:`toolkit.frames.PASS_K_SCHEMA`, one row per k.
        tasks: per task its ``trials`` and ``passes``.
        level, resamples, seed: the interval's settings.
        notes: what the reader must know (tasks with fewer trials, the success rule).
    """

    label: str
    table: pl.DataFrame
    tasks: pl.DataFrame
    level: float
    resamples: int
    seed: int
    notes: tuple[str, ...] = ()
    version: str = COMPARE_VERSION

    def _summary(self) -> Summary:
        return Summary(
            "PassKResult",
            f"{self.label}: {plural(self.tasks.height, 'task')}, "
            f"{plural(int(self.tasks['trials'].sum()), 'trial')}",
            tuple(
                (f"pass^{k}:", "-" if v is None else f"{v:.3f}")
                for k, v in self.table.select("k", "pass_k").rows()
            ),
            notes=self.notes,
            notes_title="notes",
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (the shape of ``--format json``)."""
        return {
            "rubric": "compare", "rubric_version": self.version, "statistic": "pass^k",
            "source": self.label, "level": self.level, "resamples": self.resamples,
            "seed": self.seed, "pass_k": self.table.to_dicts(), "tasks": self.tasks.to_dicts(),
            "notes": list(self.notes),
        }  # fmt: skip


def pass_k(
    trials: pl.DataFrame,
    *,
    label: str = "trials",
    level: float = 0.95,
    resamples: int = 9999,
    seed: int = 0,
    notes: Sequence[str] = (),
) -> PassKResult:
    """pass^1 .. pass^n of one set of trials (:data:`PASS_K_TRIALS_SCHEMA`) with
    percentile bootstrap intervals over tasks.

    Raises:
        InputError: a bad trials frame (:func:`check_trials`) or setting.
    """
    if not 0 < level < 1:
        raise InputError(None, "out of range", field="--level", value=level)
    if resamples < 0 or seed < 0:
        raise InputError(None, "must be >= 0", field="--resamples/--seed", value=(resamples, seed))
    frame = check_trials(trials)
    tasks = task_counts(frame)
    counts = list(zip(tasks["trials"].to_list(), tasks["passes"].to_list(), strict=True))
    rows = pass_k_rows(counts, level=level, resamples=resamples, seed=seed)
    told = list(notes)
    most = max(n for n, _ in counts)
    uneven = sum(1 for n, _ in counts if n < most)
    if uneven:
        told.append(
            f"{plural(uneven, 'task')} with fewer trials than the most ({most}) count only "
            "for k up to their own"
        )
    return PassKResult(label, pl.DataFrame(rows, schema=PASS_K_SCHEMA), tasks, level,
                       resamples, seed, tuple(told))  # fmt: skip
