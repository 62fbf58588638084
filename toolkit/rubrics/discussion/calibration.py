"""Calibrating the engagement judge against people: the judge's 1-5 reading and people's
ratings of the same games, as the calibration contract's long frame."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from toolkit.errors import InputError
from toolkit.frames import CALIBRATION_SCORES_SCHEMA, CALIBRATION_TEXT_SCHEMA
from toolkit.load.discussion import Discussion
from toolkit.load.ratings import RatingSource
from toolkit.ratings.store import RatingStore
from toolkit.rubrics.calibrate import DEFAULT_CALIBRATE_RUBRIC, CalibrateRubric
from toolkit.rubrics.discussion._values import DEFAULT_VALUES as DEFAULT_DISCUSSION_SPEC
from toolkit.rubrics.discussion.judge import JudgedDiscussion

if TYPE_CHECKING:  # the rubric's pydantic models: only named in annotations
    from toolkit.rubrics.discussion.spec import DiscussionSpec

__all__ = [
    "CALIBRATED_METRICS",
    "GAME_CALIBRATION_SCHEMA",
    "engagement_calibrate_rubric",
    "engagement_calibration_scores",
]

#: The metrics a calibration over games can hold the judge to (people rate engagement).
CALIBRATED_METRICS: tuple[str, ...] = ("engagement",)

#: The long frame of the calibration contract, as :func:`engagement_calibration_scores`
#: builds it (one row per game and rater; the judge is rater ``judge``).
GAME_CALIBRATION_SCHEMA: dict[str, pl.DataType] = (
    CALIBRATION_SCORES_SCHEMA | {"game": pl.String()} | CALIBRATION_TEXT_SCHEMA
)


def _human_engagement(source: RatingSource | pl.DataFrame, game_ids: Sequence[str]) -> pl.DataFrame:
    """game_id, rater, score, notes of people's engagement ratings of ``game_ids``."""
    schema = {"game_id": pl.String(), "rater": pl.String(), "score": pl.Float64(),
              "notes": pl.String()}  # fmt: skip
    if isinstance(source, pl.DataFrame):
        frame = source if "notes" in source.columns else source.with_columns(notes=None)
    elif isinstance(source, RatingStore):  # each rater's latest rating, with its note
        frame = source.latest().select(
            pl.col("transcript_id").alias("game_id"), "rater", "score", "notes"
        )
    else:
        frame = source.ratings(list(game_ids))
        notes = getattr(source, "notes", None)
        if isinstance(notes, pl.DataFrame) and notes.height:
            frame = frame.join(notes, on=["game_id", "rater"], how="left")
        else:
            frame = frame.with_columns(notes=None)
    return (
        frame.select(list(schema))
        .cast(schema)  # type: ignore[arg-type]
        .filter(pl.col("game_id").is_in(list(game_ids)))
        .with_columns(
            pl.when(pl.col("notes").str.strip_chars() == "")
            .then(None)
            .otherwise(pl.col("notes"))
            .alias("notes")
        )
    )


def engagement_calibration_scores(
    judged: JudgedDiscussion,
    discussion: Discussion,
    ratings: RatingSource | pl.DataFrame,
    *,
    judge_id: str = "judge",
) -> pl.DataFrame:
    """The judge's engagement and people's ratings of the same games, as the calibration
    contract's long frame (:func:`toolkit.rubrics.calibrate.calibrate` reads it).

    Args:
        judged: the judge's readings (:func:`judge_discussion` with ``engagement``).
        discussion: the games judged (for each game's source file).
        ratings: people's engagement ratings: a ratings file
            (:func:`toolkit.load.ratings.load_ratings`, its ``notes`` column kept), the
            SQLite ratings store (each rater's latest rating and note), or a frame
            (game_id, rater, score[, notes]).
        judge_id: the judge's rater id (must not be a person's).

    Returns:
        :data:`GAME_CALIBRATION_SCHEMA`: ``item`` (the game id), ``rater``, ``score``
        (1-5), ``game`` (a group), ``notes`` (a person's note, on human rows),
        ``reasoning`` (on the judge's row), ``evidence`` (the beginning of the text the
        judge read, same on every row of a game), ``source`` (the game's file),
        ``anchor`` (the turns judged, ``turns 1-15``), ``text_sha256`` (of the exact
        text the judge received). A game the judge gave no usable value has no judge row
        (calibrate counts it as unpaired).

    Raises:
        InputError: a person rating under the judge's id, or no engagement reading.
    """
    items = _engagement_items(judged)
    game_ids = [g for g in discussion.game_ids if g in set(items["game_id"].to_list())]
    humans = _human_engagement(ratings, game_ids)
    if judge_id in set(humans["rater"].to_list()):
        raise InputError(
            None, "a person rated under the judge's id; give the judge another id",
            field="--judge-id", value=judge_id,
        )  # fmt: skip
    per_game = _per_game(judged, discussion, items, game_ids)
    judge_rows = _judge_rows(per_game, judge_id)
    human_rows = _human_rows(humans, per_game)
    order = {g: i for i, g in enumerate(game_ids)}
    schema: Any = GAME_CALIBRATION_SCHEMA
    return (
        pl.concat([judge_rows.cast(schema), human_rows.cast(schema)])
        .with_columns(pl.col("item").replace_strict(order, return_dtype=pl.Int64).alias("_o"))
        .sort("_o", "rater", maintain_order=True)
        .drop("_o")
    )


