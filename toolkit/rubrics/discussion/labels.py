"""A reviewer's labels over the automatic readings, and the "fascinating to watch" sign-off."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import polars as pl

from toolkit.frames import DISCUSSION_LABELS_SCHEMA

if TYPE_CHECKING:
    from toolkit.load.ratings import RatingSource

__all__ = ["apply_labels", "reviewer_labels", "signoffs"]


def reviewer_labels(
    game_ids: Sequence[str],
    ratings: RatingSource | pl.DataFrame | None,
    labels: pl.DataFrame | None,
) -> pl.DataFrame | None:
    """The labels given, else those of ``ratings`` when it is also a label source (the
    ratings store), in :data:`~toolkit.frames.DISCUSSION_LABELS_SCHEMA`; None without."""
    if labels is None and ratings is not None:
        # the ratings files' reader (~1.5 ms of CPU, and csv): only when there are ratings
        from toolkit.load.ratings import LabelSource

        if isinstance(ratings, LabelSource):
            labels = ratings.labels(list(game_ids))
    if labels is not None:
        labels = labels.select(list(DISCUSSION_LABELS_SCHEMA)).cast(DISCUSSION_LABELS_SCHEMA)  # type: ignore[arg-type]
    return labels


def apply_labels(
    evidence: pl.DataFrame, labels: pl.DataFrame | None, kind: str, column: str, invert: bool
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Reviewer labels over automatic ones; returns the frame and the overridden count."""
    if labels is None or labels.height == 0:
        return evidence, pl.DataFrame(
            schema={"game_id": pl.String(), f"{kind}_overridden": pl.UInt32()}
        )
    lab = (
        labels.filter(pl.col("kind") == kind)
        .unique(["game_id", "item_id"], keep="last", maintain_order=True)
        .select("game_id", pl.col("item_id").alias("message_id"), pl.col("label").alias("_label"))
    )
    new = ~pl.col("_label") if invert else pl.col("_label")
    out = evidence.join(lab, on=["game_id", "message_id"], how="left")
    changed = out.filter(pl.col("_label").is_not_null() & (new != pl.col(column)))
    counts = changed.group_by("game_id").agg(pl.len().alias(f"{kind}_overridden"))
    out = out.with_columns(
        pl.when(pl.col("_label").is_not_null()).then(new).otherwise(pl.col(column)).alias(column)
    ).drop("_label")
    return out, counts


def signoffs(labels: pl.DataFrame | None) -> pl.DataFrame:
    """Per game, the reviewer's "fascinating to watch" sign-off (label kind
    ``fascinating``, item ``game``): True / False as labelled; no row when none."""
    schema = {"game_id": pl.String(), "signed_off": pl.Boolean()}
    if labels is None or labels.height == 0:
        return pl.DataFrame(schema=schema)
    return (
        labels.filter((pl.col("kind") == "fascinating") & (pl.col("item_id") == "game"))
        .unique(["game_id"], keep="last", maintain_order=True)
        .select("game_id", pl.col("label").alias("signed_off"))
        .cast(schema)  # type: ignore[arg-type]
    )
