"""Whether a message names a player (:func:`toolkit.rubrics.discussion.text.mentions`):
a whole word, the name case-insensitively. Issue 38 scoped the case-insensitive flag to
the name alone (the Unicode class of non-word characters is costly to case-fold, and a
pattern is compiled per distinct name); here it answers as the whole-pattern ``(?i)``
form, written out as the reference, on names and texts chosen to probe the difference.
"""

from __future__ import annotations

import re

import polars as pl
import pytest

from toolkit.rubrics.discussion.text import mentions

NAMES = ["Alice", "bob", "Mary-Jane", "a.b", "(x)", "Zoë", "STRASSE", "ß", "\u212a", "k", "İ",
         "Σ", "ς", "J$1", "back\\slash", "", None]  # fmt: skip
TEXTS = [
    "alice said so", "ALICE!", "Malice", "Alice_", "I trust BOB.", "mary-jane, mary jane",
    "aXb a.b", "(X) wins", "zoË", "strasse", "STRASSE", "ẞ and ß", "K and k", "i̇ İ",
    "σ Σ ς", "j$1", "back\\SLASH", "", "…Alice…", "Alice\nBob",
]  # fmt: skip


def _reference(text: str, name: str | None) -> bool:
    """The earlier pattern, ``(?i)`` over all of it, compiled one name at a time by the
    same engine (Polars' regex)."""
    if name is None:
        return False
    escaped = re.sub(r"([.*+?^$()\[\]{}|\\])", r"\\\1", name)
    pattern = r"(?i)(?:^|[^\w])" + escaped + r"(?:[^\w]|$)"
    return bool(pl.Series([text]).str.contains(pattern).item())


@pytest.mark.parametrize("name", NAMES)
def test_mentions_answers_as_the_whole_pattern_case_insensitive_form(name: str | None) -> None:
    frame = pl.DataFrame(
        {"text": TEXTS, "name": [name] * len(TEXTS)}, schema={"text": pl.String, "name": pl.String}
    )
    got = frame.select(mentions(pl.col("text"), pl.col("name"))).to_series().to_list()
    assert got == [_reference(text, name) for text in TEXTS]


def test_a_name_is_matched_whatever_its_case_and_only_as_a_whole_word() -> None:
    frame = pl.DataFrame({"text": ["ALICE!", "Malice", "alice_x"], "name": ["Alice"] * 3})
    got = frame.select(mentions(pl.col("text"), pl.col("name"))).to_series().to_list()
    assert got == [True, False, False]
