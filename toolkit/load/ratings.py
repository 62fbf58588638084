"""Human engagement ratings (1-5) of discussion games, from a simple file.

The discussion rubric reads ratings through the small :class:`RatingSource` protocol,
so any store that can answer "the ratings of these games" can feed it. This module
provides the file-backed source; the SQLite ratings store (:mod:`toolkit.ratings.store`)
implements the same protocol, and :func:`open_rating_source` opens either kind.

A ratings file is CSV with a header ``game_id,rater,score`` or JSON: a list of
``{"game_id", "rater", "score"}`` objects, or ``{"ratings": [...]}`` holding that list.
Scores are numbers from 1 to 5; an optional ``notes`` column/key keeps each rater's note
(:attr:`FileRatings.notes`, what a calibration shows beside the judge's reasoning); other
extra columns/keys are ignored.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import polars as pl

from toolkit.errors import InputError
from toolkit.frames import DISCUSSION_RATINGS_SCHEMA
from toolkit.io import edge
from toolkit.load._common import parse_json_text
from toolkit.summary import Shows, Summary

__all__ = ["FileRatings", "LabelSource", "RatingSource", "load_ratings", "open_rating_source"]

MIN_SCORE, MAX_SCORE = 1.0, 5.0
#: A rater's note per game (what ``FileRatings.notes`` holds).
RATING_NOTES_SCHEMA: dict[str, pl.DataType] = {
    "game_id": pl.String(),
    "rater": pl.String(),
    "notes": pl.String(),
}
_FIELDS = ("game_id", "rater", "score")


@runtime_checkable
class RatingSource(Protocol):
    """Anything that can give the engagement ratings of some games."""

    def ratings(self, game_ids: Sequence[str]) -> pl.DataFrame:
        """The ratings of ``game_ids``: :data:`~toolkit.frames.DISCUSSION_RATINGS_SCHEMA`
        (game_id, rater, score), one row per rater and game (the rater's latest rating)."""
        ...


@runtime_checkable
class LabelSource(Protocol):
    """Anything that can give reviewers' label overrides of some games (the ratings store)."""

    def labels(self, game_ids: Sequence[str]) -> pl.DataFrame:
        """The labels of ``game_ids``: :data:`~toolkit.frames.DISCUSSION_LABELS_SCHEMA`
        (game_id, kind, item_id, label), the one that counts per game, kind and item."""
        ...


@dataclass(frozen=True, repr=False)
class FileRatings(Shows):
    """Ratings read from a CSV or JSON file (see the module docs for the format).

    Attributes:
        path: the file.
        frame: game_id, rater, score (the rater's last line per game).
        notes: game_id, rater, notes: the note of that same line, when the file has a
            ``notes`` column (empty otherwise; an empty note is null).
    """

    path: str
    frame: pl.DataFrame
    notes: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=RATING_NOTES_SCHEMA))

    def _summary(self) -> Summary:
        return Summary(
            "FileRatings",
            self.path,
            (("ratings", self.frame.height), ("games", self.frame["game_id"].n_unique())),
        )

    def ratings(self, game_ids: Sequence[str]) -> pl.DataFrame:
        """The ratings of ``game_ids`` (game_id, rater, score)."""
        return self.frame.filter(pl.col("game_id").is_in(list(game_ids)))


def _score(path: str, value: Any, line: int | None, where: str) -> float:
    if isinstance(value, bool):
        raise InputError(
            path, "score must be a number from 1 to 5", field=where, value=value, line=line
        )
    try:
        score = float(value)
    except (TypeError, ValueError) as exc:
        raise InputError(
            path, "score must be a number from 1 to 5", field=where, value=value, line=line
        ) from exc
    if not MIN_SCORE <= score <= MAX_SCORE:
        raise InputError(
            path, "score must be a number from 1 to 5", field=where, value=value, line=line
        )
    return score


def _rows_csv(path: str, text: str) -> list[dict[str, Any]]:
    edge.check_lines(text, path)  # blank lines count: a padded file is refused, not read
    with edge.csv_cells():
        reader = csv.DictReader(io.StringIO(text))
        try:
            return _rows_of(path, reader)
        except csv.Error as exc:
            raise edge.csv_problem(path, exc, reader.line_num or None) from exc


