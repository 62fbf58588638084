"""How far human raters agree: per transcript, per pair of raters, and across a session.

* :func:`transcript_agreement`: per transcript, n raters, mean, min, max, spread, std;
* :func:`krippendorff_alpha`: Krippendorff's alpha (ordinal or interval) over the whole
  session, computed by the ``krippendorff`` package; missing ratings are allowed;
* :func:`pairwise_agreement`: per pair of raters, exact and within-one agreement and the
  mean absolute difference over the transcripts both rated;
* :func:`disagreements`: transcripts whose raters are far apart, to discuss;
* :func:`rating_agreement`: all of the above in one :class:`Agreement`.

Every function takes the ratings that count, one row per rater and transcript: the
store's :meth:`~toolkit.ratings.store.RatingStore.ratings` frame (game_id, rater, score)
or its :meth:`~toolkit.ratings.store.RatingStore.latest` frame (transcript_id, rater,
score, ...). The discussion rubric's engagement metric is the ``mean`` of
:func:`transcript_agreement` (and its rating count the ``n``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import polars as pl

from toolkit.frames import ENGINE, PAIRWISE_AGREEMENT_SCHEMA, TRANSCRIPT_AGREEMENT_SCHEMA
from toolkit.summary import Shows, Summary, plural

__all__ = [
    "DISAGREEMENT_SPREAD",
    "Agreement",
    "disagreements",
    "krippendorff_alpha",
    "last_per_pair",
    "pairwise_agreement",
    "rating_agreement",
    "score_text",
    "transcript_agreement",
]

#: A transcript whose ratings span this many points or more (max - min) is listed.
DISAGREEMENT_SPREAD = 2
SCALE: tuple[int, ...] = (1, 2, 3, 4, 5)

Level = Literal["ordinal", "interval"]


def last_per_pair(frame: pl.DataFrame, keys: Sequence[str]) -> pl.DataFrame:
    """``frame`` with one row per value of ``keys`` (the last), in order; the frame itself
    when no value repeats, found from a 64-bit hash of the keys (8 bytes a row: the
    order-keeping ``unique`` costs some 200 bytes a row at 10^6 rows). Distinct hashes
    prove distinct keys; a collision only takes the exact path."""
    if frame.select(pl.struct(*keys).hash().n_unique()).item() == frame.height:
        return frame
    return frame.unique(list(keys), keep="last", maintain_order=True)


def _pairs(ratings: pl.DataFrame) -> pl.DataFrame:
    """(transcript_id, rater, score Float64) from either frame shape, one row per pair
    (the last), in the frame's order."""
    tid = "transcript_id" if "transcript_id" in ratings.columns else "game_id"
    long = ratings.select(
        pl.col(tid).cast(pl.String).alias("transcript_id"),
        pl.col("rater").cast(pl.String),
        pl.col("score").cast(pl.Float64),
    )
    return last_per_pair(long, ("transcript_id", "rater"))


def _long(ratings: pl.DataFrame) -> pl.DataFrame:
    """:func:`_pairs` sorted by transcript and rater."""
    return _pairs(ratings).sort("transcript_id", "rater")


def transcript_agreement(ratings: pl.DataFrame) -> pl.DataFrame:
    """Per transcript: how many rated it, their mean, and their spread.

    Returns:
        :data:`~toolkit.frames.TRANSCRIPT_AGREEMENT_SCHEMA` (transcript_id, n, mean, min,
        max, spread = max - min, std = sample standard deviation, null for one rater),
        sorted by transcript id.
    """
    out = (
        _pairs(ratings)
        .lazy()  # one query from here, not four (issue 38)
        .sort("transcript_id", "rater")
        .group_by("transcript_id")
        .agg(
            pl.len().cast(pl.Int64).alias("n"),
            pl.col("score").mean().alias("mean"),
            pl.col("score").min().alias("min"),
            pl.col("score").max().alias("max"),
            (pl.col("score").max() - pl.col("score").min()).alias("spread"),
            pl.col("score").std(ddof=1).alias("std"),
        )
        .sort("transcript_id")
    )
    # Polars' in-memory engine, the one its eager steps use, at a fifth of the fixed cost
    # of the streaming engine (Polars 2's default) on a few transcripts (issue 38)
    return (
        out.select(list(TRANSCRIPT_AGREEMENT_SCHEMA))
        .cast(TRANSCRIPT_AGREEMENT_SCHEMA)  # type: ignore[arg-type]
        .collect(engine=ENGINE)
    )