def _engagement_items(judged: JudgedDiscussion) -> pl.DataFrame:
    """The judge's engagement items.

    Raises:
        InputError: there are none.
    """
    items = judged.items.filter(pl.col("metric") == "engagement")
    if items.height == 0:
        raise InputError(
            None, "the judge gave no engagement reading to calibrate", field="--metric",
            value="engagement",
        )  # fmt: skip
    return items


def _per_game(
    judged: JudgedDiscussion, discussion: Discussion, items: pl.DataFrame, game_ids: Sequence[str]
) -> pl.DataFrame:
    """Per judged game: its source file, the turns and text the judge read (``anchor``,
    ``text_sha256``, ``evidence``), the judge's value (``_judge``) and reasoning."""
    per_game = discussion.games.select(
        pl.col("game_id").alias("item"), pl.col("source_file").alias("source")
    ).join(
        items.select(
            pl.col("game_id").alias("item"),
            "anchor",
            "text_sha256",
            pl.col("value").cast(pl.Float64).alias("_judge"),
            "reasoning",
        ),
        on="item",
        how="inner",
    )
    return per_game.with_columns(
        pl.col("item")
        .replace_strict({g: judged.excerpt(g) for g in game_ids}, return_dtype=pl.String())
        .alias("evidence"),
        pl.col("item").alias("game"),
    )


def _judge_rows(per_game: pl.DataFrame, judge_id: str) -> pl.DataFrame:
    """One row per game the judge gave a usable value, under ``judge_id``."""
    return per_game.filter(pl.col("_judge").is_not_null()).select(
        "item",
        pl.lit(judge_id).alias("rater"),
        pl.col("_judge").alias("score"),
        "game",
        pl.lit(None, dtype=pl.String()).alias("notes"),
        "reasoning",
        "evidence",
        "source",
        "anchor",
        "text_sha256",
    )


def _human_rows(humans: pl.DataFrame, per_game: pl.DataFrame) -> pl.DataFrame:
    """One row per person's rating of a judged game, with the game's evidence."""
    return humans.join(
        per_game.drop("_judge", "reasoning"), left_on="game_id", right_on="item", how="inner"
    ).select(
        pl.col("game_id").alias("item"),
        "rater",
        "score",
        "game",
        "notes",
        pl.lit(None, dtype=pl.String()).alias("reasoning"),
        "evidence",
        "source",
        "anchor",
        "text_sha256",
    )


def engagement_calibrate_rubric(
    spec: DiscussionSpec = DEFAULT_DISCUSSION_SPEC,
) -> CalibrateRubric:
    """The calibrate rubric on the engagement scale: scores 1 to 5, an item passes at the
    discussion rubric's engagement threshold (3.0); version ``1.0.0-engagement``."""
    rubric: CalibrateRubric = DEFAULT_CALIBRATE_RUBRIC.model_copy(
        update={
            "scale_min": 1.0,
            "scale_max": 5.0,
            "threshold": spec.threshold("engagement"),
            "version": f"{DEFAULT_CALIBRATE_RUBRIC.version}-engagement",
        }
    )
    return rubric
