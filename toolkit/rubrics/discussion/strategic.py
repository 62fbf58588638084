"""Metric 2, strategic depth: which messages carry a strategic keyword."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import polars as pl

from toolkit.rubrics.discussion.text import all_ascii, ascii_word, stem, stem_regex

if TYPE_CHECKING:  # the rubric's pydantic models: only named in annotations
    from toolkit.rubrics.discussion.spec import DiscussionSpec

__all__ = ["keyword_words", "strategic_evidence"]


def strategic_evidence(messages: pl.DataFrame, spec: DiscussionSpec) -> pl.DataFrame:
    """Which messages carry a strategic keyword (or an inflection of one).

    Returns:
        messages with ``strategic_keywords`` (list of matched words, lower-cased) and
        ``strategic`` (bool).
    """
    words = [w for group in spec.strategic_keywords.values() for w in group]
    stems = [stem(w) for w in words]
    if stems and all(ascii_word(s) for s in stems) and all_ascii(messages["text"]):
        found = _ascii_words(stems)
    else:
        found = _words(pl.col("text"), words, lower=True)
    return messages.with_columns(
        found.list.unique(maintain_order=True).alias("strategic_keywords")
    ).with_columns((pl.col("strategic_keywords").list.len() > 0).alias("strategic"))


def _ascii_words(stems: Sequence[str]) -> pl.Expr:
    """The lower-cased words of an all-ASCII ``text`` that start with one of ``stems``
    (ASCII letters, digits and ``_``, one or more each), in order: :func:`_words` with
    ``lower``, in one pattern over the lower-cased text.

    On ASCII text a word character to Unicode is one to ASCII, so ``(?-u:\\b)`` (the
    ASCII word boundary) holds where ``\\b`` does, and ``[0-9a-z_]*`` over the
    lower-cased text runs to the end of the run of word characters, as ``\\w+`` finds
    it: a match is exactly a lower-cased run that starts with a stem. ``(?i)`` is
    needed on ASCII text only to fold ASCII letters (its other foldings, ``k`` to the
    Kelvin sign, ``s`` to the long s, reach no ASCII character): lower-casing the text
    and the stems does it. About 1.5 ms of CPU less a process on the samples than the
    two patterns of Unicode classes (``\\w+`` alone compiles in ~1 ms; issue 38).
    """
    pattern = r"(?-u:\b)(?:" + "|".join(re.escape(s.lower()) for s in stems) + r")[0-9a-z_]*"
    return pl.col("text").str.to_lowercase().str.extract_all(pattern)


def keyword_words(text: pl.Expr, words: Sequence[str]) -> pl.Expr:
    """The words of ``text`` (as written, in order) that start with a keyword's stem.

    When every stem is one or more word characters (every keyword of the rubric), a
    match of :func:`stem_regex`, ``(?i)\\b(?:stems)[\\w]*``, is exactly a maximal run
    of word characters that starts with a stem: ``\\b`` before a word character is the
    start of a run, and ``[\\w]*`` runs greedily to its end. So the runs are taken with
    ``\\w+`` and kept when ``(?i)^(?:stems)`` matches them: the same words, about 5 ms
    less CPU a process on the samples (the stems followed by ``[\\w]*`` cost 7-9 ms to
    compile and 3-4 ms to run, the two simpler patterns about 1.5 ms; issue 38).
    The runs are taken only when every stem is ASCII letters, digits and ``_`` (word
    characters to any reading of ``\\w``; checked in Python, since asking the engine
    costs another pattern's compile). Any other stem (a custom rubric's ``self-vote``
    could match across runs; an empty one inside none; a non-ASCII one is left to the
    engine), or none: the whole pattern, as before.
    """
    return _words(text, words, lower=False)


def _words(text: pl.Expr, words: Sequence[str], *, lower: bool) -> pl.Expr:
    """:func:`keyword_words`, each word lower-cased with ``lower`` (in the same
    ``list.eval`` as the stems' filter: one pass over the lists, not two; issue 38)."""
    stems = [stem(w) for w in words]
    if not stems or not all(ascii_word(s) for s in stems):
        found = text.str.extract_all(stem_regex(words))
        return found.list.eval(pl.element().str.to_lowercase()) if lower else found
    prefix = r"(?i)^(?:" + "|".join(re.escape(s) for s in stems) + r")"
    kept = pl.element().filter(pl.element().str.contains(prefix))
    return text.str.extract_all(r"\w+").list.eval(kept.str.to_lowercase() if lower else kept)