def krippendorff_alpha(ratings: pl.DataFrame, level: Level = "ordinal") -> float | None:
    """Krippendorff's alpha of the session (the ``krippendorff`` package's definition).

    1 is perfect agreement, 0 agreement no better than chance, below 0 systematic
    disagreement. Only transcripts rated by at least two raters count (pairable values).

    Computed in closed form, in one pass over the ratings (no units x values x values
    array: the package's coincidence step holds one, 600 MB for 250,000 items), and equal
    to ``krippendorff.alpha`` (``tests/ratings/test_alpha_closed_form.py``): with the
    interval metric (c - k)^2, the observed disagreement is the sum over units of
    2 m_u ss_u / (m_u - 1) (ss_u: the sum of squares about the unit's mean) and the
    expected one 2 n SS / (n - 1) (SS: about the mean of all n pairable values), so
    alpha = 1 - (n - 1) sum(m_u ss_u / (m_u - 1)) / (n SS). The ordinal metric is the
    interval metric on each value's mid-rank in the pairable values (the count of values
    below it plus half the count of its own), so ordinal alpha is interval alpha of those.

    Args:
        ratings: one row per rater and transcript (see the module docs).
        level: ``ordinal`` (1 < 2 < ... < 5, distances by rank) or ``interval``
            (distances by the squared difference of the scores).

    Returns:
        Alpha, or None when it is undefined: fewer than two pairable ratings, or no
        variation in the pairable ratings at all.
    """
    long = _pairs(ratings).filter(pl.len().over("transcript_id") >= 2)
    if long.height < 2 or long["score"].n_unique() < 2:
        return None
    x = pl.col("score")
    if level == "ordinal":  # the mid-rank of each value among the pairable values
        x = x.rank("average")
    units = (
        long.select("transcript_id", x.alias("x"))
        .with_columns((pl.col("x") - pl.col("x").mean()).alias("x"))
        .group_by("transcript_id")
        .agg(pl.len().alias("m"), ((pl.col("x") - pl.col("x").mean()) ** 2).sum().alias("ss"))
    )
    n = long.height
    total = long.select(((x - x.mean()) ** 2).sum()).item()  # SS of all pairable values
    if not total:
        return None
    within = units.select((pl.col("m") * pl.col("ss") / (pl.col("m") - 1)).sum()).item()
    return float(1.0 - (n - 1) * within / (n * total))


def pairwise_agreement(ratings: pl.DataFrame) -> pl.DataFrame:
    """Agreement of every pair of raters over the transcripts both rated.

    Returns:
        :data:`~toolkit.frames.PAIRWISE_AGREEMENT_SCHEMA` (rater_a, rater_b, shared,
        exact, within_one, mean_abs_diff), pairs in name order; pairs sharing no
        transcript are left out.
    """
    long = _long(ratings)
    a = long.rename({"rater": "rater_a", "score": "score_a"})
    b = long.rename({"rater": "rater_b", "score": "score_b"})
    diff = (pl.col("score_a") - pl.col("score_b")).abs()
    out = (
        a.join(b, on="transcript_id")
        .filter(pl.col("rater_a") < pl.col("rater_b"))
        .group_by("rater_a", "rater_b")
        .agg(
            pl.len().cast(pl.Int64).alias("shared"),
            (diff == 0).mean().alias("exact"),
            (diff <= 1).mean().alias("within_one"),
            diff.mean().alias("mean_abs_diff"),
        )
        .sort("rater_a", "rater_b")
    )
    return out.select(list(PAIRWISE_AGREEMENT_SCHEMA)).cast(PAIRWISE_AGREEMENT_SCHEMA)  # type: ignore[arg-type]


