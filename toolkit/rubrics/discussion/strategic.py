"""Metric 2, strategic depth: which messages carry a strategic keyword."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from toolkit.rubrics.discussion.text import stem_regex

if TYPE_CHECKING:  # the rubric's pydantic models: only named in annotations
    from toolkit.rubrics.discussion.spec import DiscussionSpec

__all__ = ["strategic_evidence"]


def strategic_evidence(messages: pl.DataFrame, spec: DiscussionSpec) -> pl.DataFrame:
    """Which messages carry a strategic keyword (or an inflection of one).

    Returns:
        messages with ``strategic_keywords`` (list of matched words, lower-cased) and
        ``strategic`` (bool).
    """
    words = [w for group in spec.strategic_keywords.values() for w in group]
    pattern = stem_regex(words)
    return messages.with_columns(
        pl.col("text")
        .str.extract_all(pattern)
        .list.eval(pl.element().str.to_lowercase())
        .list.unique(maintain_order=True)
        .alias("strategic_keywords")
    ).with_columns((pl.col("strategic_keywords").list.len() > 0).alias("strategic"))