def _rows_of(path: str, reader: csv.DictReader[str]) -> list[dict[str, Any]]:
    header = reader.fieldnames or []
    missing = [f for f in _FIELDS if f not in header]
    if missing:
        raise InputError(
            path,
            "a ratings CSV needs the columns game_id, rater, score",
            field="header",
            value=",".join(header),
            line=1,
        )
    rows: list[dict[str, Any]] = []
    for i, raw in enumerate(reader, start=2):
        for f in ("game_id", "rater"):
            if not (raw.get(f) or "").strip():
                raise InputError(path, "must not be empty", field=f, value=raw.get(f), line=i)
        rows.append(
            {
                "game_id": raw["game_id"].strip(),
                "rater": raw["rater"].strip(),
                "score": _score(path, (raw.get("score") or "").strip(), i, "score"),
                "notes": (raw.get("notes") or "").strip() or None,
            }
        )
    return rows


def _rows_json(path: str, text: str) -> list[dict[str, Any]]:
    data = parse_json_text(path, text)
    if isinstance(data, dict):
        data = data.get("ratings")
    if not isinstance(data, list):
        raise InputError(
            path, 'expected a list of ratings or {"ratings": [...]}', field="ratings", value=data
        )
    rows: list[dict[str, Any]] = []
    for i, item in enumerate(data):
        if not isinstance(item, dict):
            raise InputError(path, "a rating must be an object", field=f"ratings.{i}", value=item)
        for f in ("game_id", "rater"):
            value = item.get(f)
            if not isinstance(value, str | int) or not str(value).strip():
                raise InputError(
                    path, "must be a non-empty string", field=f"ratings.{i}.{f}", value=value
                )
        note = item.get("notes")
        rows.append(
            {
                "game_id": str(item["game_id"]).strip(),
                "rater": str(item["rater"]).strip(),
                "score": _score(path, item.get("score"), None, f"ratings.{i}.score"),
                "notes": note.strip() or None if isinstance(note, str) else None,
            }
        )
    return rows


def load_ratings(path: str | Path) -> FileRatings:
    """Read a ratings file (CSV, or JSON when the name ends in ``.json``).

    When a rater rated a game more than once, the last line counts.

    Returns:
        A :class:`FileRatings`, whose frame has columns game_id, rater, score.

    Raises:
        InputError: one line naming the file, the line or field, and the value.
    """
    name = str(path)
    if not Path(path).exists():
        raise InputError(name, "no such ratings file")
    text = edge.read_text(path)
    stripped = text.lstrip()
    is_json = name.lower().endswith(".json") or stripped.startswith(("[", "{"))
    rows = _rows_json(name, text) if is_json else _rows_csv(name, text)
    both = pl.DataFrame(rows, schema={**DISCUSSION_RATINGS_SCHEMA, "notes": pl.String()}).unique(
        ["game_id", "rater"], keep="last", maintain_order=True
    )
    notes = both.select(list(RATING_NOTES_SCHEMA)).drop_nulls("notes")
    return FileRatings(path=name, frame=both.drop("notes"), notes=notes)


def open_rating_source(path: str | Path) -> RatingSource:
    """The rating source stored at ``path``, whatever its kind (used by the CLI).

    A ratings file (CSV or JSON, see :func:`load_ratings`) or a SQLite ratings store
    (:class:`~toolkit.ratings.store.RatingStore`, which also gives reviewer labels).

    Raises:
        InputError: for a file that is no rating source this toolkit can read.
    """
    if not Path(path).exists():
        raise InputError(str(path), "no such ratings file")
    head = edge.read_head(path, 16)
    if head == b"SQLite format 3\x00":
        # the store's modules (~10 ms of CPU): only for a SQLite file, so a scoring run
        # without a store never imports them (issue 38, tests/test_startup_imports.py)
        from toolkit.ratings.store import RatingStore, is_rating_store

        if not is_rating_store(path):
            raise InputError(
                str(path),
                "a SQLite file that is not a toolkit ratings store (a game database?); give "
                "a ratings store, or a CSV or JSON ratings file",
            )
        return RatingStore(path, create=False)
    return load_ratings(path)
