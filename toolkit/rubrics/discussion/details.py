"""The detail text of each metric row: what was counted, in the reader's words.

One expression per metric over the per-game tallies (:mod:`.tallies`), column-wise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import polars as pl

if TYPE_CHECKING:  # the rubric's pydantic models: only named in annotations
    from toolkit.rubrics.discussion.spec import DiscussionSpec


__all__ = ["CHECKED", "metric_detail"]

c = pl.col

#: References whose claim could be checked (accurate or not); the rest need review.
CHECKED = pl.col("accurate") + pl.col("inaccurate")


def _s(e: pl.Expr) -> pl.Expr:
    return e.cast(pl.String())


def metric_detail(key: str, spec: DiscussionSpec) -> pl.Expr:
    """The detail text of metric ``key`` for every game."""
    return _DETAILS[key](spec)


def _memory_accuracy(spec: DiscussionSpec) -> pl.Expr:
    review = pl.when(c("review") > 0).then(
        pl.format("; {} need review (not scored)", _s(c("review")))
    )
    return (
        pl.when(CHECKED > 0)
        .then(
            pl.format(
                "{}/{} references accurate{}",
                _s(c("accurate")),
                _s(CHECKED),
                review.otherwise(pl.lit("")),
            )
        )
        .otherwise(
            pl.format(
                "1.0 by 2L's rule: no checkable references to past events{}",
                review.otherwise(pl.lit("")),
            )
        )
    )


def _strategic_depth(spec: DiscussionSpec) -> pl.Expr:
    return (
        pl.when(c("messages") > 0)
        .then(pl.format("{}/{} messages strategic", _s(c("strategic")), _s(c("messages"))))
        .otherwise(pl.lit("N/A: no messages"))
    )


def _coherence(spec: DiscussionSpec) -> pl.Expr:
    return (
        pl.when(c("coherence_n") > 0)
        .then(
            pl.format(
                "{}/{} messages {} the previous {}",
                _s(c("coherent")),
                _s(c("coherence_n")),
                pl.lit(
                    "link to one of" if spec.coherence_counts_first else "after the first link to"
                ),
                pl.lit(str(spec.coherence_window)),
            )
        )
        .otherwise(pl.lit("N/A: fewer than 2 messages"))
    )


def _role_consistency(spec: DiscussionSpec) -> pl.Expr:
    unknown = pl.when(c("role_unknown") > 0).then(
        pl.format("; {} of unknown role not counted", _s(c("role_unknown")))
    )
    return (
        pl.when(c("role_n") > 0)
        .then(
            pl.format(
                "{} role breaks in {} messages{}",
                _s(c("breaks")),
                _s(c("role_n")),
                unknown.otherwise(pl.lit("")),
            )
        )
        .otherwise(pl.lit("N/A: no messages by players of known role"))
    )


def _personality_diversity(spec: DiscussionSpec) -> pl.Expr:
    return (
        pl.when(c("speakers") >= 2)
        .then(
            pl.format(
                "{}/{} speakers unique (max similarity {}){}",
                _s(c("unique")),
                _s(c("speakers")),
                _s(c("max_similarity").round(3)),
                pl.when(c("diversity_overridden") > 0)
                .then(pl.format("; {} decided by a reviewer", _s(c("diversity_overridden"))))
                .otherwise(pl.lit("")),
            )
        )
        .otherwise(pl.lit("N/A: fewer than 2 speakers"))
    )


def _anti_repetition(spec: DiscussionSpec) -> pl.Expr:
    return (
        pl.when(c("phrases") > 0)
        .then(
            pl.format(
                "{} repeats in {} {}-word phrases",
                _s(c("repeats")),
                _s(c("phrases")),
                pl.lit(str(spec.phrase_words)),
            )
        )
        .otherwise(pl.lit("N/A: no phrases to compare"))
    )


def _engagement(spec: DiscussionSpec) -> pl.Expr:
    return (
        pl.when(c("ratings") > 0)
        .then(pl.format("mean {} of {} rating(s)", _s(c("engagement").round(2)), _s(c("ratings"))))
        .when(c("engagement_source") == "judge")
        .then(
            pl.format(
                "judge's {} stands in (no human rating; --engagement judge)",
                _s(c("engagement").round(2)),
            )
        )
        .otherwise(pl.lit("pending: no rating yet"))
    )


_DETAILS: dict[str, Callable[[DiscussionSpec], pl.Expr]] = {
    "memory_accuracy": _memory_accuracy,
    "strategic_depth": _strategic_depth,
    "coherence": _coherence,
    "role_consistency": _role_consistency,
    "personality_diversity": _personality_diversity,
    "anti_repetition": _anti_repetition,
    "engagement": _engagement,
}
