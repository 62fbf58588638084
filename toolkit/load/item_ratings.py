"""Human ratings of persona items, from a rating session: its store or its export.

A rating session of persona chats (``toolkit rate CHATS --propositions DIR``) keeps its
ratings in a SQLite ratings store; the organiser's page exports them as CSV (``item,
rater, score, notes, agent, proposition, dimension, source, anchor, text_sha256,
created_at, event_id``) and as JSON (``{"kind": "persona", "scale": [0, 9], "ratings":
[...]}``, the same rows as objects). Any of them is read here into one frame: the rating
that counts per rater and item, with the rater's notes and the hash of the text they
rated. An export is read through the calibration scores reader (:func:`toolkit.load.calibration.
load_calibration_scores`: the reading edge, one-line errors, the last row of a repeated
pair counts, said), so scores outside 0-9 are refused there by line.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from toolkit.errors import InputError
from toolkit.io import edge
from toolkit.load._common import parse_json_text
from toolkit.load.calibration import load_calibration_scores
from toolkit.ratings.store import RatingStore, is_rating_store

__all__ = ["ITEM_RATINGS_COLUMNS", "load_item_ratings"]

#: The columns of the frame :func:`load_item_ratings` returns.
ITEM_RATINGS_COLUMNS: tuple[str, ...] = ("item", "rater", "score", "notes", "text_sha256")


def load_item_ratings(path: str | Path) -> pl.DataFrame:
    """The persona item ratings of a session: its ratings store, or its CSV or JSON export.

    Args:
        path: a toolkit ratings store (``ratings.db``) or the organiser's export
            (``ratings.csv`` or ``ratings.json``).

    Returns:
        item (String), rater (String), score (Float64, 0-9), notes (String, "" when
        none), text_sha256 (String): one row per rater and item, sorted by item, rater.

    Raises:
        InputError: a missing file or column, a score outside 0-9, a row without the
            text hash, a store that holds no persona item rating.
    """
    name = str(path)
    if not Path(path).exists():
        raise InputError(name, "no such ratings file or store")
    if is_rating_store(path):
        latest = RatingStore(path, create=False).item_latest()
        if latest.height == 0:
            raise InputError(name, "holds no rating of a persona item", field="item_rating_events")
        frame = latest.select(
            pl.col("item_id").alias("item"),
            "rater",
            pl.col("score").cast(pl.Float64),
            "notes",
            "text_sha256",
        )
    else:
        text = edge.read_text(path)
        if (
            text.lstrip().startswith("{")
            and isinstance((data := parse_json_text(name, text)), dict)
            and "ratings" in data
            and "scores" not in data
            and data.get("kind") != "persona"
        ):
            raise InputError(
                name, "the organiser's export of a game session: ratings of games, not of "
                "persona items (export the persona session's ratings.json or ratings.csv)",
                field="kind", value=data.get("kind"),
            )  # fmt: skip
        scores = load_calibration_scores(path, (0.0, 9.0))
        if "text_sha256" not in scores.columns:
            raise InputError(
                name,
                "a persona session's ratings need the column text_sha256 (the organiser's "
                "exports have it)",
                field="header",
                value=",".join(scores.columns),
            )
        blank = scores.filter(pl.col("text_sha256").is_null())
        if blank.height:
            raise InputError(
                name, "a rating without the hash of the text rated", field="text_sha256",
                value=f"{blank['item'][0]} by {blank['rater'][0]}",
            )  # fmt: skip
        notes = pl.col("notes").fill_null("") if "notes" in scores.columns else pl.lit("")
        frame = scores.select(
            "item", "rater", "score", notes.cast(pl.String).alias("notes"), "text_sha256"
        )
    return frame.sort("item", "rater")
