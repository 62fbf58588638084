"""Per-game tallies of the evidence, column-wise: the counts every metric is scored from.

One row per game (load order): cost and cache, the message, reference, speaker and
phrase counts, engagement and who gave it, what a reviewer's labels changed, the sign-off.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from toolkit.ratings.agreement import transcript_agreement
from toolkit.rubrics.discussion.evidence import DiscussionEvidence
from toolkit.rubrics.discussion.labels import apply_labels, signoffs
from toolkit.rubrics.discussion.schemas import ACCURATE, INACCURATE, NEEDS_REVIEW

if TYPE_CHECKING:  # the judge's machinery is imported only when a judge is asked
    from toolkit.rubrics.discussion.judge import JudgedDiscussion
    from toolkit.rubrics.discussion.spec import DiscussionSpec

__all__ = ["COUNT_COLUMNS", "fill_counts", "game_tallies", "judge_stands_in"]

#: The tallies that count something: 0 for a game with nothing to count.
COUNT_COLUMNS: tuple[str, ...] = (
    "messages",
    "strategic",
    "coherence_n",
    "coherent",
    "role_n",
    "breaks",
    "role_unknown",
    "accurate",
    "inaccurate",
    "review",
    "speakers",
    "unique",
    "phrases",
    "repeats",
    "ratings",
    "strategic_overridden",
    "role_overridden",
    "memory_overridden",
    "diversity_overridden",
)


def game_tallies(
    games: pl.DataFrame,
    evidence: DiscussionEvidence,
    phrase_counts: pl.DataFrame,
    overridden: list[pl.DataFrame],
    labels: pl.DataFrame | None,
    spec: DiscussionSpec,
) -> pl.DataFrame:
    """One row per game of ``games`` with every tally; ``engagement_source`` is
    ``humans`` where people rated the game (null elsewhere). Counts may be null (see
    :func:`fill_counts`)."""
    base = games.select("game_id", "cost_usd", "cache_hit_rate")
    div_stats, div_over = _diversity_tallies(evidence.similarity, labels, spec)
    table = (
        base.join(_message_tallies(evidence.messages), on="game_id", how="left")
        .join(_reference_tallies(evidence.references), on="game_id", how="left")
        .join(div_stats, on="game_id", how="left")
        .join(phrase_counts, on="game_id", how="left")
        .join(_engagement_tallies(evidence.ratings), on="game_id", how="left")
    )
    for frame in [*overridden, div_over, signoffs(labels)]:
        table = table.join(frame, on="game_id", how="left")
    return table.with_columns(
        pl.when(pl.col("engagement").is_not_null())
        .then(pl.lit("humans"))
        .otherwise(pl.lit(None, dtype=pl.String()))
        .alias("engagement_source")
    )


def judge_stands_in(table: pl.DataFrame, judged: JudgedDiscussion) -> pl.DataFrame:
    """The judge's engagement reading for each game no person rated
    (``--engagement judge``), its ``engagement_source`` then ``judge``."""
    by_judge = judged.readings.filter(pl.col("key") == "engagement").select(
        "game_id", pl.col("value").alias("_judge_engagement")
    )
    return (
        table.join(by_judge, on="game_id", how="left")
        .with_columns(
            pl.when(pl.col("engagement").is_null() & pl.col("_judge_engagement").is_not_null())
            .then(pl.lit("judge"))
            .otherwise(pl.col("engagement_source"))
            .alias("engagement_source"),
            pl.coalesce("engagement", "_judge_engagement").alias("engagement"),
        )
        .drop("_judge_engagement")
    )


def fill_counts(table: pl.DataFrame) -> pl.DataFrame:
    """Every count of :data:`COUNT_COLUMNS` as Int64, 0 where there was nothing."""
    return table.with_columns(pl.col(c).fill_null(0).cast(pl.Int64) for c in COUNT_COLUMNS)


def _message_tallies(messages: pl.DataFrame) -> pl.DataFrame:
    """Metrics 2-4: messages, strategic ones, coherence and role counts per game."""
    return messages.group_by("game_id").agg(
        pl.len().alias("messages"),
        pl.col("strategic").sum().alias("strategic"),
        pl.col("coherent").is_not_null().sum().alias("coherence_n"),
        pl.col("coherent").sum().alias("coherent"),
        pl.col("role_break").is_not_null().sum().alias("role_n"),
        pl.col("role_break").sum().alias("breaks"),
        pl.col("role_break").is_null().sum().alias("role_unknown"),
    )


def _reference_tallies(references: pl.DataFrame) -> pl.DataFrame:
    """Metric 1: references per verdict per game."""
    return references.group_by("game_id").agg(
        (pl.col("verdict") == ACCURATE).sum().alias("accurate"),
        (pl.col("verdict") == INACCURATE).sum().alias("inaccurate"),
        (pl.col("verdict") == NEEDS_REVIEW).sum().alias("review"),
    )


def _diversity_tallies(
    similarity: pl.DataFrame, labels: pl.DataFrame | None, spec: DiscussionSpec
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Metric 5: speakers, unique ones (a reviewer's ``diversity`` label over the
    measure) and the highest similarity per game; and the labels' overridden counts."""
    thr = spec.similarity_threshold
    speakers = (
        similarity.group_by("game_id", "speaker")
        .agg(pl.col("similarity").max().alias("_max"))
        .with_columns((pl.col("_max") < thr).alias("_unique"))
        .rename({"speaker": "message_id"})  # apply_labels keys items by message_id
    )
    speakers, div_over = apply_labels(speakers, labels, "diversity", "_unique", invert=False)
    div_stats = speakers.group_by("game_id").agg(
        pl.len().alias("speakers"),
        pl.col("_unique").sum().alias("unique"),
        pl.col("_max").max().alias("max_similarity"),
    )
    return div_stats, div_over


def _engagement_tallies(ratings: pl.DataFrame) -> pl.DataFrame:
    """Metric 7: the mean of people's ratings and their number per game."""
    return transcript_agreement(ratings).select(
        pl.col("transcript_id").alias("game_id"),
        pl.col("mean").alias("engagement"),
        pl.col("n").alias("ratings"),
    )
