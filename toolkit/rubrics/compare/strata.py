"""A comparison split by a property of its units: for eval-harness runs, which agent is
ahead per task difficulty and per language (and over all tasks).

Per value of each stratum column the units carry (``difficulty``, ``language``): the
paired units of that value, each arm's mean pass rate over them, B - A with a seeded
percentile bootstrap interval over the units, pass^k at the largest k every one of those
units reaches in both arms, and the mean score. With a handful of tasks per value no test
is claimed: ``ahead`` says which arm's pass rate is higher, and the interval says how
sure that is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from toolkit.frames import COMPARE_STRATA_SCHEMA
from toolkit.rubrics.compare.arms import Arms
from toolkit.rubrics.compare.pass_k import pass_k_terms
from toolkit.rubrics.compare.stats import bootstrap_interval

#: The unit properties a comparison is split by, when both arms carry them.
STRATA_KEYS: tuple[str, ...] = ("difficulty", "language")


def _unit_values(frame: pl.DataFrame, verdict: str, score: str) -> pl.DataFrame:
    """Per unit: runs judged, passes and the mean score."""
    judged = frame.filter((pl.col("dimension") == verdict) & pl.col("passed").is_not_null())
    counts = judged.group_by("unit").agg(
        pl.len().cast(pl.Int64).alias("n"), pl.col("passed").sum().cast(pl.Int64).alias("c")
    )
    scores = (
        frame.filter(pl.col("dimension") == score)
        .group_by("unit")
        .agg(pl.col("value").drop_nulls().mean().alias("score"))
    )
    return counts.join(scores, on="unit", how="left")


def _row(by: str, value: str, units: list[str], a: dict[str, Any], b: dict[str, Any],
         level: float, resamples: int, rng: np.random.Generator) -> dict[str, Any]:  # fmt: skip
    ra = np.asarray([a[u]["c"] / a[u]["n"] for u in units], dtype=np.float64)
    rb = np.asarray([b[u]["c"] / b[u]["n"] for u in units], dtype=np.float64)
    low, high = bootstrap_interval([rb - ra], rng, level, resamples)
    k = min(min(a[u]["n"], b[u]["n"]) for u in units)
    ka = pass_k_terms([(a[u]["n"], a[u]["c"]) for u in units], k)
    kb = pass_k_terms([(b[u]["n"], b[u]["c"]) for u in units], k)
    sa = [a[u]["score"] for u in units if a[u]["score"] is not None]
    sb = [b[u]["score"] for u in units if b[u]["score"] is not None]
    diff = float(np.round(np.mean(rb - ra), 12)) + 0.0  # 2/3 - 2/3 is 0, never -0.00
    return {
        "by": by, "value": value, "tasks": len(units), "pass_a": float(ra.mean()),
        "pass_b": float(rb.mean()), "diff": diff, "ci_low": low, "ci_high": high, "k": k,
        "pass_k_a": sum(ka) / len(ka), "pass_k_b": sum(kb) / len(kb),
        "score_a": sum(sa) / len(sa) if sa else None,
        "score_b": sum(sb) / len(sb) if sb else None,
        "ahead": "B" if diff > 1e-12 else "A" if diff < -1e-12 else "even",
    }  # fmt: skip


def strata_frame(
    arms: Arms,
    verdict: str,
    score: str,
    *,
    level: float,
    resamples: int,
    seed: int,
    keys: Sequence[str] = STRATA_KEYS,
) -> pl.DataFrame:
    """:data:`toolkit.frames.COMPARE_STRATA_SCHEMA`: one row over all paired units (``by``
    = ``all``), then one per value of each of ``keys`` both arms carry (sorted); empty
    when no unit is paired or the arms carry none of ``keys``."""
    present = [k for k in keys if k in arms.a.columns and k in arms.b.columns]
    va = {r["unit"]: r for r in _unit_values(arms.a, verdict, score).iter_rows(named=True)}
    vb = {r["unit"]: r for r in _unit_values(arms.b, verdict, score).iter_rows(named=True)}
    paired = [u for u in arms.shared if u in va and u in vb]
    if not present or not paired:
        return pl.DataFrame(schema=COMPARE_STRATA_SCHEMA)
    groups: list[tuple[str, str, list[str]]] = [("all", "all tasks", paired)]
    for key in present:
        of = dict(arms.a.select("unit", key).drop_nulls().unique("unit").iter_rows())
        for value in sorted({str(v) for u, v in of.items() if u in set(paired)}):
            groups.append((key, value, [u for u in paired if str(of.get(u)) == value]))
    rows = [
        _row(by, value, units, va, vb, level, resamples, np.random.default_rng([seed, 7, i]))
        for i, (by, value, units) in enumerate(groups)
    ]
    return pl.DataFrame(rows, schema=COMPARE_STRATA_SCHEMA)
