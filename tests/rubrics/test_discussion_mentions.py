"""Whether a message names a player (:func:`toolkit.rubrics.discussion.text.mentions`):
a whole word, the name case-insensitively. Issue 38 scoped the case-insensitive flag to
the name alone (the Unicode class of non-word characters is costly to case-fold, and a
pattern is compiled per distinct name); here it answers as the whole-pattern ``(?i)``
form, written out as the reference, on names and texts chosen to probe the difference.
"""

from __future__ import annotations

import random
import re

import polars as pl
import pytest

from toolkit.rubrics.discussion.text import mentions

NAMES = ["Alice", "bob", "Mary-Jane", "a.b", "(x)", "Zoë", "STRASSE", "ß", "\u212a", "k", "İ",
         "Σ", "ς", "J$1", "back\\slash", "", None, "Bob!", "!Bob", "x!", "e\u0301", "a\u200d", "_b",
         "9", "a b", "Al\nice"]  # fmt: skip
TEXTS = [
    "alice said so", "ALICE!", "Malice", "Alice_", "I trust BOB.", "mary-jane, mary jane",
    "aXb a.b", "(X) wins", "zoË", "strasse", "STRASSE", "ẞ and ß", "K and k", "i̇ İ",
    "σ Σ ς", "j$1", "back\\SLASH", "", "…Alice…", "Alice\nBob", "bob!!", "xbob!", "bob!x",
    "!bobx", "x!!", "e\u0301x", "E\u0301 e\u0301", "a\u200d", "a\u200db", "__b", "_b", "99 9",
    "A B", "al\nice",
]  # fmt: skip


def _reference(text: str, name: str | None) -> bool:
    """The earlier pattern, ``(?i)`` over all of it, compiled one name at a time by the
    same engine (Polars' regex)."""
    if not name or not name.strip():  # no name, or one of no character but blanks (which
        # the earlier pattern found in "Hello!" or "x,  y")
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


def test_generated_names_and_texts_answer_as_the_reference() -> None:
    """Issue 38 bounds a name that starts and ends with a word character by ``\\b`` (a
    cheaper pattern to compile): over names and texts drawn from word characters (ASCII,
    accented, a combining mark, the zero-width joiner, ``_``, digits) and non-word ones,
    it answers as the reference every time."""
    alphabet = ["a", "B", "é", "\u0301", "\u200d", "_", "7", " ", "!", ".", "-", "\n", "\u212a"]
    rng = random.Random(38)
    names = ["".join(rng.choices(alphabet, k=rng.randint(1, 3))) for _ in range(40)]
    texts = ["".join(rng.choices(alphabet, k=rng.randint(0, 8))) for _ in range(40)]
    pairs = [(text, name) for name in names for text in texts[:10]]
    pairs += list(zip(texts, names, strict=True))
    frame = pl.DataFrame({"text": [t for t, _ in pairs], "name": [n for _, n in pairs]})
    got = frame.select(mentions(pl.col("text"), pl.col("name"))).to_series().to_list()
    assert got == [_reference(text, name) for text, name in pairs]


def test_an_empty_name_is_mentioned_by_no_text() -> None:
    """A player of no name is named by no message: the whole-word pattern of an empty name
    matched wherever two non-word characters meet or one ends the text ("Hello!")."""
    texts = ["Hello!", "", "a, b", "plain words"]
    frame = pl.DataFrame({"text": texts, "name": [""] * len(texts)})
    got = frame.select(mentions(pl.col("text"), pl.col("name"))).to_series().to_list()
    assert got == [False] * len(texts)


def test_a_name_of_spaces_only_is_mentioned_by_no_text() -> None:
    """A player whose name is only blanks is named by no message either (its pattern matched
    "x,  y", where two spaces follow a comma); a name with blanks around a word still is."""
    texts = ["x,  y", "  ", "Hello there"]
    frame = pl.DataFrame({"text": texts, "name": ["  "] * len(texts)})
    got = frame.select(mentions(pl.col("text"), pl.col("name"))).to_series().to_list()
    assert got == [False] * len(texts)
    padded = pl.DataFrame({"text": ["ask  Wren  now"], "name": [" Wren "]})
    assert padded.select(mentions(pl.col("text"), pl.col("name"))).item() is True
