"""What is the true score? A judge on every item, corrected by people on a few (PPI++).

``estimate`` is a rubric over the same long frame of scores as
:func:`toolkit.rubrics.calibrate.calibrate` (item, rater, score, optional group columns
such as agent or dimension; the judge is one rater id, every other rater is a person).
An item's human score is the mean over its raters. The judge's score on every item,
corrected by the judge's error measured on the rated items, gives the
prediction-powered estimate of the people's mean (Angelopoulos, Bates, Fannjiang,
Jordan & Zrnic 2023), power-tuned (PPI++, Angelopoulos, Duchi & Zrnic 2023)::

    estimate = lam * mean(judge on unrated) + mean(human - lam * judge, on rated)

with ``lam = cov(human, judge) / ((1 + n/N) * var(judge))`` clipped to [0, 1] (n rated
items, N unrated; lam 0 is the people-only mean, 1 plain PPI) and the CLT interval
``estimate +- z * sqrt(lam^2 var(judge on unrated) / N + var(human - lam judge) / n)``
(variances over n, as the reference implementation ``ppi-python`` takes them). Beside it
the judge-only mean (every judged item: an interval for the judge's mean, not for the
people's) and the people-only mean (the rated items), each with its interval.

Means, and pass rates (a verdict as a proportion: pass = score >= threshold; the human
verdict passes when the human mean does), overall and per value of each group column,
one row each. Every row carries its interval, the rated and unrated item counts and a
sha256 of its input rows. docs/rubrics/estimate.md says what the numbers mean and when
to trust them.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np
import polars as pl

from toolkit.epoch import short_hash
from toolkit.errors import InputError
from toolkit.rubrics.calibrate import BASE_COLUMNS, groups_of
from toolkit.summary import Shows, Summary, plural

ESTIMATE_VERSION = "1.0.0"
MEASURES: tuple[str, ...] = ("mean", "pass_rate")
#: The columns of :attr:`Estimate.frame`.
ESTIMATE_SCHEMA: dict[str, pl.DataType] = {
    "group": pl.String(),
    "value": pl.String(),
    "measure": pl.String(),
    "estimate": pl.Float64(),
    "low": pl.Float64(),
    "high": pl.Float64(),
    "lam": pl.Float64(),
    "judge_mean": pl.Float64(),
    "judge_low": pl.Float64(),
    "judge_high": pl.Float64(),
    "people_mean": pl.Float64(),
    "people_low": pl.Float64(),
    "people_high": pl.Float64(),
    "rated": pl.Int64(),
    "unrated": pl.Int64(),
    "digest": pl.String(),
    "note": pl.String(),
}


# ---------------------------------------------------------------------------
# The arithmetic, vectorised over leading axes (one draw per row in the tests)
# ---------------------------------------------------------------------------


#: Below this many rated items a CLT interval covers less often than its level says
#: (docs/rubrics/estimate.md: 88 % at 10, 92 % at 20, 94 % at 40 for a 95 % interval).
FEW_RATED = 40


def power_lambda(
    y: np.ndarray, yhat: np.ndarray, yhat_unrated: np.ndarray, w: np.ndarray | None = None
) -> np.ndarray:
    """PPI++'s variance-minimising lam for a mean, clipped to [0, 1], along the last axis.

    ``cov(y, yhat) / ((1 + n/N) * var(yhat over rated and unrated))``: the covariance
    over n, the judge's variance over n + N - 1 (as ``ppi-python`` takes them); nan
    where the judge does not vary. With ``w`` (each rated item's inverse probability of
    being rated, the informative order) the covariance is the ``w``-weighted one.
    """
    n, big_n = y.shape[-1], yhat_unrated.shape[-1]
    if w is None:
        cov = ((y - y.mean(-1, keepdims=True)) * (yhat - yhat.mean(-1, keepdims=True))).mean(-1)
    else:
        cov = _wmean(w, (y - _wmean(w, y)[..., None]) * (yhat - _wmean(w, yhat)[..., None]))
    var = np.concatenate([yhat, yhat_unrated], axis=-1).var(-1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = cov / ((1 + n / big_n) * var)
    clipped: np.ndarray = np.clip(lam, 0.0, 1.0)
    return clipped


def ppi_mean(
    y: np.ndarray,
    yhat: np.ndarray,
    yhat_unrated: np.ndarray,
    lam: np.ndarray | float,
    confidence: float = 0.95,
    *,
    w: np.ndarray | None = None,
    v: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The prediction-powered mean and its CLT interval for a given lam, along the last
    axis: (estimate, low, high).

    With ``w`` and ``v`` (the informative order: each rated item's ``1/p`` and each
    unrated item's ``1/(1 - p)``, p its probability of being rated) both means are the
    inverse-probability-weighted (Hajek) ones, ``sum(w x) / sum(w)``, and each variance
    ``sum(w^2 (x - mean)^2) / sum(w)^2``; equal weights give the unweighted numbers.
    """
    lam = np.asarray(lam, float)[..., None]
    n, big_n = y.shape[-1], yhat_unrated.shape[-1]
    rectifier = y - lam * yhat
    judged = lam * yhat_unrated
    if w is None or v is None:
        point = judged.mean(-1) + rectifier.mean(-1)
        var = judged.var(-1) / big_n + rectifier.var(-1) / n
    else:
        point = _wmean(v, judged) + _wmean(w, rectifier)
        var = _wvar_of_mean(v, judged) + _wvar_of_mean(w, rectifier)
    half = _z(confidence) * np.sqrt(var)
    return point, point - half, point + half