def score_text(score: pl.Expr) -> pl.Expr:
    """A score expression as text: ``4`` for a whole score, ``3.5`` otherwise (the
    ``rater=score`` lists of disagreements, here and in :mod:`toolkit.rubrics.calibrate`)."""
    return (
        pl.when(score == score.round(0))
        .then(score.cast(pl.Int64).cast(pl.String))
        .otherwise(score.cast(pl.String))
    )


def disagreements(ratings: pl.DataFrame, min_spread: int = DISAGREEMENT_SPREAD) -> pl.DataFrame:
    """Transcripts whose raters are at least ``min_spread`` points apart, widest first.

    Returns:
        :func:`transcript_agreement` rows plus ``scores`` (each rater's score, as
        ``rater=score`` text), for the raters to talk over.
    """
    long = _long(ratings)
    who = long.group_by("transcript_id").agg(
        pl.format("{}={}", "rater", score_text(pl.col("score")))
        .sort()
        .str.join(", ")
        .alias("scores")
    )
    return (
        transcript_agreement(ratings)
        .filter(pl.col("spread") >= min_spread)
        .join(who, on="transcript_id", how="left")
        .sort(["spread", "transcript_id"], descending=[True, False])
    )


@dataclass(frozen=True, repr=False)
class Agreement(Shows):
    """Rater agreement of one session.

    Attributes:
        per_transcript: :func:`transcript_agreement`.
        alpha_ordinal: Krippendorff's alpha, ordinal (None when undefined).
        alpha_interval: Krippendorff's alpha, interval (None when undefined).
        pairwise: :func:`pairwise_agreement`.
        disagreements: :func:`disagreements`.
        raters: how many raters rated anything.
        min_spread: the spread from which a transcript is listed as a disagreement.
    """

    per_transcript: pl.DataFrame
    alpha_ordinal: float | None
    alpha_interval: float | None
    pairwise: pl.DataFrame
    disagreements: pl.DataFrame
    raters: int
    min_spread: int = DISAGREEMENT_SPREAD

    def _summary(self) -> Summary:
        def show(value: float | None) -> str:
            return "undefined" if value is None else f"{value:.3f}"

        return Summary(
            "Agreement",
            f"{plural(self.raters, 'rater')}, {plural(self.per_transcript.height, 'transcript')}",
            (
                ("alpha ordinal:", show(self.alpha_ordinal)),
                ("alpha interval:", show(self.alpha_interval)),
                ("to discuss", self.disagreements.height),
            ),
        )

    def summary(self) -> str:
        """A few lines of text: raters, transcripts, both alphas, what to discuss."""

        def show(value: float | None) -> str:
            return "undefined" if value is None else f"{value:.3f}"

        rated = self.per_transcript.height
        multi = self.per_transcript.filter(pl.col("n") >= 2).height
        lines = [
            f"{self.raters} rater(s), {rated} transcript(s) rated, {multi} by 2 or more",
            f"Krippendorff's alpha: ordinal {show(self.alpha_ordinal)}, "
            f"interval {show(self.alpha_interval)}",
        ]
        if self.disagreements.height:
            listed = ", ".join(
                f"{r['transcript_id']} ({r['scores']})"
                for r in self.disagreements.iter_rows(named=True)
            )
            lines.append(f"to discuss (spread >= {self.min_spread}): {listed}")
        else:
            lines.append(f"no transcript with a spread of {self.min_spread} or more")
        return "\n".join(lines)


def rating_agreement(ratings: pl.DataFrame, min_spread: int = DISAGREEMENT_SPREAD) -> Agreement:
    """Every agreement statistic of a session (see :class:`Agreement`)."""
    long = _long(ratings)
    return Agreement(
        per_transcript=transcript_agreement(long),
        alpha_ordinal=krippendorff_alpha(long, "ordinal"),
        alpha_interval=krippendorff_alpha(long, "interval"),
        pairwise=pairwise_agreement(long),
        disagreements=disagreements(long, min_spread),
        raters=long["rater"].n_unique(),
        min_spread=min_spread,
    )
