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

from toolkit.views.text import _NOT_NARROW, text_columns


def _reference(text: str) -> int:
    """The columns as before the fast path: ASCII one a character, else wcwidth's."""
    return len(text) if text.isascii() else sum(max(0, wcwidth(c)) for c in text)


def test_every_character_counted_narrow_without_wcwidth_is_one_column_in_wcwidth() -> None:
    narrow = [chr(i) for i in range(0x80, 0x30000) if not re.search(_NOT_NARROW, chr(i))]
    assert len(narrow) > 1400  # the blocks are there (Latin-1 to geometric shapes)
    wrong = {hex(ord(c)): wcwidth(c) for c in narrow if wcwidth(c) != 1}
    assert wrong == {}


def test_wide_zero_width_and_control_characters_are_left_to_wcwidth() -> None:
    for text in ("名前", "e\u0301", "a\u200bb", "\u2028", "x\x01é", "✅ done", "\u25fd"):
        assert re.search(_NOT_NARROW, text), text
        assert text_columns(text) == _reference(text)
    assert text_columns("名前·x") == 6  # two wide, two narrow
    assert text_columns("e\u0301·") == 2


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
