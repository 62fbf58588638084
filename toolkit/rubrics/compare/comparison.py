"""Frames in, one comparison out: :func:`compare_scores` pairs the arms, tests every
dimension (:mod:`toolkit.rubrics.compare.stats`), corrects across dimensions and
classifies each difference against the noise floor."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from toolkit.epoch import spec_epoch
from toolkit.errors import InputError
from toolkit.frames import (
    COMPARE_DIMENSIONS_SCHEMA,
    COMPARE_FLIPS_SCHEMA,
    COMPARE_PASS_K_SCHEMA,
)
from toolkit.rubrics.compare.arms import Arms, pair_arms
from toolkit.rubrics.compare.noise import (
    noise_floor,
    paired_floor,
    unpaired_floor,
    with_floors,
    within_sds,
)
from toolkit.rubrics.compare.pass_k import pass_k_rows
from toolkit.rubrics.compare.result import CompareResult
from toolkit.rubrics.compare.rubric import (
    CORRECTIONS,
    DEFAULT_COMPARE_RUBRIC,
    EVAL_PASSED,
    PAIR_KEYS,
    TESTS,
    VERDICT,
    CompareRubric,
)
from toolkit.rubrics.compare.stats import (
    TestResult,
    adjust,
    bootstrap_intervals,
    fisher_p,
    mcnemar_exact,
    paired_test,
    two_sided_z,
    unpaired_test,
)
from toolkit.rubrics.compare.strata import STRATA_KEYS, strata_frame

Floats = np.ndarray[Any, np.dtype[np.float64]]


def _classify(
    p_adj: float | None, diff: float | None, floor: float | None, direction: int, alpha: float
) -> str:
    if p_adj is None or diff is None:
        return "n/a"
    if p_adj >= alpha:
        return "no difference"
    if floor is not None and abs(diff) < floor:
        return "within noise"
    if direction == 0 or diff == 0:
        return "changed"
    return "better" if direction * diff > 0 else "worse"


def compare_scores(
    a: pl.DataFrame,
    b: pl.DataFrame,
    *,
    family: str | None = None,
    pair_by: str | None = None,
    test: str = "wilcoxon",
    correction: str = "holm",
    alpha: float | None = None,
    level: float | None = None,
    seed: int = 0,
    resamples: int | None = None,
    directions: Mapping[str, int] | None = None,
    labels: tuple[str, str] = ("A", "B"),
    notes: Sequence[str] = (),
    rubric: CompareRubric = DEFAULT_COMPARE_RUBRIC,
    arm_epochs: tuple[str | None, str | None] = (None, None),
) -> CompareResult:
    """Compare the scores of arm B with arm A, dimension by dimension.

    Args:
        a, b: :data:`toolkit.frames.COMPARE_SCORES_SCHEMA` frames (family, unit, run,
            dimension, value, passed), plus any pairing-key columns.
        family: the family (default: the frames' ``family`` column); decides the
            directions (:data:`DIRECTIONS`).
        pair_by: a column to pair units by instead of ``unit`` (e.g. ``"seed"``).
        test: ``"wilcoxon"`` (signed-rank; Mann-Whitney unpaired) or ``"t"`` (paired
            t; Welch unpaired).
        correction: ``"holm"`` or ``"bh"`` across the dimensions' p-values.
        alpha: the significance level after correction (default: the rubric's, 0.05).
        level: the bootstrap interval's confidence level (and the noise floor's;
            default: the rubric's, 0.95).
        seed: seeds the bootstrap (each dimension its own stream of it).
        resamples: bootstrap resamples (0: no interval, e.g. for a calibration loop;
            default: the rubric's, 9999).
        directions: dimension -> +1/-1/0, over the rubric's for the family.
        labels: what A and B are called in the output.
        notes: notes from the loading step, shown first.
        arm_epochs: each arm's own epoch (its rubric, ``--window``, judge), part of the
            comparison's epoch with ``pair_by``: a number moved by either changes it.
        rubric: the rubric data (:class:`CompareRubric`, version 1.1.0 by default).

    Returns:
        A :class:`CompareResult`.

    Raises:
        InputError: a bad option, a missing column, an empty arm or a pairing key
            that is not there.
    """
    alpha, level, resamples = _settings(test, correction, alpha, level, seed, resamples, rubric)
    arms = pair_arms(a, b, family, pair_by)
    z = two_sided_z(level)
    noise = noise_floor(arms.a, z)
    binary = arms.binary()
    dims = arms.dimensions(binary)
    design = _Design(
        arms, test, level, seed, resamples, z, binary, within_sds(noise),
        arms.runs_per_unit(), rubric, directions, interval_shares(correction, len(dims)),
    )  # fmt: skip
    tested = [_dimension(design, index, dim) for index, dim in enumerate(dims)]
    frame, ci_level = _corrected(tested, correction, alpha, level)
    return CompareResult(
        family=arms.family,
        mode=arms.mode,
        test=test,
        correction=correction,
        alpha=alpha,
        level=level,
        seed=seed,
        resamples=resamples,
        pairs=len(arms.shared),
        only_a=arms.only_a,
        only_b=arms.only_b,
        dimensions=frame,
        flips=pl.DataFrame([r for t in tested for r in t.flips], schema=COMPARE_FLIPS_SCHEMA),
        pass_k=pl.DataFrame([r for t in tested for r in t.pass_k], schema=COMPARE_PASS_K_SCHEMA),
        noise=with_floors(noise, {t.row["dimension"]: t.floor for t in tested}),
        runs_a=arms.a["run"].n_unique(),
        runs_b=arms.b["run"].n_unique(),
        labels=labels,
        pair_by=pair_by or ", else ".join(PAIR_KEYS.get(arms.family, ("unit",))),
        notes=(*notes, *arms.notes(), *_disagreeing(frame, ci_level)),
        version=rubric.version,
        epoch=spec_epoch(
            rubric,
            family=arms.family,
            test=test,
            correction=correction,
            alpha=alpha,
            level=level,
            seed=seed,
            resamples=resamples,
            directions_given=dict(directions or {}),
            pair_by=pair_by,
            arm_epochs=list(arm_epochs),  # each arm's own (its rubric, --window, judge)
        ).id,
        strata=_strata(arms, design.binary, level, resamples, seed),
        ci_level=ci_level,
    )


def _disagreeing(frame: pl.DataFrame, ci_level: float) -> list[str]:
    """A note per dimension whose adjusted interval excludes 0 while its adjusted p does
    not reach alpha: the two are different methods and can disagree on few units."""
    notes = []
    for r in frame.iter_rows(named=True):
        low, high = r["ci_low"], r["ci_high"]
        if r["outcome"] != "no difference" or low is None or high is None or low <= 0 <= high:
            continue
        what = "units by majority" if r["test"] == "mcnemar" else "the units' values"
        notes.append(
            f"{r['dimension']}: its {ci_level * 100:.3g}% interval excludes 0 but its adjusted "
            f"p ({r['p_adj']:.3g}) does not reach alpha: the interval bootstraps the mean "
            f"difference, the {r['test']} test counts {what}; on few units they can disagree"
        )
    return notes


def interval_shares(correction: str, dimensions: int) -> tuple[tuple[int, int], ...]:
    """Every ``(r, m)`` whose level ``1 - r (1 - level) / m`` the adjusted interval may
    take, ``(1, 1)`` (unadjusted) first: ``m`` the dimensions tested (at most
    ``dimensions``), ``r`` 1 for Holm, else the dimensions BH selects (1 to ``m``)."""
    shares = [(1, 1)]
    for m in range(2, dimensions + 1):
        shares += [(r, m) for r in (range(1, m + 1) if correction == "bh" else (1,))]
    return tuple(shares)


def adjusted_level(level: float, r: int, m: int) -> float:
    """The interval's level once adjusted over ``m`` dimensions of which ``r`` count:
    ``1 - r (1 - level) / m`` (Bonferroni's simultaneous level when ``r`` is 1; Benjamini
    and Yekutieli's FCR-adjusted level for ``r`` selected dimensions)."""
    return 1 - r * (1 - level) / m


def _intervals(
    design: _Design, samples: list[Floats], rng: np.random.Generator
) -> dict[tuple[int, int], tuple[float | None, float | None]]:
    """The bootstrap interval at each level ``design.shares`` names, one set of resamples."""
    levels = [adjusted_level(design.level, r, m) for r, m in design.shares]
    found = bootstrap_intervals(samples, rng, levels, design.resamples)
    return dict(zip(design.shares, found, strict=True))


def _strata(
    arms: Arms, binary: set[str], level: float, resamples: int, seed: int
) -> pl.DataFrame | None:
    """The comparison by difficulty and language (:mod:`.strata`) when the units carry
    them and a pass/fail dimension (``passed`` first, else the verdict) is there."""
    verdict = next((d for d in (EVAL_PASSED, VERDICT) if d in binary), None)
    if verdict is None or not any(k in arms.a.columns for k in STRATA_KEYS):
        return None
    return strata_frame(arms, verdict, "score", level=level, resamples=resamples, seed=seed)


def _settings(
    test: str,
    correction: str,
    alpha: float | None,
    level: float | None,
    seed: int,
    resamples: int | None,
    rubric: CompareRubric,
) -> tuple[float, float, int]:
    """The options checked, and alpha, level and resamples (the rubric's when not given).

    Raises:
        InputError: a test or correction that does not exist, or a number out of range.
    """
    if test not in TESTS:
        raise InputError(None, f"must be one of {', '.join(TESTS)}", field="--test", value=test)
    if correction not in CORRECTIONS:
        raise InputError(
            None, f"must be one of {', '.join(CORRECTIONS)}", field="--correction",
            value=correction,
        )  # fmt: skip
    alpha = rubric.alpha if alpha is None else alpha
    level = rubric.level if level is None else level
    resamples = rubric.resamples if resamples is None else resamples
    for name, value, ok in (
        ("--alpha", alpha, 0 < alpha < 1),
        ("--level", level, 0 < level < 1),
        ("--seed", seed, 0 <= seed < SEED_LIMIT),
        ("--resamples", resamples, 0 <= resamples <= MAX_RESAMPLES),
    ):
        if not ok:
            raise InputError(None, f"out of range ({_RANGES[name]})", field=name, value=value)
    return alpha, level, resamples


#: The seeds taken: 0 to 2**32 - 1 (a seed past it is a typo, not a different stream).
SEED_LIMIT = 2**32
#: The most bootstrap resamples: 10^6 statistics are 8 MB per dimension, and the resamples
#: are drawn in batches of at most 2**22 values (32 MiB), whatever the number of pairs
#: (:func:`toolkit.rubrics.compare.stats.bootstrap_interval`).
MAX_RESAMPLES = 1_000_000
_RANGES = {
    "--alpha": "between 0 and 1",
    "--level": "between 0 and 1",
    "--seed": f"0 to {SEED_LIMIT - 1:,}",
    "--resamples": f"0 to {MAX_RESAMPLES:,}",
}


@dataclass(frozen=True)
class _Design:
    """What every dimension of one comparison is tested with."""

    arms: Arms
    test: str
    level: float
    seed: int
    resamples: int
    z: float
    binary: set[str]
    within: dict[str, float]  # dimension -> A's pooled within-unit SD
    runs: dict[str, dict[str, int]]  # arm -> unit -> runs
    rubric: CompareRubric
    directions: Mapping[str, int] | None
    shares: tuple[tuple[int, int], ...] = ((1, 1),)  # (r, m): the levels of the interval


@dataclass(frozen=True)
class _Numbers:
    """One dimension's two samples (unit means or rates), its test and interval."""

    xa: Floats
    xb: Floats
    n: int
    result: TestResult
    intervals: dict[tuple[int, int], tuple[float | None, float | None]]
    floor: float | None = None
    flips: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class _Tested:
    """One dimension before the correction: its row, noise floor, flips and pass^k."""

    row: dict[str, Any]
    floor: float | None
    flips: tuple[dict[str, Any], ...]
    pass_k: list[dict[str, Any]]
    intervals: dict[tuple[int, int], tuple[float | None, float | None]]


def _dimension(design: _Design, index: int, dim: str) -> _Tested:
    """Test dimension ``dim`` (the ``index``-th: its own bootstrap stream of the seed)."""
    rng = np.random.default_rng([design.seed, index])
    kind = "pass/fail" if dim in design.binary else "numeric"
    col = "rate" if kind == "pass/fail" else "value"
    da, db = _arm_rows(design.arms, dim, kind)
    pass_k = _pass_k_rows(design, index, dim, da, db) if kind == "pass/fail" else []
    direction = design.rubric.direction_of(design.arms.family, dim, design.directions)
    if design.arms.mode == "paired":
        numbers = _paired(design, dim, kind, col, da, db, rng)
    else:
        numbers = _unpaired(design, dim, kind, col, da, db, rng)
    row = {"dimension": dim, "kind": kind, "direction": direction}
    row |= _numbers_row(numbers, design.arms.mode)
    return _Tested(row, numbers.floor, numbers.flips, pass_k, numbers.intervals)


def _arm_rows(arms: Arms, dim: str, kind: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Both arms' unit means of ``dim``: the judged units with their pass ``rate`` for a
    pass/fail dimension, else the units with a value."""
    da = arms.means_a.filter(pl.col("dimension") == dim)
    db = arms.means_b.filter(pl.col("dimension") == dim)
    if kind == "pass/fail":
        rate = (pl.col("passes") / pl.col("judged")).alias("rate")
        return (
            da.filter(pl.col("judged") > 0).with_columns(rate),
            db.filter(pl.col("judged") > 0).with_columns(rate),
        )
    return da.drop_nulls("value"), db.drop_nulls("value")


def _pass_k_rows(
    design: _Design, index: int, dim: str, da: pl.DataFrame, db: pl.DataFrame
) -> list[dict[str, Any]]:
    """pass^k of each arm for k = 1 .. its most runs of a unit, with the bootstrap
    interval over units (:func:`~toolkit.rubrics.compare.pass_k.pass_k_rows`)."""
    rows: list[dict[str, Any]] = []
    for arm_index, (arm, frame) in enumerate((("A", da), ("B", db))):
        counts = list(zip(frame["judged"].to_list(), frame["passes"].to_list(), strict=True))
        for row in pass_k_rows(counts, level=design.level, resamples=design.resamples,
                               seed=[design.seed, index, arm_index]):  # fmt: skip
            rows.append({"dimension": dim, "arm": arm, "k": row["k"], "units": row["tasks"],
                         "pass_k": row["pass_k"], "ci_low": row["ci_low"],
                         "ci_high": row["ci_high"]})  # fmt: skip
    return rows


def _paired(
    design: _Design,
    dim: str,
    kind: str,
    col: str,
    da: pl.DataFrame,
    db: pl.DataFrame,
    rng: np.random.Generator,
) -> _Numbers:
    """The paired units' test (McNemar or :func:`paired_test`), bootstrap interval of
    the mean difference, and noise floor."""
    joined = da.join(db, on="unit", suffix="_b").sort("unit")
    xa = joined[col].to_numpy().astype(float)
    xb = joined[f"{col}_b"].to_numpy().astype(float)
    flips: tuple[dict[str, Any], ...] = ()
    if kind == "pass/fail":
        flip, result = _flip_test(dim, xa, xb, design.rubric.majority)
        flips = (flip,)
    else:
        result = paired_test(xa, xb, design.test)
    intervals = _intervals(design, [xb - xa], rng)
    sd_w = design.within.get(dim)
    floor = None
    if sd_w is not None and xa.size:
        units = joined["unit"].to_list()
        ra = [design.runs["A"].get(u, 1) for u in units]
        rb = [design.runs["B"].get(u, 1) for u in units]
        floor = paired_floor(sd_w, design.z, ra, rb)
    return _Numbers(xa, xb, xa.size, result, intervals, floor, flips)


def _flip_test(
    dim: str, xa: Floats, xb: Floats, majority: float
) -> tuple[dict[str, Any], TestResult]:
    """The flip table of the paired units (a unit passes above ``majority``) and
    McNemar's exact test of it; the effect is the net share of units that flipped to
    pass."""
    n = xa.size
    pa, pb = xa > majority, xb > majority
    table = {
        "both_pass": int(np.sum(pa & pb)),
        "pass_to_fail": int(np.sum(pa & ~pb)),
        "fail_to_pass": int(np.sum(~pa & pb)),
        "both_fail": int(np.sum(~pa & ~pb)),
    }
    p = mcnemar_exact(table["pass_to_fail"], table["fail_to_pass"]) if n else None
    net = (table["fail_to_pass"] - table["pass_to_fail"]) / n if n else None
    result = TestResult(
        "mcnemar", float(table["fail_to_pass"]) if n else None, p, net, None,
        "" if n else "no pair judged",
    )  # fmt: skip
    return {"dimension": dim, **table, "p": p}, result


def _unpaired(
    design: _Design,
    dim: str,
    kind: str,
    col: str,
    da: pl.DataFrame,
    db: pl.DataFrame,
    rng: np.random.Generator,
) -> _Numbers:
    """Every unit's test (Fisher or :func:`unpaired_test`), bootstrap interval of
    mean(B) - mean(A), and noise floor."""
    xa = da[col].to_numpy().astype(float)
    xb = db[col].to_numpy().astype(float)
    if kind == "pass/fail":
        result = _fisher_test(xa, xb, design.rubric.majority)
    else:
        result = unpaired_test(xa, xb, design.test)
    intervals = _intervals(design, [xa, xb], rng)
    sd_w = design.within.get(dim)
    floor = None
    if sd_w is not None and xa.size and xb.size:
        ra = [design.runs["A"].get(u, 1) for u in da["unit"].to_list()]
        rb = [design.runs["B"].get(u, 1) for u in db["unit"].to_list()]
        floor = unpaired_floor(sd_w, design.z, ra, rb)
    return _Numbers(xa, xb, xa.size + xb.size, result, intervals, floor)


def _fisher_test(xa: Floats, xb: Floats, majority: float) -> TestResult:
    """Fisher's exact test of the units passing (above ``majority``) in each arm; the
    effect is the difference of the pass shares."""
    na, nb = int(np.sum(xa > majority)), int(np.sum(xb > majority))
    if xa.size and xb.size:
        p: float | None = fisher_p([[nb, xb.size - nb], [na, xa.size - na]])
    else:
        p = None
    net = nb / xb.size - na / xa.size if xa.size and xb.size else None
    return TestResult("fisher", None, p, net, None)


def _numbers_row(numbers: _Numbers, mode: str) -> dict[str, Any]:
    """A dimension's row from its numbers: both means, the difference, the test."""
    xa, xb, result = numbers.xa, numbers.xb, numbers.result
    mean_a = float(np.mean(xa)) if xa.size else None
    mean_b = float(np.mean(xb)) if xb.size else None
    diff = mean_b - mean_a if mean_a is not None and mean_b is not None else None
    if mode == "paired" and xa.size:
        diff = float(np.mean(xb - xa))
    note = result.note
    if xa.size == 0 or xb.size == 0:
        note = "no paired unit has this dimension" if mode == "paired" else "absent in an arm"
    return {
        "n": numbers.n, "mean_a": mean_a, "mean_b": mean_b, "diff": diff,
        "ci_low": None, "ci_high": None, "test": result.name,
        "statistic": result.statistic, "p": result.p, "effect": result.effect,
        "rank_biserial": result.rank_biserial, "noise_floor": numbers.floor, "note": note,
        "ci_low_raw": numbers.intervals[1, 1][0], "ci_high_raw": numbers.intervals[1, 1][1],
    }  # fmt: skip


def _corrected(
    tested: list[_Tested], correction: str, alpha: float, level: float
) -> tuple[pl.DataFrame, float]:
    """The rows with ``p_adj`` (``correction`` across the tested dimensions), their
    ``outcome`` (:func:`_classify`) and their interval adjusted the same way, as
    :data:`toolkit.frames.COMPARE_DIMENSIONS_SCHEMA`; and that interval's level.

    The interval of every row takes one level: Holm's ``1 - (1 - level) / m`` over the
    ``m`` dimensions tested (simultaneous, Bonferroni); BH's ``1 - R (1 - level) / m``
    with ``R`` the dimensions it selects at ``alpha`` (at least 1: Benjamini and
    Yekutieli's false-coverage-rate interval)."""
    rows = [t.row for t in tested]
    found = [i for i, r in enumerate(rows) if r["p"] is not None and not math.isnan(r["p"])]
    adjusted = adjust([rows[i]["p"] for i in found], correction)
    for r in rows:
        r["p_adj"] = None
    for i, value in zip(found, adjusted, strict=True):
        rows[i]["p_adj"] = value
    m = max(1, len(found))
    selected = sum(1 for value in adjusted if value < alpha)
    share = (max(1, selected) if correction == "bh" else 1, m)
    share = share if m > 1 else (1, 1)
    for r, t in zip(rows, tested, strict=True):
        r["ci_low"], r["ci_high"] = t.intervals[share]
        r["outcome"] = _classify(r["p_adj"], r["diff"], r["noise_floor"], r["direction"], alpha)
    frame = pl.DataFrame(rows, schema=COMPARE_DIMENSIONS_SCHEMA)
    return frame, adjusted_level(level, *share)
