"""Metric 6, anti-repetition: the phrases each speaker uses, and how often again."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import polars as pl

from toolkit.frames import typed
from toolkit.rubrics.discussion.schemas import PHRASE_SCHEMA
from toolkit.rubrics.discussion.text import ASCII_WORD, WORD, all_ascii, stem

if TYPE_CHECKING:  # the rubric's pydantic models: only named in annotations
    from toolkit.rubrics.discussion.spec import DiscussionSpec

__all__ = ["phrase_uses"]

#: Per game, the counted uses of phrases and their repeats.
_COUNTS_SCHEMA = {"game_id": pl.String(), "phrases": pl.Int64(), "repeats": pl.Int64()}


def phrase_uses(
    messages: pl.DataFrame, players: pl.DataFrame, spec: DiscussionSpec
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Uses of each ``phrase_words``-word phrase per speaker.

    Words are lower-cased tokens; a phrase holding a game term (``spec.game_terms``,
    with inflections) is left out. A player's name becomes the placeholder ``<name>``
    (``spec.phrase_names == "placeholder"``, a name of several words one placeholder),
    so "I think [name] is suspicious" said fifteen times is fifteen uses of the same
    phrases whoever is named; rubric 1.0.0 (``"exclude"``) left such phrases out.

    Returns:
        ``(phrases, counts)``: :data:`PHRASE_SCHEMA` rows (game_id, speaker, phrase,
        uses, repeats, turns), and per game ``phrases`` (counted uses) and ``repeats``.
    """
    if messages.height == 0:  # no words, no phrases: no query to run
        return pl.DataFrame(schema=PHRASE_SCHEMA), pl.DataFrame(schema=_COUNTS_SCHEMA)
    k = spec.phrase_words
    # a name's words, each once a game (no null word: a null key joins nothing)
    name_words = (
        players.select(
            "game_id",
            pl.col("name").str.to_lowercase().str.extract_all(_word(players["name"])).alias("_w"),
            pl.lit(True).alias("_is_name"),
        )
        .explode("_w")
        .unique()
    )
    term_re = r"^(?:" + "|".join(re.escape(stem(t)) for t in spec.game_terms) + r")"
    one_row = messages.select(pl.struct("game_id", "message_id").is_unique().all()).item()
    tokens = (
        messages.select(
            "game_id",
            "message_id",
            "turn",
            "speaker",
            pl.col("text").str.to_lowercase().str.extract_all(_word(messages["text"])).alias("_w"),
            pl.int_range(pl.len()).alias("_m"),
        )
        .explode("_w")
        .drop_nulls("_w")
        .join(name_words, on=["game_id", "_w"], how="left", maintain_order="left")
    )
    is_name = pl.col("_is_name").fill_null(False)
    if spec.phrase_names == "placeholder":
        prev_name = _back(is_name, 1, one_row).fill_null(False)
        tokens = tokens.filter(~(is_name & prev_name)).with_columns(
            pl.when(is_name).then(pl.lit("<name>")).otherwise("_w").alias("_w"),
            (~is_name & pl.col("_w").str.contains(term_re)).alias("_excluded"),
        )
    else:
        tokens = tokens.with_columns(
            (is_name | pl.col("_w").str.contains(term_re)).alias("_excluded")
        )
    window = [_back(pl.col("_w"), -i, one_row) for i in range(k)]
    excluded = [_back(pl.col("_excluded"), -i, one_row) for i in range(k)]
    # a window past its message's last word is null (and so is its exclusion): one filter
    grams = tokens.with_columns(
        pl.concat_str(window, separator=" ").alias("phrase"),
        pl.any_horizontal(excluded).alias("_drop"),
    ).filter(pl.col("phrase").is_not_null() & ~pl.col("_drop"))
    phrases = grams.group_by("game_id", "speaker", "phrase", maintain_order=True).agg(
        pl.len().cast(pl.Int64()).alias("uses"),
        (pl.len().cast(pl.Int64()) - 1).alias("repeats"),
        pl.col("turn").alias("turns"),
    )
    phrases = typed(phrases, PHRASE_SCHEMA)
    counts = phrases.group_by("game_id").agg(
        pl.col("uses").sum().alias("phrases"), pl.col("repeats").sum().alias("repeats")
    )
    return phrases, counts


def _word(texts: pl.Series) -> str:
    """The word pattern for ``texts``: :data:`ASCII_WORD` when they are all ASCII (the same
    words, a cheaper compile), else :data:`WORD`."""
    return ASCII_WORD if all_ascii(texts) else WORD


def _back(column: pl.Expr, i: int, one_row: bool) -> pl.Expr:
    """``column`` of the word ``i`` places before each word (after, for a negative ``i``)
    of its message (``game_id`` and ``message_id``), null past the message's ends.

    When each ``(game_id, message_id)`` is one message row (``one_row``: so the
    loaders build them), that row's words are one run of the tokens (exploded in order,
    kept in order by the join and the filter): the shift over the whole frame, where
    both words are of the same message row (``_m`` equal), is the shift within the
    message. About 1.3 ms of CPU a process less on the samples than the shift over the
    groups (a group-by of the two keys; issue 38). Otherwise (a repeated or null id)
    the shift over the groups, as written.
    """
    if not one_row:
        return column.shift(i).over("game_id", "message_id")
    return pl.when(pl.col("_m").shift(i) == pl.col("_m")).then(column.shift(i))
