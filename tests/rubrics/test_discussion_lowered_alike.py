"""Patterns read lower-cased (issue 38): on text of ASCII characters only, a pattern that
:func:`lowered_alike` accepts, with no ``(?i)``, matches the text lower-cased exactly where
the pattern with ``(?i)`` matches the text (both run by Polars' regex, on generated patterns
and texts); each thing it refuses would not match alike.
"""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.rubrics.discussion.text import ascii_union, lowered_alike, pattern_union

PIECES = ["a", "b", "k", "s", "e", "A", "K", "S", "0", "7", " ", "'", "’", "-", "_", ".", "?",
          "*", "+", "{1,2}", "|", "(", ")", "(?:", "^", "$", r"\b", r"\B", r"\w", r"\W", r"\s",
          r"\d", r"\D", r"\S", r"\.", r"\-", "[", "]", "[a-c]", "[0-a]", "[^a]", "[]a]", "[^-b]",
          "[a-]", "[k-s]", "[0-9]", "[!-~]", "[[:upper:]]", "[a&&b]", "(?i)", "(?-i:", "(?x)",
          "(?P<n>", "(?<n>", r"\x41", r"\x{4b}", r"\p{Lu}", r"\pL", r"\A", r"\z", "\u017f",
          "\u212a"]  # fmt: skip
TEXT = st.text(alphabet="aAbBcCeEkKsSzZ09 _-'.?!\n", max_size=14)


def _bracketed(pattern: str, texts: list[str]) -> list[Any] | None:
    """Each text with its matches bracketed and its first match's groups; None if refused."""
    frame = pl.DataFrame({"t": texts}, schema={"t": pl.String})
    try:
        return frame.select(
            pl.col("t").str.replace_all(pattern, "<$0>").alias("r"),
            pl.col("t").str.extract_all(pattern).alias("x"),
            pl.col("t").str.contains(pattern).alias("c"),
        ).rows()
    except pl.exceptions.ComputeError:
        return None


def _lowered(rows: list[Any]) -> list[Any]:
    return [(r.lower(), [x.lower() for x in xs], c) for r, xs, c in rows]


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=8).map("".join), st.lists(TEXT))
def test_a_pattern_accepted_matches_the_lowered_text_alike(pattern: str, texts: list[str]) -> None:
    if not lowered_alike(pattern):
        return
    written = _bracketed("(?i)" + pattern, texts)
    if written is None:  # refused as written: refused without (?i) too
        assert _bracketed(pattern, [t.lower() for t in texts]) is None
        return
    assert _bracketed(pattern, [t.lower() for t in texts]) == _lowered(written)


#: Pieces of the shapes accepted (most patterns built of them are), so most examples compare.
ACCEPTED_PIECES = ["a", "b", "k", "s", "e", "0", " ", "'", "’", "-", ".", "?", "*", "+",
                   "{1,2}", "|", "(", ")", "(?:", "^", "$", r"\b", r"\B", r"\w", r"\W", r"\s",
                   r"\S", r"\d", r"\.", "[a-c]", "[^a]", "[]a]", "[^-b]", "[k-s]", "[^\\w]",
                   "[\\s’-]"]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(ACCEPTED_PIECES), min_size=1, max_size=8).map("".join),
    st.lists(TEXT, min_size=1),
)
def test_accepted_shapes_match_the_lowered_text_alike(pattern: str, texts: list[str]) -> None:
    written = _bracketed("(?i)" + pattern, texts)
    if lowered_alike(pattern) and written is not None:  # not so: "(" "?" "a" is a flag group
        assert _bracketed(pattern, [t.lower() for t in texts]) == _lowered(written)


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        ("E", "e"),  # an upper-case letter never matches lower-cased text
        ("[0-a]", "b"),  # a range holding upper-case letters: (?i) adds their lower case
        ("[!-b]", "c"),  # the same, from punctuation
        ("[[:upper:]]", "a"),  # a POSIX class of one case
        ("(?-i:e)", "E"),  # a flag group turning (?i) off
        (r"\x45", "e"),  # an escape naming an upper-case letter
        (r"\p{Lu}", "a"),  # a class of one case
        ("\u017f", "s"),  # a letter beyond ASCII folding to an ASCII one
        ("\u212a", "k"),  # the Kelvin sign folds to k
    ],
)
def test_each_refusal_is_needed(pattern: str, text: str) -> None:
    """Each refused shape matches differently lower-cased, on a text shown."""
    assert not lowered_alike(pattern)
    as_written = _bracketed("(?i)" + pattern, [text])
    assert as_written is not None
    assert _bracketed(pattern, [text.lower()]) != _lowered(as_written)


def test_a_class_open_at_the_end_is_refused() -> None:
    """A union may close a class one pattern opened (``[a`` and ``b]``): the union is read
    whole, and a pattern alone that leaves a class open is not accepted."""
    assert not lowered_alike("[a")
    assert ascii_union(["[a", "b]"]) == ("(?:(?:[a)|(?:b]))", True)  # the class: a)|(?:b


def test_ascii_union_runs_the_union_lowered_when_alike() -> None:
    assert ascii_union([r"\bround \d+", "earlier"]) == ("(?:(?:\\bround [0-9]+)|(?:earlier))", True)
    assert ascii_union([r"\bRound"]) == (r"(?i)(?:(?:\bRound))", False)
    assert pattern_union(["a", "b"]) == "(?i)(?:(?:a)|(?:b))"
