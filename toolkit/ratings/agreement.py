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

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import polars as pl

from toolkit.frames import PAIRWISE_AGREEMENT_SCHEMA, TRANSCRIPT_AGREEMENT_SCHEMA
from toolkit.summary import Shows, Summary, plural

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "DISAGREEMENT_SPREAD",
    "Agreement",
    "disagreements",
    "krippendorff_alpha",
    "pairwise_agreement",
    "rating_agreement",
    "score_text",
    "transcript_agreement",
]

#: A transcript whose ratings span this many points or more (max - min) is listed.
DISAGREEMENT_SPREAD = 2
SCALE: tuple[int, ...] = (1, 2, 3, 4, 5)

Level = Literal["ordinal", "interval"]


def _long(ratings: pl.DataFrame) -> pl.DataFrame:
    """(transcript_id, rater, score Float64) from either frame shape, one row per pair."""
    tid = "transcript_id" if "transcript_id" in ratings.columns else "game_id"
    return (
        ratings.select(
            pl.col(tid).cast(pl.String).alias("transcript_id"),
            pl.col("rater").cast(pl.String),
            pl.col("score").cast(pl.Float64),
        )
        .unique(["transcript_id", "rater"], keep="last", maintain_order=True)
        .sort("transcript_id", "rater")
    )


def transcript_agreement(ratings: pl.DataFrame) -> pl.DataFrame:
    """Per transcript: how many rated it, their mean, and their spread.

    Returns:
        :data:`~toolkit.frames.TRANSCRIPT_AGREEMENT_SCHEMA` (transcript_id, n, mean, min,
        max, spread = max - min, std = sample standard deviation, null for one rater),
        sorted by transcript id.
    """
    out = (
        _long(ratings)
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
    return out.select(list(TRANSCRIPT_AGREEMENT_SCHEMA)).cast(TRANSCRIPT_AGREEMENT_SCHEMA)  # type: ignore[arg-type]


def _matrix(long: pl.DataFrame) -> tuple[list[str], list[str], np.ndarray]:
    import numpy as np  # numpy (~70 ms), on first use: `toolkit discussion` stays light

    raters = sorted(set(long["rater"].to_list()))
    units = sorted(set(long["transcript_id"].to_list()))
    data = np.full((len(raters), len(units)), np.nan)
    r_idx = {r: i for i, r in enumerate(raters)}
    u_idx = {u: i for i, u in enumerate(units)}
    for tid, rater, score in long.iter_rows():
        data[r_idx[rater], u_idx[tid]] = score
    return raters, units, data


def krippendorff_alpha(ratings: pl.DataFrame, level: Level = "ordinal") -> float | None:
    """Krippendorff's alpha of the session, by the ``krippendorff`` package.

    1 is perfect agreement, 0 agreement no better than chance, below 0 systematic
    disagreement. Only transcripts rated by at least two raters count (pairable values).

    Args:
        ratings: one row per rater and transcript (see the module docs).
        level: ``ordinal`` (1 < 2 < ... < 5, distances by rank) or ``interval``
            (distances by the squared difference of the scores).

    Returns:
        Alpha, or None when it is undefined: fewer than two pairable ratings, or no
        variation in the pairable ratings at all.
    """
    long = _long(ratings)
    counts = long.group_by("transcript_id").len()
    pairable = counts.filter(pl.col("len") >= 2)["transcript_id"]
    long = long.filter(pl.col("transcript_id").is_in(pairable.to_list()))
    if long.height < 2 or long["score"].n_unique() < 2:
        return None
    import krippendorff  # it imports numpy (~70 ms): `toolkit discussion` stays light

    _, _, data = _matrix(long)
    return float(
        krippendorff.alpha(
            reliability_data=data,
            level_of_measurement=level,
            value_domain=sorted(set(SCALE) | set(long["score"].to_list()))
            if level == "ordinal"
            else None,
        )
    )


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
