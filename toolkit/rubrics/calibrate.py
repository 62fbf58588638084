"""Can we trust the judge? An LLM judge held against human raters on shared items.

``calibrate`` is a rubric over one long frame of scores (:data:`CALIBRATION_SCORES_SCHEMA`:
item, rater, score, plus optional group columns such as agent or dimension). The judge is
one rater id (``judge`` by default); every other rater is a human. It never opens a file:
:mod:`toolkit.load.calibration` reads the scores and hands the frame here.

* **Alpha among humans** and **alpha with the judge added** as one more rater:
  Krippendorff's alpha (interval or ordinal, as the rubric's scale says) by
  :func:`toolkit.ratings.agreement.krippendorff_alpha`.
* **The human band**: alpha of the humans with each human left out in turn (its
  minimum and maximum), and alpha with each human *replaced* by the judge. The judge
  sits inside the band when no replacement falls below the band's minimum.
* **Spearman** of the judge against the human mean per item, and **quadratic weighted
  kappa** of the judge against each human, averaged (:func:`weighted_kappa`).
* **Bias**: mean over items of (judge - human mean), overall and per group value, with
  a seeded percentile bootstrap interval over items.
* **Confusion** at the pass threshold: judge pass/fail against human-mean pass/fail.
* **Disagreements**: items ranked by |judge - human mean|, widest first.
* **Gate** (:func:`gate_failures`): ``min-alpha X`` fails when the humans' own alpha,
  or alpha with a human replaced by the judge, is below X, or when a replacement falls
  below the humans' leave-one-out band; one reason line each.

The thresholds are data (:class:`CalibrateRubric`, version 1.0.0), stamped into every
result. docs/rubrics/calibration.md says what every number means.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import polars as pl
from pydantic import Field

from toolkit.epoch import input_digest, rows_bytes
from toolkit.errors import InputError
from toolkit.frames import CALIBRATION_SCORES_SCHEMA, CALIBRATION_TEXT_SCHEMA
from toolkit.io.edge import INVISIBLE_PATTERN, visible
from toolkit.ratings.agreement import krippendorff_alpha, last_per_pair, score_text
from toolkit.rubrics._spec import RubricSpec, load_spec
from toolkit.summary import Shows, Summary, plural

CALIBRATE_VERSION = "1.0.0"
#: The columns every scores frame has; any other column is a group (agent, dimension...)
#: unless it is one of the optional :data:`TEXT_COLUMNS`.
BASE_COLUMNS: tuple[str, ...] = tuple(CALIBRATION_SCORES_SCHEMA)
#: The optional text columns: ``notes`` (human rows), ``reasoning`` (the judge's row),
#: and per item ``evidence``, ``source``, ``anchor``, ``text_sha256``.
TEXT_COLUMNS: tuple[str, ...] = tuple(CALIBRATION_TEXT_SCHEMA)
#: The text columns that describe an item (the same on every row of it).
ITEM_TEXTS: tuple[str, ...] = ("evidence", "source", "anchor", "text_sha256")
#: The columns of :attr:`Calibration.disagreements` besides the groups.
DISAGREEMENT_COLUMNS: tuple[str, ...] = (
    "item", "judge", "human_mean", "diff", "scores", "reasoning", "notes", "ratings",
    *ITEM_TEXTS,
)  # fmt: skip
GATES: tuple[str, ...] = ("min-alpha",)


class CalibrateRubric(RubricSpec):
    """The calibrate rubric's data (version 1.0.0; a changed number needs a new version).

    Attributes:
        scale_min: the lowest score on the scale (0 for the persona propositions' 0-9).
        scale_max: the highest score on the scale.
        level: Krippendorff's level of measurement: ``interval`` or ``ordinal``.
        threshold: an item passes when its score is at least this (the confusion table).
        min_alpha: the alpha ``--gate min-alpha`` uses when given no number (0.667, the
            lowest alpha Krippendorff accepts for tentative conclusions).
        confidence: the bootstrap interval's confidence.
        resamples: bootstrap resamples over items (0: no interval).
    """

    rubric: str = "calibrate"
    version: str = CALIBRATE_VERSION
    scale_min: float = 0.0
    scale_max: float = 9.0
    level: Literal["interval", "ordinal"] = "interval"
    threshold: float = 5.0
    min_alpha: float = Field(default=0.667, ge=-1, le=1)
    confidence: float = Field(default=0.95, gt=0, lt=1)
    resamples: int = Field(default=2000, ge=0)


DEFAULT_CALIBRATE_RUBRIC = CalibrateRubric()


def load_calibrate_rubric(source: str | Path | Mapping[str, Any]) -> CalibrateRubric:
    """A calibrate rubric from YAML (a path) or a mapping, merged over version 1.0.0.

    Raises:
        RubricError: one line naming the file, the field and the value.
    """
    return load_spec(
        CalibrateRubric,
        source,
        DEFAULT_CALIBRATE_RUBRIC,
        {CALIBRATE_VERSION: DEFAULT_CALIBRATE_RUBRIC},
    )


# ---------------------------------------------------------------------------
# The statistics, one function each
# ---------------------------------------------------------------------------


def weighted_kappa(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Cohen's kappa with quadratic weights of two raters' scores of the same items.

    kappa = 1 - sum(w * observed) / sum(w * expected), the weight of a pair of scores
    (x, y) being (x - y)^2 and the expected table the product of both raters' marginal
    distributions. Categories are the scores seen; the weights' scale cancels out.

    Returns:
        Kappa, or None when it is undefined (no item, or both raters gave one single
        and the same score to every item, so nothing is expected to disagree).
    """
    x = np.asarray(a, float)
    y = np.asarray(b, float)
    if x.size == 0 or x.size != y.size:
        return None
    cats = np.unique(np.concatenate([x, y]))
    k = cats.size
    cells = np.searchsorted(cats, x) * k + np.searchsorted(cats, y)
    observed = np.bincount(cells, minlength=k * k).reshape(k, k) / x.size
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0))
    weights = (cats[:, None] - cats[None, :]) ** 2
    denominator = float((weights * expected).sum())
    if denominator == 0:
        return None
    return 1.0 - float((weights * observed).sum()) / denominator


