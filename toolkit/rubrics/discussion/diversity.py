"""Metric 5, personality diversity: how alike the speakers of a game write."""

from __future__ import annotations

import polars as pl

from toolkit.rubrics.discussion.schemas import SIMILARITY_SCHEMA

__all__ = ["speaker_similarity"]


def speaker_similarity(messages: pl.DataFrame) -> pl.DataFrame:
    """Sørensen-Dice similarity of speakers' joined texts on character bigrams.

    Whitespace is removed before taking bigrams; bigrams are counted as a multiset:
    ``2 * shared bigrams / (bigrams of a + bigrams of b)``.

    Returns:
        :data:`SIMILARITY_SCHEMA` (game_id, speaker, other, similarity), both orders.
    """
    joined = (
        messages.group_by("game_id", "speaker", maintain_order=True)
        .agg(pl.col("text").str.join(""))
        .with_columns(pl.col("text").str.replace_all(r"\s+", ""))
    )
    chars = (
        joined.with_columns(pl.col("text").str.split("").alias("_c"))
        .explode("_c")
        .with_columns(
            (pl.col("_c") + pl.col("_c").shift(-1).over("game_id", "speaker")).alias("bigram")
        )
        .drop_nulls("bigram")
        .group_by("game_id", "speaker", "bigram")
        .len("n")
    )
    totals = chars.group_by("game_id", "speaker").agg(pl.col("n").sum().alias("total"))
    shared = (
        chars.join(chars, on=["game_id", "bigram"], suffix="_o")
        .filter(pl.col("speaker") != pl.col("speaker_o"))
        .group_by("game_id", "speaker", pl.col("speaker_o").alias("other"))
        .agg(pl.min_horizontal("n", "n_o").sum().alias("shared"))
    )
    speakers = joined.select("game_id", "speaker")
    pairs = (
        speakers.join(speakers.rename({"speaker": "other"}), on="game_id")
        .filter(pl.col("speaker") != pl.col("other"))
        .join(shared, on=["game_id", "speaker", "other"], how="left")
        .join(totals, on=["game_id", "speaker"], how="left")
        .join(
            totals.rename({"speaker": "other", "total": "total_o"}),
            on=["game_id", "other"],
            how="left",
        )
        .with_columns(
            pl.when((pl.col("total").fill_null(0) + pl.col("total_o").fill_null(0)) > 0)
            .then(
                2.0
                * pl.col("shared").fill_null(0)
                / (pl.col("total").fill_null(0) + pl.col("total_o").fill_null(0))
            )
            .otherwise(0.0)
            .alias("similarity")
        )
    )
    return pairs.select(list(SIMILARITY_SCHEMA)).cast(SIMILARITY_SCHEMA)  # type: ignore[arg-type]
