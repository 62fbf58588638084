"""Per-game tallies of the evidence, column-wise: the counts every metric is scored from.

One row per game (load order): cost and cache, the message, round, reference, speaker and
phrase counts, engagement and who gave it, what a reviewer's labels changed, the sign-off.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from toolkit.frames import ENGINE, TRANSCRIPT_AGREEMENT_SCHEMA
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
    "rounds",
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
    overridden: list[pl.DataFrame | pl.LazyFrame],
    labels: pl.DataFrame | None,
    spec: DiscussionSpec,
    judged: JudgedDiscussion | None = None,
) -> pl.DataFrame:
    """One row per game of ``games`` with every tally, the counts filled
    (:func:`fill_counts`); ``engagement_source`` is ``humans`` where people rated the
    game (null elsewhere). With ``judged`` (``--engagement judge``), the judge stands in
    for the games no person rated (:func:`judge_stands_in`), in the same query.

    One lazy query for every tally and join, not a query a step (issue 38: some twenty
    eager steps of 0.1-0.4 ms each before); a frame with no rows is not joined, its
    columns are added as nulls, which is what a left join with it gives."""
    base = games.lazy().select("game_id", "cost_usd", "cache_hit_rate")
    div_stats, div_over = _diversity_tallies(evidence.similarity, labels, spec)
    table = base
    for frame in (
        _message_tallies(evidence.messages.lazy()),
        _reference_tallies(evidence.references.lazy()),
        div_stats,
        phrase_counts,
        _engagement_tallies(evidence.ratings),
        *overridden,
        div_over,
        signoffs(labels),
    ):
        table = _left_join(table, frame)
    table = table.with_columns(
        pl.when(pl.col("engagement").is_not_null())
        .then(pl.lit("humans"))
        .otherwise(pl.lit(None, dtype=pl.String()))
        .alias("engagement_source")
    )
    if judged is not None:
        table = _judge_stands_in(table, judged)
    return _filled(table).collect(engine=ENGINE)


def _left_join(table: pl.LazyFrame, frame: pl.DataFrame | pl.LazyFrame) -> pl.LazyFrame:
    """``table`` left-joined with ``frame`` on ``game_id``; an empty eager ``frame``'s
    columns added as typed nulls instead (the same columns, no join)."""
    if isinstance(frame, pl.DataFrame) and frame.height == 0:
        return table.with_columns(
            pl.lit(None, dtype=dtype).alias(name)
            for name, dtype in frame.schema.items()
            if name != "game_id"
        )
    return table.join(frame.lazy(), on="game_id", how="left")


def judge_stands_in(table: pl.DataFrame, judged: JudgedDiscussion) -> pl.DataFrame:
    """The judge's engagement reading for each game no person rated
    (``--engagement judge``), its ``engagement_source`` then ``judge``."""
    return _judge_stands_in(table.lazy(), judged).collect(engine=ENGINE)


def _judge_stands_in(table: pl.LazyFrame, judged: JudgedDiscussion) -> pl.LazyFrame:
    """:func:`judge_stands_in`, lazily."""
    by_judge = (
        judged.readings.lazy()
        .filter(pl.col("key") == "engagement")
        .select("game_id", pl.col("value").alias("_judge_engagement"))
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
    return _filled(table.lazy()).collect(engine=ENGINE)


def _filled(table: pl.LazyFrame) -> pl.LazyFrame:
    """:func:`fill_counts`, lazily: one expression over every count column (Polars expands
    it to one a column; 21 built in Python cost ~0.3 ms of the run, issue 38)."""
    return table.with_columns(pl.col(*COUNT_COLUMNS).fill_null(0).cast(pl.Int64))


def _message_tallies(messages: pl.LazyFrame) -> pl.LazyFrame:
    """Metrics 2-4: messages, strategic ones, coherence and role counts per game; and
    its rounds (the scorecard's title), counted in the same query."""
    return messages.group_by("game_id").agg(
        pl.len().alias("messages"),
        pl.col("round").n_unique().alias("rounds"),
        pl.col("strategic").sum().alias("strategic"),
        pl.col("coherent").is_not_null().sum().alias("coherence_n"),
        pl.col("coherent").sum().alias("coherent"),
        pl.col("role_break").is_not_null().sum().alias("role_n"),
        pl.col("role_break").sum().alias("breaks"),
        pl.col("role_break").is_null().sum().alias("role_unknown"),
    )


def _reference_tallies(references: pl.LazyFrame) -> pl.LazyFrame:
    """Metric 1: references per verdict per game."""
    return references.group_by("game_id").agg(
        (pl.col("verdict") == ACCURATE).sum().alias("accurate"),
        (pl.col("verdict") == INACCURATE).sum().alias("inaccurate"),
        (pl.col("verdict") == NEEDS_REVIEW).sum().alias("review"),
    )


def _diversity_tallies(
    similarity: pl.DataFrame, labels: pl.DataFrame | None, spec: DiscussionSpec
) -> tuple[pl.LazyFrame, pl.DataFrame]:
    """Metric 5: speakers, unique ones (a reviewer's ``diversity`` label over the
    measure) and the highest similarity per game; and the labels' overridden counts.
    Lazy, but for the reviewer's labels (:func:`apply_labels` reads eager frames)."""
    thr = spec.similarity_threshold
    speakers: pl.LazyFrame = (
        similarity.lazy()
        .group_by("game_id", "speaker")
        .agg(pl.col("similarity").max().alias("_max"))
        .with_columns((pl.col("_max") < thr).alias("_unique"))
        .rename({"speaker": "message_id"})  # apply_labels keys items by message_id
    )
    if _has_rows(labels):
        labelled, div_over = apply_labels(
            speakers.collect(engine=ENGINE), labels, "diversity", "_unique", invert=False
        )
        speakers = labelled.lazy()
    else:  # nothing to lay over: only apply_labels' (empty) overridden counts are needed
        _, div_over = apply_labels(pl.DataFrame(), labels, "diversity", "_unique", invert=False)
    div_stats = speakers.group_by("game_id").agg(
        pl.len().alias("speakers"),
        pl.col("_unique").sum().alias("unique"),
        pl.col("_max").max().alias("max_similarity"),
    )
    return div_stats, div_over


def _engagement_tallies(ratings: pl.DataFrame) -> pl.DataFrame | pl.LazyFrame:
    """Metric 7: the mean of people's ratings and their number per game; without
    ratings, an empty eager frame of the same columns and types (no query: the
    ratings are :data:`~toolkit.frames.DISCUSSION_RATINGS_SCHEMA` already, and
    :func:`_left_join` adds an empty frame as nulls)."""
    names = {"transcript_id": "game_id", "mean": "engagement", "n": "ratings"}
    if ratings.height == 0:
        return pl.DataFrame(
            schema={new: TRANSCRIPT_AGREEMENT_SCHEMA[old] for old, new in names.items()}
        )
    # the rater-agreement module (its Agreement class and helpers, ~1.5 ms of CPU) only
    # when there are ratings to read: a plain `toolkit discussion` has none (issue 38)
    from toolkit.ratings.agreement import transcript_agreement

    return (
        transcript_agreement(ratings)
        .lazy()
        .select(pl.col(old).alias(new) for old, new in names.items())
    )


def _has_rows(labels: pl.DataFrame | None) -> bool:
    """Whether there are reviewer labels to lay over the readings."""
    return labels is not None and labels.height > 0