def _alpha(long: pl.DataFrame, raters: Sequence[str], level: str) -> float | None:
    part = long.filter(pl.col("rater").is_in(list(raters)))
    return krippendorff_alpha(
        part.select(pl.col("item").alias("transcript_id"), "rater", "score"),
        level,  # type: ignore[arg-type]
    )


#: The most indices one chunk of bootstrap resamples draws (:func:`_bias_interval`).
_CHUNK_VALUES = 1 << 22


def _bias_interval(
    diffs: np.ndarray, rubric: CalibrateRubric, seed: int
) -> tuple[float | None, float | None]:
    """A seeded percentile bootstrap interval of the mean of ``diffs`` (items resampled)."""
    if diffs.size < 2 or rubric.resamples == 0:
        return None, None
    rng = np.random.default_rng(seed)
    # in chunks of resamples, about 2**22 drawn indices each (32 MiB, whatever the items):
    # the generator gives the same stream in chunks as in one draw, so the same interval
    means = np.empty(rubric.resamples)
    chunk = max(1, _CHUNK_VALUES // diffs.size)
    for start in range(0, rubric.resamples, chunk):
        rows = min(chunk, rubric.resamples - start)
        picks = rng.integers(0, diffs.size, size=(rows, diffs.size))
        means[start : start + rows] = diffs[picks].mean(axis=1)
    tail = (1 - rubric.confidence) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return float(low), float(high)


#: Below this many items scored by both the judge and a human, every output carries a
#: "too few items" line. Why 20: the bias interval is a percentile bootstrap of a mean,
#: which even on normal data covers about P(|t_{n-1}| < 1.96 sqrt((n-1)/n)) of the time:
#: 75 % at 3 items, 85 % at 5, 90 % at 10, 93 % at 20 for a stated 95 %; with 20 items it
#: is within 2 points of its level. Spearman's rho also takes few values on few items (at
#: 3 items only -1, -0.5, 0.5 and 1) and one item moves the alphas and the band.
MIN_ITEMS = 20


def too_few_items_line(items: int) -> str | None:
    """The "too few items" warning for ``items`` scored by both (None at or above
    :data:`MIN_ITEMS`)."""
    if items >= MIN_ITEMS:
        return None
    return (
        f"too few items: {items} scored by both, under the minimum of {MIN_ITEMS}; the "
        "intervals cover less often than they state, Spearman takes few values and one "
        "item moves the alphas and the band: read these numbers as anecdotes"
    )


@dataclass(frozen=True, repr=False)
class Calibration(Shows):
    """The judge held against the humans on shared items.

    Attributes:
        judge: the judge's rater id.
        humans: the human rater ids, in name order.
        items: items scored by the judge and at least one human (the per-item numbers).
        unpaired: items scored by the judge only or by humans only (left out of the
            per-item numbers, never silently).
        alpha_humans: Krippendorff's alpha among the humans.
        alpha_with_judge: alpha with the judge added as one more rater.
        band: per left-out human: ``left_out``, ``alpha_without`` (the other humans),
            ``alpha_replaced`` (the other humans and the judge), ``inside`` (replaced
            alpha at or above the band's minimum).
        band_low: the lowest leave-one-out alpha (None when undefined).
        band_high: the highest leave-one-out alpha.
        spearman: Spearman's rho of the judge against the human mean per item.
        kappa: quadratic weighted kappa of the judge against each human (``human``,
            ``items``, ``kappa``); ``kappa_mean`` is their mean.
        kappa_mean: the mean of ``kappa``.
        bias: ``group``, ``value`` (``all`` for the overall row), ``items``, ``bias``
            (mean judge - human mean), ``low``, ``high`` (the bootstrap interval).
        confusion: counts at the threshold: ``both_pass``, ``judge_only`` (judge passes,
            humans fail), ``humans_only``, ``both_fail``, and ``agreement`` (share).
        disagreements: per item, widest first: item, the groups, ``judge``,
            ``human_mean``, ``diff`` (judge - human mean), ``scores`` (every human's
            score as ``rater=score`` text), ``reasoning`` (the judge's, or null),
            ``notes`` (list of ``{rater, note}``, the humans who left one), ``ratings``
            (list of ``{rater, score}``, every human), ``evidence``, ``source``,
            ``anchor`` and ``text_sha256`` (null when the scores file has none).
        rubric: the rubric the numbers came from.
        seed: the bootstrap's seed.
        judge_epoch: the judge's measurement epoch (:mod:`toolkit.epoch`: a short hash of
            what decides its scores: provider, model, prompt template, cassette, or the
            outcome rubric that stands as the judge), None when the scores do not say
            (a scores file).
        input_digest: a short hash of the scores calibrated (every item, rater and score
            and the text columns, in item and rater order).
    """

    judge: str
    humans: tuple[str, ...]
    items: int
    unpaired: int
    alpha_humans: float | None
    alpha_with_judge: float | None
    band: pl.DataFrame
    band_low: float | None
    band_high: float | None
    spearman: float | None
    kappa: pl.DataFrame
    kappa_mean: float | None
    bias: pl.DataFrame
    confusion: dict[str, float]
    disagreements: pl.DataFrame
    rubric: CalibrateRubric
    seed: int
    judge_epoch: str | None = None
    input_digest: str | None = None

    @property
    def groups(self) -> list[str]:
        """The group columns of :attr:`disagreements` (agent, proposition...)."""
        return [c for c in self.disagreements.columns if c not in DISAGREEMENT_COLUMNS]

    @property
    def too_few_items(self) -> str | None:
        """The "too few items" warning (:func:`too_few_items_line`), or None."""
        return too_few_items_line(self.items)

    @property
    def inside_band(self) -> bool | None:
        """Whether every replacement of a human by the judge stays in the band (None:
        undefined, fewer than three humans or an undefined alpha)."""
        flags = self.band["inside"].drop_nulls().to_list()
        if not flags or self.band["inside"].null_count():
            return None
        return all(flags)

    def _summary(self) -> Summary:
        def show(value: float | None) -> str:
            return "undefined" if value is None else f"{value:.3f}"

        overall = self.bias.filter(pl.col("group") == "all")
        bias = overall["bias"][0] if overall.height else None
        return Summary(
            "Calibration",
            f"judge {self.judge!r} vs {plural(len(self.humans), 'human')}, "
            f"{plural(self.items, 'item')}",
            (
                ("alpha humans:", show(self.alpha_humans)),
                ("with judge:", show(self.alpha_with_judge)),
                ("in the band:", {True: "yes", False: "no", None: "undefined"}[self.inside_band]),
                ("bias:", "undefined" if bias is None else f"{bias:+.2f}"),
            ),
            notes=(self.too_few_items,) if self.too_few_items else (),
            notes_title="warning",
            columns=("item", "judge", "humans", "diff", "reasoning"),
            rows=tuple(
                (
                    str(r["item"]),
                    f"{r['judge']:g}",
                    f"{r['human_mean']:.2f}",
                    f"{r['diff']:+.2f}",
                    str(r["reasoning"] or ""),
                )
                for r in self.disagreements.head(5).iter_rows(named=True)
            ),
        )

    def to_dict(self, top: int | None = None) -> dict[str, Any]:
        """Every number as plain JSON-able data (the JSON output); with ``top``, only the
        first ``top`` disagreements (a list of 250,000 items is not built to be cut)."""
        return {
            "rubric": self.rubric.rubric,
            "rubric_version": self.rubric.version,
            "judge": self.judge,
            "judge_epoch": self.judge_epoch,
            "input_digest": self.input_digest,
            "humans": list(self.humans),
            "items": self.items,
            "unpaired_items": self.unpaired,
            "min_items": MIN_ITEMS,
            "too_few_items": self.too_few_items,
            "level": self.rubric.level,
            "threshold": self.rubric.threshold,
            "seed": self.seed,
            "alpha_humans": self.alpha_humans,
            "alpha_with_judge": self.alpha_with_judge,
            "band": {
                "low": self.band_low,
                "high": self.band_high,
                "inside": self.inside_band,
                "rows": self.band.to_dicts(),
            },
            "spearman": self.spearman,
            "kappa_mean": self.kappa_mean,
            "kappa": self.kappa.to_dicts(),
            "bias": self.bias.to_dicts(),
            "confusion": self.confusion,
            "disagreements": (
                self.disagreements if top is None else self.disagreements.head(top)
            ).to_dicts(),
        }


def groups_of(scores: pl.DataFrame) -> list[str]:
    """The group columns of a scores frame: every column but item, rater, score and the
    optional text columns (:data:`TEXT_COLUMNS`)."""
    return [c for c in scores.columns if c not in BASE_COLUMNS and c not in TEXT_COLUMNS]


def _texts(long: pl.DataFrame, judge: str) -> pl.DataFrame:
    """``long`` with every optional text column (null where absent), checked: a reasoning
    only on the judge's row, notes only on a human's, and one evidence, source, anchor
    and text hash per item.

    Raises:
        InputError: naming the column, the item and the rater (or the two values).
    """
    long = long.with_columns(
        pl.col(c).cast(pl.String) if c in long.columns else pl.lit(None, pl.String).alias(c)
        for c in TEXT_COLUMNS
    )
    for column, wrong, belongs in (
        ("reasoning", pl.col("rater") != judge, "on the judge's row; a human's words go in notes"),
        ("notes", pl.col("rater") == judge, "on a human's row; the judge's words go in reasoning"),
    ):
        bad = long.filter(wrong & pl.col(column).is_not_null())
        if bad.height:
            item, rater = bad.row(0, named=True)["item"], bad.row(0, named=True)["rater"]
            raise InputError(
                None,
                f"item {item!r}, rater {rater!r}: a {column} belongs {belongs}",
                field=column,
                value=bad[column][0],
            )
    seen = long.group_by("item").agg(pl.col(c).drop_nulls().unique().sort() for c in ITEM_TEXTS)
    for column in ITEM_TEXTS:
        bad = seen.filter(pl.col(column).list.len() > 1)
        if bad.height:
            raise InputError(
                None,
                f"item {bad['item'][0]!r} has two different {column} values; one item is "
                "judged and rated on one text",
                field=column,
                value=" | ".join(bad[column][0].to_list()),
            )
    return long


def calibrate(
    scores: pl.DataFrame,
    *,
    judge: str = "judge",
    rubric: CalibrateRubric = DEFAULT_CALIBRATE_RUBRIC,
    seed: int = 0,
    judge_epoch: str | None = None,
) -> Calibration:
    """Hold the judge against the humans (see the module docs for every number).

    Args:
        scores: item, rater, score (Float64), optional group columns and the optional
            text columns (:data:`TEXT_COLUMNS`); one row per item and rater (a later row
            of the same pair replaces an earlier one).
        judge: the judge's rater id.
        rubric: the scale, level, threshold and bootstrap settings.
        seed: seeds the bootstrap.
        judge_epoch: the judge's measurement epoch, stamped on the result (None: unknown).

    Raises:
        InputError: a missing column, a judge id that is no rater, fewer than two
            humans, no item scored by both the judge and a human, a reasoning on a
            human's row or notes on the judge's (refused, not dropped: the words would
            be shown as someone else's), or two different evidence, source, anchor or
            text hash values for one item.
    """
    groups = groups_of(scores)
    judge = visible(judge)
    long, humans = _long_scores(_visible_ids(scores, groups), judge)
    judged = long.filter(pl.col("rater") == judge).select(
        "item", pl.col("score").alias("judge"), "reasoning"
    )
    paired = _paired_items(long, judged, judge, groups)
    band, band_low, band_high = _band(long, humans, judge, rubric.level)
    kappa, kappa_mean = _kappa(long, humans, judged)
    diffs = paired.with_columns((pl.col("judge") - pl.col("human_mean")).alias("diff"))
    j = paired["judge"].to_numpy()
    m = paired["human_mean"].to_numpy()
    return Calibration(
        judge=judge,
        humans=humans,
        items=paired.height,
        unpaired=long["item"].n_unique() - paired.height,
        alpha_humans=_alpha(long, humans, rubric.level),
        alpha_with_judge=_alpha(long, (*humans, judge), rubric.level),
        band=band,
        band_low=band_low,
        band_high=band_high,
        spearman=_spearman(j, m),
        kappa=kappa,
        kappa_mean=kappa_mean,
        bias=_bias(diffs, groups, rubric, seed),
        confusion=_confusion(j, m, rubric.threshold),
        disagreements=(
            diffs.with_columns(pl.col("diff").abs().alias("_abs"))
            .sort(["_abs", "item"], descending=[True, False])
            .select("item", *groups, *DISAGREEMENT_COLUMNS[1:])
        ),
        rubric=rubric,
        seed=seed,
        judge_epoch=judge_epoch,
        input_digest=scores_digest(scores),
    )


#: Columns of a scores frame that name where a row was read (a path or a redacted URL),
#: not what it says.
PROVENANCE_COLUMNS = ("source", "source_file", "source_kind")


def scores_digest(scores: pl.DataFrame) -> str:
    """The input digest of a scores frame: its rows as JSON lines
    (:func:`toolkit.epoch.rows_bytes`), sorted by item and rater so the order they were
    read in does not matter; the columns that only say where a row was read from
    (:data:`PROVENANCE_COLUMNS`) are left out, so one game's scores read from 2L's
    database and from its file have one digest."""
    keys = [c for c in ("item", "rater") if c in scores.columns]
    scores = scores.drop([c for c in PROVENANCE_COLUMNS if c in scores.columns])
    ordered = scores.sort(keys, maintain_order=True) if keys else scores
    return input_digest([("scores", rows_bytes(ordered))])


def _visible_ids(scores: pl.DataFrame, groups: Sequence[str]) -> pl.DataFrame:
    """``scores`` with the control characters of item, rater and group values written as
    escapes (:func:`toolkit.io.edge.visible`): every view, the terminal, the page's
    charts and JUnit get ``h\\x1b[31m1``, never an ANSI escape (a chart renderer aborted
    the process on one). Only the values holding such a character are rewritten."""
    columns = [c for c in ("item", "rater", *groups) if c in scores.columns]
    fixes = []
    for c in columns:
        text = pl.col(c).cast(pl.String)
        odd = scores.select(text.filter(text.str.contains(INVISIBLE_PATTERN)).unique())[c]
        if odd.len():
            mapping = {v: visible(v) for v in odd.to_list()}
            fixes.append(text.replace(mapping).alias(c))
    return scores.with_columns(fixes) if fixes else scores


def _long_scores(scores: pl.DataFrame, judge: str) -> tuple[pl.DataFrame, tuple[str, ...]]:
    """The scores cast (item and rater as text, score as Float64), one row per item and
    rater (the last), with the text columns checked (:func:`_texts`); and the humans.

    Raises:
        InputError: a missing column, a judge id that is no rater, fewer than two
            humans, or a text column on the wrong row or item.
    """
    missing = [c for c in BASE_COLUMNS if c not in scores.columns]
    if missing:
        raise InputError(
            None,
            "the scores need the columns item, rater, score",
            field="columns",
            value=",".join(scores.columns),
        )
    cast = scores.with_columns(
        pl.col("item").cast(pl.String),
        pl.col("rater").cast(pl.String),
        pl.col("score").cast(pl.Float64),
    )
    long = last_per_pair(cast, ("item", "rater"))
    raters = sorted(long["rater"].unique().to_list())
    if judge not in raters:
        raise InputError(
            None,
            f"no such rater; the raters are {', '.join(raters)}",
            field="--judge-id",
            value=judge,
        )
    humans = tuple(r for r in raters if r != judge)
    if len(humans) < 2:
        raise InputError(
            None,
            "a calibration needs at least two human raters besides the judge",
            field="rater",
            value=",".join(humans),
        )
    return _texts(long, judge), humans


def _paired_items(
    long: pl.DataFrame, judged: pl.DataFrame, judge: str, groups: Sequence[str]
) -> pl.DataFrame:
    """Per item scored by the judge and a human: the human mean, every human's score as
    text, the groups, the notes and ratings, the judge's score and reasoning, and the
    item's texts; in item order.

    Raises:
        InputError: no item was scored by both the judge and a human.
    """
    human_rows = long.filter(pl.col("rater") != judge).sort("item", "rater")
    per_item = human_rows.group_by("item", maintain_order=True).agg(
        pl.col("score").mean().alias("human_mean"),
        pl.format("{}={}", "rater", score_text(pl.col("score")))
        .sort()
        .str.join(", ")
        .alias("scores"),
        *[pl.col(g).drop_nulls().first().alias(g) for g in groups],
        pl.struct("rater", pl.col("notes").alias("note"))
        .filter(pl.col("notes").is_not_null())
        .alias("notes"),
        pl.struct("rater", "score").alias("ratings"),
    )
    about = long.group_by("item").agg(pl.col(c).drop_nulls().first() for c in ITEM_TEXTS)
    paired = (
        per_item.join(judged, on="item", how="inner")
        .join(about, on="item", how="left")
        .sort("item")
    )
    if paired.height == 0:
        raise InputError(
            None,
            "no item was scored by both the judge and a human",
            field="--judge-id",
            value=judge,
        )
    return paired


def _band(
    long: pl.DataFrame, humans: Sequence[str], judge: str, level: str
) -> tuple[pl.DataFrame, float | None, float | None]:
    """The leave-one-out band: per human left out, alpha of the others and alpha of the
    others with the judge, and whether that stays at or above the band's minimum; and
    the band's minimum and maximum (None when undefined)."""
    band_rows: list[dict[str, Any]] = []
    for left in humans:
        others = [h for h in humans if h != left]
        without = _alpha(long, others, level) if len(others) >= 2 else None
        band_rows.append(
            {
                "left_out": left,
                "alpha_without": without,
                "alpha_replaced": _alpha(long, (*others, judge), level),
            }
        )
    lows = [r["alpha_without"] for r in band_rows if r["alpha_without"] is not None]
    band_low = min(lows) if lows else None
    band_high = max(lows) if lows else None
    for r in band_rows:
        r["inside"] = (
            None
            if band_low is None or r["alpha_replaced"] is None
            else bool(r["alpha_replaced"] >= band_low)
        )
    band = pl.DataFrame(
        band_rows,
        schema={
            "left_out": pl.String(),
            "alpha_without": pl.Float64(),
            "alpha_replaced": pl.Float64(),
            "inside": pl.Boolean(),
        },
    )
    return band, band_low, band_high


def _spearman(judge: np.ndarray, human_mean: np.ndarray) -> float | None:
    """Spearman's rho of the judge against the human mean per item (None with fewer
    than three items or when either side does not vary)."""
    if judge.size < 3 or np.unique(judge).size <= 1 or np.unique(human_mean).size <= 1:
        return None
    # Pearson's r of the average ranks, as scipy.stats.spearmanr defines it (equal to it in
    # tests/rubrics/test_calibrate_scale.py) without importing scipy.stats (about 1 s)
    ranks = pl.DataFrame({"j": judge, "m": human_mean}).select(
        pl.all().rank("average").cast(pl.Float64)
    )
    rho = float(np.corrcoef(ranks["j"].to_numpy(), ranks["m"].to_numpy())[0, 1])
    return None if math.isnan(rho) else rho


def _kappa(
    long: pl.DataFrame, humans: Sequence[str], judged: pl.DataFrame
) -> tuple[pl.DataFrame, float | None]:
    """Quadratic weighted kappa of the judge against each human, and their mean."""
    kappa_rows: list[dict[str, Any]] = []
    for human in humans:
        both = (
            long.filter(pl.col("rater") == human)
            .select("item", "score")
            .join(judged, on="item", how="inner")
        )
        kappa_rows.append(
            {
                "human": human,
                "items": both.height,
                "kappa": weighted_kappa(both["judge"].to_list(), both["score"].to_list()),
            }
        )
    kappa = pl.DataFrame(
        kappa_rows, schema={"human": pl.String(), "items": pl.Int64(), "kappa": pl.Float64()}
    )
    defined = kappa["kappa"].drop_nulls()
    return kappa, float(defined.mean()) if defined.len() else None  # type: ignore[arg-type]


def _bias(
    diffs: pl.DataFrame, groups: Sequence[str], rubric: CalibrateRubric, seed: int
) -> pl.DataFrame:
    """The bias (mean judge - human mean) with its bootstrap interval, overall and per
    value of each group (each its own stream of the seed)."""
    bias_rows = [_bias_row("all", "all", diffs["diff"].to_numpy(), rubric, seed)]
    salt = 1
    for g in groups:
        for value, part in sorted(
            diffs.filter(pl.col(g).is_not_null()).partition_by(g, as_dict=True).items(),
            key=lambda kv: str(kv[0][0]),
        ):
            bias_rows.append(
                _bias_row(g, str(value[0]), part["diff"].to_numpy(), rubric, seed + salt)
            )
            salt += 1
    return pl.DataFrame(
        bias_rows,
        schema={
            "group": pl.String(),
            "value": pl.String(),
            "items": pl.Int64(),
            "bias": pl.Float64(),
            "low": pl.Float64(),
            "high": pl.Float64(),
        },
    )


def _bias_row(
    group: str, value: str, d: np.ndarray, rubric: CalibrateRubric, seed: int
) -> dict[str, Any]:
    low, high = _bias_interval(d, rubric, seed)
    return {
        "group": group,
        "value": value,
        "items": int(d.size),
        "bias": float(d.mean()),
        "low": low,
        "high": high,
    }


def _confusion(judge: np.ndarray, human_mean: np.ndarray, threshold: float) -> dict[str, float]:
    """The confusion table at ``threshold``: judge pass/fail against human-mean pass/fail."""
    jp = judge >= threshold
    hp = human_mean >= threshold
    return {
        "threshold": threshold,
        "both_pass": int((jp & hp).sum()),
        "judge_only": int((jp & ~hp).sum()),
        "humans_only": int((~jp & hp).sum()),
        "both_fail": int((~jp & ~hp).sum()),
        "agreement": float((jp == hp).mean()),
    }


# ---------------------------------------------------------------------------
# The gate
# ---------------------------------------------------------------------------


def parse_gate(words: Sequence[str], rubric: CalibrateRubric = DEFAULT_CALIBRATE_RUBRIC) -> float:
    """``--gate min-alpha [X]`` as the minimum alpha X (the rubric's when not given).

    Raises:
        InputError: another gate word, or an X that is no number from -1 to 1.
    """
    if not words or words[0] not in GATES:
        raise InputError(
            None, f"must be one of {', '.join(GATES)}", field="--gate", value=" ".join(words)
        )
    if len(words) == 1:
        return rubric.min_alpha
    try:
        value = float(words[1])
    except ValueError:
        value = math.nan
    if len(words) > 2 or not -1 <= value <= 1:
        raise InputError(
            None,
            "min-alpha takes one number from -1 to 1 (e.g. 0.667)",
            field="--gate",
            value=" ".join(words),
        )
    return value


@dataclass(frozen=True)
class GateCheck:
    """One finding of ``--gate min-alpha``: the humans' own alpha, or alpha with the
    judge in one human's place.

    Attributes:
        key: ``alpha_humans`` or ``judge_for_<human>``.
        name: ``alpha among the humans`` or ``judge in place of <human>``.
        value: the alpha (None when undefined).
        passed: whether it meets the gate.
        detail: why it fails, or the evidence that it passes.
    """

    key: str
    name: str
    value: float | None
    passed: bool
    detail: str

    @property
    def reason(self) -> str:
        """The detail as one line that names the finding (the gate's reason line)."""
        return self.detail if self.key == "alpha_humans" else f"{self.name}: {self.detail}"


def gate_checks(result: Calibration, min_alpha: float) -> list[GateCheck]:
    """Every finding ``--gate min-alpha`` decides on, passing or not (see
    :func:`gate_failures`)."""

    def show(value: float | None) -> str:
        return "undefined" if value is None else f"{value:.3f}"

    band = f"[{show(result.band_low)}, {show(result.band_high)}]"
    a = result.alpha_humans
    humans_ok = a is not None and a >= min_alpha
    out = [
        GateCheck(
            "alpha_humans",
            "alpha among the humans",
            a,
            humans_ok,
            f"the humans agree at alpha {show(a)} >= {min_alpha:g}: a baseline to hold the "
            "judge against"
            if humans_ok
            else f"the humans agree at alpha {show(a)} < {min_alpha:g}: "
            "no baseline to hold the judge against",
        )
    ]
    for row in result.band.iter_rows(named=True):
        replaced = row["alpha_replaced"]
        where = f"judge in place of {row['left_out']}"
        if replaced is None or replaced < min_alpha:
            passed, detail = False, f"alpha {show(replaced)} < {min_alpha:g}"
        elif row["inside"] is False:
            passed = False
            detail = f"alpha {show(replaced)} below the humans' leave-one-out band {band}"
        else:
            passed = True
            inside = "" if row["inside"] is None else f", inside the band {band}"
            detail = f"alpha {show(replaced)} >= {min_alpha:g}{inside}"
        out.append(GateCheck(f"judge_for_{row['left_out']}", where, replaced, passed, detail))
    return out


def gate_failures(result: Calibration, min_alpha: float) -> list[str]:
    """Why the judge fails ``min-alpha``, one line each (empty: it passes).

    Fails when the humans' own alpha is below ``min_alpha`` (no baseline to trust),
    when alpha with a human replaced by the judge is below ``min_alpha``, or when it
    falls below the humans' leave-one-out band; an undefined alpha fails too.
    """
    return [c.reason for c in gate_checks(result, min_alpha) if not c.passed]