def _wmean(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The ``w``-weighted mean of ``x`` along the last axis."""
    out: np.ndarray = (w * x).sum(-1) / w.sum(-1)
    return out


def _wvar_of_mean(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The variance of the ``w``-weighted (Hajek) mean of ``x``, linearised:
    ``sum(w^2 (x - mean)^2) / sum(w)^2`` (``var(x) / n`` for equal weights)."""
    dev = x - _wmean(w, x)[..., None]
    out: np.ndarray = (w**2 * dev**2).sum(-1) / w.sum(-1) ** 2
    return out


def _z(confidence: float) -> float:
    return NormalDist().inv_cdf(1 - (1 - confidence) / 2)


def _clt(
    x: np.ndarray, confidence: float, w: np.ndarray | None = None
) -> tuple[float, float, float]:
    """The mean of ``x`` and its CLT interval (variance over n, as ``ppi-python``); with
    ``w``, the inverse-probability-weighted (Hajek) mean and its linearised variance."""
    if w is None:
        mean = float(x.mean())
        half = _z(confidence) * float(x.std()) / math.sqrt(x.size)
    else:
        mean = float(_wmean(w, x))
        half = _z(confidence) * math.sqrt(float(_wvar_of_mean(w, x)))
    return mean, mean - half, mean + half


def ratings_to_decide(
    y: np.ndarray,
    yhat: np.ndarray,
    yhat_unrated: np.ndarray,
    lam: float,
    threshold: float,
    confidence: float = 0.95,
) -> int | None:
    """How many more items must be rated before the interval clears ``threshold``: the
    smallest k for which, at the variances seen so far, the half-width with n + k rated
    and N - k unrated items falls below the distance from the estimate to the threshold.
    0 when it already clears it; None when rating every item would not."""
    shown = yhat_unrated if yhat_unrated.size else np.zeros(1)  # lam 0 when none is unrated
    point, low, high = (float(v) for v in ppi_mean(y, yhat, shown, lam, confidence))
    if not low <= threshold <= high:
        return 0
    distance = abs(point - threshold)
    judge_var = float((lam * yhat_unrated).var()) if yhat_unrated.size else 0.0
    rect_var = float((y - lam * yhat).var())
    n, big_n = y.size, yhat_unrated.size
    z = _z(confidence)
    for k in range(1, big_n + 1):
        left = big_n - k
        var = rect_var / (n + k) + (judge_var / left if left else 0.0)
        if z * math.sqrt(var) < distance:
            return k
    return None


# ---------------------------------------------------------------------------
# The result
# ---------------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class Estimate(Shows):
    """The people's mean and pass rate, estimated from the judge and a few ratings.

    Attributes:
        frame: one row per group value and measure (:data:`ESTIMATE_SCHEMA`): ``group``
            (``all`` for the overall rows) and ``value``; ``measure`` (``mean`` or
            ``pass_rate``); the PPI++ ``estimate`` with ``low``/``high`` and its ``lam``;
            ``judge_mean``/``judge_low``/``judge_high`` (every judged item);
            ``people_mean``/``people_low``/``people_high`` (the rated items); ``rated``
            and ``unrated`` items; ``digest`` (sha256 of the row's sorted input rows,
            each with its item's draw probability when the probabilities differ);
            ``note`` (why lam fell back to 0 or an interval is missing, else null).
        judge: the judge's rater id.
        threshold: an item passes at this score or above.
        confidence: the intervals' confidence.
        unjudged: items people rated that the judge did not score (left out).
        epoch: a short hash of what decides the numbers (:mod:`toolkit.epoch`): the
            estimator and its version, the judge id, threshold, confidence, strata,
            whether it is weighed by draw probabilities, and the judge's own epoch.
        judge_epoch: the judge's epoch where the caller knows it (``toolkit calibrate
            --persona/--discussion/--outcome``), else None.
    """

    frame: pl.DataFrame
    judge: str
    threshold: float
    confidence: float
    unjudged: int
    epoch: str = ""
    judge_epoch: str | None = None

    def _summary(self) -> Summary:
        def cell(v: float | None) -> str:
            return "-" if v is None else f"{v:.3f}"

        rows = tuple(
            (
                f"{r['value']}" if r["group"] == "all" else f"{r['group']}={r['value']}",
                str(r["measure"]),
                f"{cell(r['estimate'])} [{cell(r['low'])}, {cell(r['high'])}]",
                f"people {cell(r['people_mean'])}",
                f"judge {cell(r['judge_mean'])}",
            )
            for r in self.frame.iter_rows(named=True)
        )
        overall = self.frame.row(0, named=True)
        return Summary(
            "Estimate",
            f"judge {self.judge!r}, {plural(overall['rated'], 'rated item')}, "
            f"{plural(overall['unrated'], 'unrated item')}",
            (
                ("threshold:", f"{self.threshold:g}"),
                ("confidence:", f"{self.confidence:g}"),
                ("epoch:", self.epoch),
            ),
            columns=("stratum", "measure", "estimate", "people", "judge"),
            rows=rows,
        )

    def to_dict(self) -> dict[str, Any]:
        """Every number as plain JSON-able data (the JSON output)."""
        return {
            "rubric": "estimate",
            "rubric_version": ESTIMATE_VERSION,
            "judge": self.judge,
            "threshold": self.threshold,
            "confidence": self.confidence,
            "unjudged_items": self.unjudged,
            "epoch": self.epoch,
            "judge_epoch": self.judge_epoch,
            "input_digest": self.frame["digest"][0] if self.frame.height else None,
            "rows": self.frame.to_dicts(),
        }


# ---------------------------------------------------------------------------
# The rubric
# ---------------------------------------------------------------------------


def estimate(
    scores: pl.DataFrame,
    *,
    judge: str = "judge",
    threshold: float = 5.0,
    confidence: float = 0.95,
    by: str | Sequence[str] | None = None,
    probabilities: Mapping[str, float] | None = None,
    judge_epoch: str | None = None,
) -> Estimate:
    """The PPI++ estimate of the people's mean score and pass rate (see the module docs).

    Args:
        scores: item, rater, score and optional group columns (the calibration frame;
            a later row of the same item and rater replaces an earlier one).
        judge: the judge's rater id; every other rater is a person.
        threshold: an item passes at this score or above.
        confidence: the intervals' confidence (0.95).
        by: the group columns to stratify by (default: every group column).
        probabilities: item -> its probability of being rated, for every judged item
            (a rating session in the informative order records them:
            ``RatingStore.rating_probabilities``). Each rated item is then weighed by
            ``1/p`` and each unrated one by ``1/(1 - p)`` (inverse-probability weights),
            so the estimate stays unbiased however the items were chosen. None, or every
            probability the same (the random order): the unweighted numbers, exactly.
        judge_epoch: the judge's own epoch, when known: part of the estimate's epoch.

    Raises:
        InputError: a missing column, a judge id that is no rater, no person, fewer
            than two items both judged and rated, a judge that gave every item the same
            score, a ``by`` column that is not in the frame, a confidence outside (0, 1),
            or probabilities that miss a judged item or lie outside (0, 1].
    """
    if not 0 < confidence < 1:
        raise InputError(None, "must be between 0 and 1", field="confidence", value=confidence)
    items, unjudged = _items(scores, judge)
    items = _with_probabilities(items, probabilities)
    groups = _groups(scores, by)
    if items["judge"].n_unique() == 1:
        raise InputError(
            None,
            "the judge gave every item the same score, so it tells the items apart no better "
            "than a constant; use the people's mean",
            field="score",
            value=items["judge"][0],
        )
    long = scores.select(*BASE_COLUMNS, *groups).with_columns(pl.all().cast(pl.String))
    if "p" in items.columns:  # unequal draw probabilities decide the numbers: digest them
        drawn = items.select("item", pl.col("p").cast(pl.String).alias("draw_probability"))
        long = long.join(drawn, on="item", how="left", maintain_order="left")
    rows = [*_rows("all", "all", items, long, threshold, confidence)]
    for g in groups:
        for value in sorted(items[g].drop_nulls().unique().to_list(), key=str):
            part = items.filter(pl.col(g) == value)
            shown = long.filter(pl.col(g) == str(value))
            rows.extend(_rows(g, str(value), part, shown, threshold, confidence))
    decided = {"estimator": "ppi++", "version": ESTIMATE_VERSION, "judge": judge,
               "threshold": threshold, "confidence": confidence, "by": list(groups),
               "weighted": probabilities is not None, "judge_epoch": judge_epoch}  # fmt: skip
    return Estimate(
        frame=pl.DataFrame(rows, schema=ESTIMATE_SCHEMA),
        judge=judge,
        threshold=threshold,
        confidence=confidence,
        unjudged=unjudged,
        epoch=short_hash(decided),
        judge_epoch=judge_epoch,
    )


def checked_scores(scores: pl.DataFrame, judge: str) -> pl.DataFrame:
    """``scores`` with item and rater as text and score as a float, the last row of each
    item and rater kept (the other columns as given): what the estimate and the
    alternative-annotator test read.

    Raises:
        InputError: a missing column, a score that is not a finite number (NaN sorts
            above every number in Polars: it would pass, fail or win silently), or a
            judge id that is no rater.
    """
    missing = [c for c in BASE_COLUMNS if c not in scores.columns]
    if missing:
        raise InputError(None, "the scores need the columns item, rater, score",
                         field="columns", value=",".join(scores.columns))  # fmt: skip
    long = scores.with_columns(
        pl.col("item").cast(pl.String),
        pl.col("rater").cast(pl.String),
        pl.col("score").cast(pl.Float64),
    ).unique(["item", "rater"], keep="last", maintain_order=True)
    odd = long.filter(~pl.col("score").is_finite())
    if odd.height:
        first = odd.row(0, named=True)
        where = f"item {first['item']!r}, rater {first['rater']!r}"
        raise InputError(
            None, f"a score must be a finite number ({where})", field="score", value=first["score"]
        )
    raters = sorted(set(long["rater"].to_list()))
    if judge not in raters:
        raise InputError(None, f"no such rater; the raters are {', '.join(raters)}",
                         field="--judge-id", value=judge)  # fmt: skip
    return long


def _items(scores: pl.DataFrame, judge: str) -> tuple[pl.DataFrame, int]:
    """Per judged item: the judge's score, the human mean (null: unrated) and the groups;
    and the count of items rated but not judged.

    Raises:
        InputError: a missing column, a score that is not a finite number, no such judge,
            no person, fewer than two rated items.
    """
    groups = groups_of(scores)
    long = checked_scores(scores, judge)
    raters = sorted(set(long["rater"].to_list()))
    if len(raters) == 1:
        raise InputError(None, "no person rated any item; the estimate needs people's ratings "
                         "of some items", field="rater", value=judge)  # fmt: skip
    judged = long.filter(pl.col("rater") == judge).select(
        "item", pl.col("score").alias("judge"), *groups
    )
    people = (
        long.filter(pl.col("rater") != judge)
        .group_by("item")
        .agg(pl.col("score").mean().alias("human"))
    )
    items = judged.join(people, on="item", how="left").sort("item")
    rated = items["human"].drop_nulls().len()
    if rated < 2:
        raise InputError(
            None,
            f"{plural(rated, 'item')} both judged and rated; the estimate needs at least two",
            field="rater",
            value=judge,
        )
    unjudged = people.height - rated
    return items, unjudged


def _with_probabilities(
    items: pl.DataFrame, probabilities: Mapping[str, float] | None
) -> pl.DataFrame:
    """``items`` with each one's probability of being rated (column ``p``); unchanged
    when none is given or every probability is the same (equal weights).

    Raises:
        InputError: a judged item without a probability, one outside (0, 1], or an
            unrated item whose probability of being rated is 1.
    """
    if probabilities is None:
        return items
    found = []
    for item, human in zip(items["item"], items["human"], strict=True):
        p = probabilities.get(item)
        if p is None or not math.isfinite(p) or not 0 < p <= 1:
            raise InputError(
                None, f"item {item}: every judged item needs a probability in (0, 1]",
                field="probability", value=p,
            )  # fmt: skip
        if human is None and p >= 1:
            raise InputError(None, f"item {item} is unrated but had probability 1 of being "
                             "rated", field="probability", value=p)  # fmt: skip
        found.append(float(p))
    if len(set(found)) <= 1:
        return items
    return items.with_columns(p=pl.Series(found, dtype=pl.Float64))


def _groups(scores: pl.DataFrame, by: str | Sequence[str] | None) -> list[str]:
    """The group columns to stratify by (``by``, else every group column)."""
    found = groups_of(scores)
    if by is None:
        return found
    wanted = [by] if isinstance(by, str) else list(by)
    for g in wanted:
        if g not in found:
            have = ", ".join(found) or "none"
            raise InputError(None, f"no such group column; the frame has {have}",
                             field="--by", value=g)  # fmt: skip
    return wanted


def digest_of(rows: pl.DataFrame) -> str:
    """sha256 of the rows (as text), sorted: the same inputs in any order, the same digest."""
    lines = sorted(json.dumps(r, sort_keys=True) for r in rows.to_dicts())
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def _rows(
    group: str,
    value: str,
    items: pl.DataFrame,
    long: pl.DataFrame,
    threshold: float,
    confidence: float,
) -> list[dict[str, Any]]:
    """The mean and pass-rate rows of one stratum."""
    rated = items.filter(pl.col("human").is_not_null())
    unrated = items.filter(pl.col("human").is_null())
    y, yhat = rated["human"].to_numpy(), rated["judge"].to_numpy()
    yhat_u = unrated["judge"].to_numpy()
    every = items["judge"].to_numpy()
    weights = None
    if "p" in items.columns:  # inverse-probability weights: rated 1/p, unrated 1/(1-p)
        weights = (_relative(rated["p"].to_numpy()), _relative(1 - unrated["p"].to_numpy()))
    digest = digest_of(long.filter(pl.col("item").is_in(items["item"].implode())))
    out = []
    for measure in MEASURES:
        if measure == "pass_rate":
            y, yhat = (y >= threshold).astype(float), (yhat >= threshold).astype(float)
            yhat_u, every = (yhat_u >= threshold).astype(float), (every >= threshold).astype(float)
        row: dict[str, Any] = {
            "group": group, "value": value, "measure": measure,
            "rated": int(y.size), "unrated": int(yhat_u.size), "digest": digest,
        }  # fmt: skip
        row |= _numbers(y, yhat, yhat_u, every, confidence, weights)
        if measure == "pass_rate":  # a proportion's interval stays within [0, 1]
            for key in ("low", "high", "people_low", "people_high", "judge_low", "judge_high"):
                if row[key] is not None:
                    row[key] = min(max(row[key], 0.0), 1.0)
        if 2 <= y.size < FEW_RATED:
            few = (
                f"only {y.size} rated items: below about {FEW_RATED} the interval covers "
                "less often than it says"
            )
            row["note"] = f"{row['note']}; {few}" if row["note"] else few
        out.append(row)
    return out


def _relative(p: np.ndarray) -> np.ndarray:
    """The inverse-probability weights ``1/p`` scaled by the smallest ``p`` (the
    weighted means and their variances do not change with the scale): never infinite,
    so a probability near the float limit (1e-320) weighs as much as it should instead
    of turning every number into NaN."""
    if not p.size:
        return p
    out: np.ndarray = p.min() / p
    return out


def _numbers(
    y: np.ndarray,
    yhat: np.ndarray,
    yhat_u: np.ndarray,
    every: np.ndarray,
    confidence: float,
    weights: tuple[np.ndarray, np.ndarray] | None = None,
) -> dict[str, Any]:
    """One row's estimate, judge-only and people-only numbers, and its note; ``weights``
    (the rated items' 1/p, the unrated ones' 1/(1-p)) weigh the people's side."""
    w, v = weights if weights is not None else (None, None)
    row: dict[str, Any] = dict.fromkeys(
        ("estimate", "low", "high", "lam", "people_mean", "people_low", "people_high"), None
    )
    row["judge_mean"], row["judge_low"], row["judge_high"] = _clt(every, confidence)
    row["note"] = None
    if y.size == 0:
        row["note"] = "no rated item: only the judge's mean"
        return row
    row["people_mean"], row["people_low"], row["people_high"] = _clt(y, confidence, w)
    if y.size < 2:
        row["note"] = "one rated item: no interval"
        row["people_low"] = row["people_high"] = None
        row["estimate"] = row["people_mean"]
        return row
    if yhat_u.size == 0:
        lam, row["note"] = 0.0, "every item rated: the people's mean"
    else:
        lam = float(power_lambda(y, yhat, yhat_u, w))
        if math.isnan(lam):
            lam, row["note"] = 0.0, "the judge does not vary here: the people's mean"
    yhat_u_used = yhat_u if yhat_u.size else np.zeros(1)
    if w is not None and v is not None and not yhat_u.size:
        v = np.ones(1)  # every item rated: lam is 0, the unrated side weighs nothing
    point, low, high = ppi_mean(y, yhat, yhat_u_used, lam, confidence, w=w, v=v)
    row.update(estimate=float(point), low=float(low), high=float(high), lam=lam)
    return row


# ---------------------------------------------------------------------------
# The gate
# ---------------------------------------------------------------------------


def gate_failures(result: Estimate, scores: pl.DataFrame, threshold: float) -> list[str]:
    """Why ``--gate estimate`` fails, one line per mean row whose interval does not lie
    wholly at or above ``threshold`` (empty: it passes), each saying how many more
    ratings would decide it."""
    items, _ = _items(scores, result.judge)
    out = []
    for r in result.frame.filter(pl.col("measure") == "mean").iter_rows(named=True):
        where = "overall" if r["group"] == "all" else f"{r['group']}={r['value']}"
        if r["low"] is None:
            out.append(f"{where}: no interval ({r['note']})")
            continue
        if r["low"] >= threshold:
            continue
        part = (
            items
            if r["group"] == "all"
            else items.filter(pl.col(r["group"]).cast(pl.String) == r["value"])
        )
        rated = part.filter(pl.col("human").is_not_null())
        more = ratings_to_decide(
            rated["human"].to_numpy(), rated["judge"].to_numpy(),
            part.filter(pl.col("human").is_null())["judge"].to_numpy(),
            r["lam"], threshold, result.confidence,
        )  # fmt: skip
        span = f"{r['estimate']:.3f} [{r['low']:.3f}, {r['high']:.3f}]"
        if r["high"] < threshold:
            out.append(f"{where}: the mean {span} is below {threshold:g}")
        elif more is None and not r["unrated"]:
            out.append(f"{where}: the mean {span} straddles {threshold:g} with every item "
                       "rated; only more items or raters per item would decide it")  # fmt: skip
        elif more is None:
            out.append(f"{where}: the mean {span} straddles {threshold:g}; rating every "
                       "item would not decide it")  # fmt: skip
        else:
            out.append(f"{where}: the mean {span} straddles {threshold:g}; about "
                       f"{plural(more, 'more rated item')} would decide it")  # fmt: skip
    return out


# ---------------------------------------------------------------------------
# Two versions: the difference of two estimates (toolkit compare --estimate)
# ---------------------------------------------------------------------------

#: The columns of :attr:`Difference.frame`.
DIFFERENCE_SCHEMA: dict[str, pl.DataType] = {
    "measure": pl.String(),
    "arm": pl.String(),
    "estimate": pl.Float64(),
    "low": pl.Float64(),
    "high": pl.Float64(),
    "se": pl.Float64(),
    "lam": pl.Float64(),
    "judge_mean": pl.Float64(),
    "people_mean": pl.Float64(),
    "rated": pl.Int64(),
    "unrated": pl.Int64(),
    "digest": pl.String(),
    "note": pl.String(),
}


def _arm_note(note: str | None, rated: int, se: float) -> str | None:
    """One arm's warnings for the difference: the estimate's own note, too few rated
    items, an interval of no width (every rated item agrees: it says nothing)."""
    notes = [note] if note else []
    if rated < FEW_RATED:
        notes.append(f"only {rated} rated items: below about {FEW_RATED} the interval covers "
                     "less often than it says")  # fmt: skip
    if se == 0:
        notes.append("the interval has no width (every rated item agrees): it says nothing")
    return "; ".join(notes) or None


def _shared_items(a: pl.DataFrame, b: pl.DataFrame) -> str | None:
    """A warning when the arms share items: the difference's interval adds the arms'
    variances, as for independent samples; shared items make the arms correlated and
    that interval wrong (too wide when they agree, too narrow when they do not)."""
    shared = a.join(b, on="item", how="semi").height
    if not shared:
        return None
    return (f"{shared} item id(s) in both arms: the interval treats the arms as "
            "independent samples, which shared items are not")  # fmt: skip


@dataclass(frozen=True, repr=False)
class Difference(Shows):
    """Version B against version A on the people's scale, each arm a PPI++ estimate.

    Attributes:
        frame: per measure (``mean``, ``pass_rate``) three rows (:data:`DIFFERENCE_SCHEMA`):
            ``arm`` A and B (each arm's PPI++ estimate, interval, standard error ``se``
            and ``lam``, its judge-only and people-only means, rated and unrated items
            and the digest of its input rows) and ``B - A`` (the difference, its interval
            ``+- z sqrt(se_A^2 + se_B^2)``: the arms are independent samples, so their
            variances add).
        labels: what A and B are (file names).
        judge: the judge's rater id.
        threshold: an item passes at this score or above.
        confidence: the intervals' confidence.
        epochs: each arm's epoch id (:mod:`toolkit.epoch`), A then B, where known.
        notes: what the reader must know of the pair (compared across epochs).
    """

    frame: pl.DataFrame
    labels: tuple[str, str]
    judge: str
    threshold: float
    confidence: float
    epochs: tuple[str | None, str | None] = (None, None)
    notes: tuple[str, ...] = ()

    def _summary(self) -> Summary:
        def cell(v: float | None) -> str:
            return "-" if v is None else f"{v:.3f}"

        return Summary(
            "Difference",
            f"{self.labels[1]} - {self.labels[0]}, judge {self.judge!r}, PPI++ per arm",
            (("confidence:", f"{self.confidence:g}"), ("threshold:", f"{self.threshold:g}")),
            notes=tuple(self.frame["note"].drop_nulls().unique(maintain_order=True)),
            notes_title="warning",
            columns=("measure", "arm", "estimate", "rated"),
            rows=tuple(
                (
                    str(r["measure"]),
                    str(r["arm"]),
                    f"{cell(r['estimate'])} [{cell(r['low'])}, {cell(r['high'])}]",
                    "" if r["rated"] is None else str(r["rated"]),
                )
                for r in self.frame.iter_rows(named=True)
            ),
        )

    def to_dict(self) -> dict[str, Any]:
        """Every number as plain JSON-able data (the JSON output)."""
        return {
            "rubric": "estimate-difference",
            "rubric_version": ESTIMATE_VERSION,
            "labels": list(self.labels),
            "judge": self.judge,
            "threshold": self.threshold,
            "confidence": self.confidence,
            "epochs": list(self.epochs),
            "notes": list(self.notes),
            "rows": self.frame.to_dicts(),
        }


def estimate_difference(
    a: pl.DataFrame,
    b: pl.DataFrame,
    *,
    judge: str = "judge",
    threshold: float = 5.0,
    confidence: float = 0.95,
    labels: tuple[str, str] = ("A", "B"),
    epochs: tuple[str | None, str | None] = (None, None),
    notes: Sequence[str] = (),
) -> Difference:
    """The difference B - A of the people's mean score and pass rate, each arm estimated
    by PPI++ from its judge scores and its own people's ratings (the arms' items, raters
    and lams are their own), with an interval whose variance is the sum of the arms'.

    Args:
        a, b: each arm's calibration frame (item, rater, score; the judge is one rater).
        judge: the judge's rater id in both arms.
        threshold: an item passes at this score or above (the pass rate).
        confidence: the intervals' confidence.
        labels: what A and B are, for the output and the messages.
        epochs: each arm's epoch id, carried to the output (the caller fences them).
        notes: what the output says of the pair (e.g. compared across epochs).

    Raises:
        InputError: what :func:`estimate` refuses, naming the arm (an arm with fewer than
            two items both judged and rated has no estimate on the people's scale).
    """
    if not 0 < confidence < 1:
        raise InputError(None, "must be between 0 and 1", field="confidence", value=confidence)
    z = _z(confidence)
    arms, left_out = [], []
    for frame, label in zip((a, b), labels, strict=True):
        try:
            items, unjudged = _items(frame, judge)
        except InputError as exc:
            raise InputError(label, exc.reason, field=exc.field, value=exc.value) from None
        if unjudged:  # as calibrate --estimate says it
            left_out.append(f"{label}: {unjudged} rated item(s) the judge did not score: left out")
        long = frame.select(*BASE_COLUMNS).with_columns(pl.all().cast(pl.String))
        arms.append((label, items, digest_of(long)))
    if arms[0][2] == arms[1][2]:
        raise InputError(labels[1], f"the same ratings and judge scores as {labels[0]} (one "
                         "input digest): the arms must be two versions' own samples",
                         field="digest", value=arms[0][2])  # fmt: skip
    shared = _shared_items(arms[0][1], arms[1][1])
    rows: list[dict[str, Any]] = []
    for measure in MEASURES:
        got = []
        for label, items, digest in arms:
            rated = items.filter(pl.col("human").is_not_null())
            y, yhat = rated["human"].to_numpy(), rated["judge"].to_numpy()
            yhat_u = items.filter(pl.col("human").is_null())["judge"].to_numpy()
            every = items["judge"].to_numpy()
            if measure == "pass_rate":
                y, yhat, yhat_u, every = ((v >= threshold).astype(float)
                                          for v in (y, yhat, yhat_u, every))  # fmt: skip
            one = _numbers(y, yhat, yhat_u, every, confidence)  # as calibrate --estimate
            point, se = one["estimate"], (one["high"] - one["low"]) / (2 * z)
            got.append((point, se))
            rows.append({
                "measure": measure, "arm": label, "estimate": point,
                "low": point - z * se, "high": point + z * se, "se": se, "lam": one["lam"],
                "judge_mean": float(every.mean()), "people_mean": float(y.mean()),
                "rated": int(y.size), "unrated": int(yhat_u.size), "digest": digest,
                "note": _arm_note(one["note"], y.size, se),
            })  # fmt: skip
        (pa, sa), (pb, sb) = got
        se = math.sqrt(sa**2 + sb**2)
        rows.append({
            "measure": measure, "arm": f"{labels[1]} - {labels[0]}", "estimate": pb - pa,
            "low": pb - pa - z * se, "high": pb - pa + z * se, "se": se, "lam": None,
            "judge_mean": rows[-1]["judge_mean"] - rows[-2]["judge_mean"],
            "people_mean": rows[-1]["people_mean"] - rows[-2]["people_mean"],
            "rated": None, "unrated": None, "digest": None, "note": shared,
        })  # fmt: skip
    return Difference(
        frame=pl.DataFrame(rows, schema=DIFFERENCE_SCHEMA),
        labels=labels,
        judge=judge,
        threshold=threshold,
        confidence=confidence,
        epochs=epochs,
        notes=(*notes, *left_out),
    )
