"""The terminal columns of a text (:func:`toolkit.views.text.text_columns`).

wcwidth is the reference (the width table terminals follow). The views' own characters
(``·``, ``—``, ``→``, ``≥``) are counted without importing it (~15 ms of CPU a terminal
run paid for the ``·`` between a card's figures): every code point of the blocks counted
as one column is held against the installed wcwidth, and so are generated texts.
"""

from __future__ import annotations

import re
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st
from wcwidth import wcwidth

from toolkit.views.text import all_narrow, text_columns

#: The same ranges as a regex (``re``'s own reading of them: the reference the range
#: lookup answers as): a character that is not one column for certain.
_NOT_NARROW = (
    "[^\\x20-\\x7e\\u00a0-\\u02ff\\u0370-\\u0482\\u2010-\\u2027\\u2030-\\u205e"
    "\\u2190-\\u22ff\\u25a0-\\u25fc]"
)


def _reference(text: str) -> int:
    """The columns as before the fast path: ASCII one a character, else wcwidth's."""
    return len(text) if text.isascii() else sum(max(0, wcwidth(c)) for c in text)


def test_every_character_counted_narrow_without_wcwidth_is_one_column_in_wcwidth() -> None:
    narrow = [chr(i) for i in range(0x80, 0x30000) if all_narrow(chr(i))]
    assert len(narrow) > 1400  # the blocks are there (Latin-1 to geometric shapes)
    wrong = {hex(ord(c)): wcwidth(c) for c in narrow if wcwidth(c) != 1}
    assert wrong == {}


def test_wide_zero_width_and_control_characters_are_left_to_wcwidth() -> None:
    for text in ("名前", "e\u0301", "a\u200bb", "\u2028", "x\x01é", "✅ done", "\u25fd"):
        assert not all_narrow(text), text
        assert text_columns(text) == _reference(text)
    assert text_columns("名前·x") == 6  # two wide, two narrow
    assert text_columns("e\u0301·") == 2


def test_the_range_lookup_answers_as_the_ranges_regex_for_every_code_point() -> None:
    # every code point below U+30000 one at a time: each range's ends and their
    # neighbours among them
    differ = [
        hex(i)
        for i in range(0x30000)
        if all_narrow(chr(i)) != (re.search(_NOT_NARROW, chr(i)) is None)
    ]
    assert differ == []


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_generated_texts_are_narrow_where_the_ranges_regex_finds_nothing(text: str) -> None:
    assert all_narrow(text) == (re.search(_NOT_NARROW, text) is None)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_generated_texts_take_the_columns_wcwidth_gives(text: str) -> None:
    assert text_columns(text) == _reference(text)


def test_a_card_line_of_the_views_own_characters_imports_no_wcwidth() -> None:
    code = (
        "import sys\n"
        "from toolkit.views.text import text_columns\n"
        "assert text_columns('memory 0.80 · threshold ≥ 0.70 — 3 → 4 …') == 40\n"
        "assert 'wcwidth' not in sys.modules, 'wcwidth imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
