"""Metric 3, conversation coherence: whether each message links to the ones before it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from toolkit.rubrics.discussion.text import (
    ASCII_WORD,
    WORD,
    all_ascii,
    ascii_named,
    ascii_word_ended,
    mentions,
    word_bounded,
)

if TYPE_CHECKING:  # the rubric's pydantic models: only named in annotations
    from toolkit.rubrics.discussion.spec import DiscussionSpec

__all__ = ["coherence_evidence"]


def coherence_evidence(messages: pl.DataFrame, spec: DiscussionSpec) -> pl.DataFrame:
    """Whether each message links to the previous ``coherence_window`` messages.

    A message after the first of its game is coherent when it has ``in_reply_to``, names
    a speaker of one of the previous messages, or shares ``coherence_min_shared_words``
    or more words of ``coherence_min_word_length`` or more letters with one of them.

    A game's first message has nothing before it to link to: with
    ``spec.coherence_counts_first`` (the rubric's formula, coherent / all messages) it
    counts as not coherent; without (rubric 1.0.0) it is left out (null).

    Returns:
        messages with ``coherent`` and ``coherence_reason`` (a column of ``messages``
        named like a temporary one, ``_words``, ``_pos``, ``_named<k>``, ``_reason``,
        is not kept).
    """
    n = spec.coherence_window
    min_len = spec.coherence_min_word_length
    lower = pl.col("text").str.to_lowercase()
    temporary = ["_words", "_pos", *(f"_named{k}" for k in range(1, n + 1)), "_reason"]
    ascii_text = all_ascii(messages["text"])
    frame = messages.with_columns(
        lower.str.extract_all(ASCII_WORD if ascii_text else WORD)
        .list.eval(pl.element().filter(pl.element().str.len_chars() >= min_len))
        .list.unique()
        .list.sort()
        .alias("_words"),
        pl.int_range(pl.len()).over("game_id").alias("_pos"),
        *_names_previous(messages, n, ascii_text),
    )
    first = spec.coherence_counts_first
    reason = pl.col("_reason")
    coherent = (
        pl.when(pl.col("_pos") == 0)
        .then(pl.lit(False if first else None, dtype=pl.Boolean()))
        .otherwise(reason.is_not_null())
    )
    why = (
        pl.when(pl.col("_pos") == 0)
        .then(
            pl.lit(
                "first message: nothing before it to link to"
                if first
                else "first message (not counted)"
            )
        )
        .otherwise(reason.fill_null(f"no link to the previous {n} messages"))
    )
    new = {"coherent": coherent, "coherence_reason": why}
    # the columns ``with_columns`` then ``drop`` of the temporary ones would leave; the
    # link found once a message (a second ``with_columns``: an eager query has no common
    # subexpression elimination, and each of the two outputs reads it; issue 38)
    out = [new.pop(c, pl.col(c)).alias(c) for c in messages.columns if c not in temporary]
    return frame.with_columns(_reason(spec).alias("_reason")).select(
        *out, *(e.alias(c) for c, e in new.items())
    )


def _reason(spec: DiscussionSpec) -> pl.Expr:
    """The first link a message has to the previous ``coherence_window`` messages (null
    for none): a reply, then a name (nearest first), then shared words (nearest first)."""
    named: list[pl.Expr] = []
    shared: list[pl.Expr] = []
    for k in range(1, spec.coherence_window + 1):
        prev_speaker = pl.col("speaker").shift(k).over("game_id")
        prev_turn = pl.col("turn").shift(k).over("game_id")
        named.append(
            pl.when(pl.col(f"_named{k}")).then(
                pl.format("names {} (turn {})", prev_speaker, prev_turn.cast(pl.String()))
            )
        )
        common = pl.col("_words").list.set_intersection(pl.col("_words").shift(k).over("game_id"))
        shared.append(
            pl.when(common.list.len() >= spec.coherence_min_shared_words).then(
                pl.format(
                    "shares {} with turn {}",
                    common.list.sort().list.join(", "),
                    prev_turn.cast(pl.String()),
                )
            )
        )
    reply = pl.when(pl.col("in_reply_to").is_not_null()).then(
        pl.format("replies to {}", pl.coalesce("in_reply_to_player", "in_reply_to"))
    )
    return pl.coalesce(reply, *named, *shared)


def _names_previous(
    messages: pl.DataFrame, n: int, ascii_text: bool
) -> list[pl.Series] | list[pl.Expr]:
    """``_named1`` .. ``_named<n>``: whether each message names the speaker ``k``
    messages before it in its game (:func:`mentions`; null where :func:`mentions` is
    False for a null text or name: ``when`` reads both alike).

    Asked once over every (message, previous speaker) pair, not once per ``k``: the
    ``n`` expressions of one query run on different threads, and each thread compiled
    every player's name pattern again (Polars keeps compiled patterns per thread): about
    5 ms of the coherence query's 13 on the samples (issue 38).

    The names' own ``\\b(?i:name)\\b`` patterns also tell which names start and end with
    a word character (:func:`word_bounded`), in the same expression: no pattern of a
    Unicode class to compile. When every name does, the answer is that pattern's match;
    otherwise :func:`mentions` as a whole.

    On all-ASCII texts (``ascii_text``) whose speakers' names are ASCII and start and end
    with a word character, the ``n`` expressions themselves (:func:`~.text.ascii_named`),
    for the coherence query: their patterns compile cheaply enough that each thread compiling
    its own costs less than the two steps of the pairs (~0.7 ms on the samples).
    """
    if n < 1:
        return []
    if ascii_text and ascii_word_ended(messages["speaker"]):
        lower = pl.col("text").str.to_lowercase()
        return [
            ascii_named(lower, pl.col("speaker").shift(k).over("game_id")).alias(f"_named{k}")
            for k in range(1, n + 1)
        ]
    pairs = messages.select(
        "text",
        pl.concat_list([pl.col("speaker").shift(k).over("game_id") for k in range(1, n + 1)]).alias(
            "_prev"
        ),
    ).explode("_prev")  # n rows a message, in order: k = 1 .. n
    text, name = pl.col("text"), pl.col("_prev")
    bounded = word_bounded(name)
    # one column: the texts against their names' patterns, then the names against their own
    both = pairs.select(text.append(name).str.contains(bounded.append(bounded))).to_series()
    rows = pairs.height
    if both.slice(rows).all(ignore_nulls=True):
        named = both.slice(0, rows)
    else:
        named = pairs.select(mentions(text, name)).to_series()
    return [named.gather_every(n, offset=k - 1).alias(f"_named{k}") for k in range(1, n + 1)]
