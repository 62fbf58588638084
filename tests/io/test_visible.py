"""``edge.visible``: what a terminal or a renderer would act on is written as its escape,
and printable text comes back as it is (issue 38: the pattern is compiled only for a text
``str.isprintable`` refuses, so every character of the class must be one it refuses)."""

from __future__ import annotations

import random

from toolkit.io import edge

#: The invisible characters, from the module's documentation: C0 controls, DEL and the C1
#: controls, zero-width and directional marks, the bidirectional embeddings/overrides and
#: isolates, and the UTF-16 surrogates (inclusive ranges).
RANGES = [(0x00, 0x1F), (0x7F, 0x9F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2066, 0x2069),
          (0xD800, 0xDFFF)]  # fmt: skip


def _invisible(code: int) -> bool:
    return any(low <= code <= high for low, high in RANGES)


def _reference(text: str) -> str:
    """The escape of each invisible character: ``\\xHH`` below 0x100, else ``\\uHHHH``."""
    out = []
    for ch in text:
        code = ord(ch)
        if not _invisible(code):
            out.append(ch)
        elif code < 0x100:
            out.append("\\x" + format(code, "02x"))
        else:
            out.append("\\u" + format(code, "04x"))
    return "".join(out)


def test_every_invisible_character_is_one_isprintable_refuses_and_is_escaped() -> None:
    for low, high in RANGES:
        for code in range(low, high + 1):
            ch = chr(code)
            assert not ch.isprintable(), hex(code)
            assert edge.visible(f"a{ch}b") == "a" + _reference(ch) + "b"


def test_written_out_escapes() -> None:
    assert edge.visible("run\x1b[31m") == "run\\x1b[31m"
    assert edge.visible("tab\there") == "tab\\x09here"
    assert edge.visible("\x7f\x85") == "\\x7f\\x85"
    assert edge.visible("evil\u202etxt.exe") == "evil\\u202etxt.exe"
    assert edge.visible("zero\u200bwidth") == "zero\\u200bwidth"
    assert edge.visible("lone \ud800") == "lone \\ud800"


def test_printable_text_and_other_unprintable_characters_are_kept() -> None:
    for text in ("tick_42", "ashfall · Ashfall ✓ é 名前", "", "a b"):
        assert edge.visible(text) == text
    # not printable for Python, yet not in the class: a no-break space, a line separator
    assert edge.visible("a\u00a0b\u2028c") == "a\u00a0b\u2028c"


def test_visible_equals_the_reference_on_random_text() -> None:
    rng = random.Random(38)
    pool = [*"abc é✓名", "\x00", "\x1b", "\n", "\x7f", "\x9f", "\u200b", "\u200f", "\u202a",
            "\u202e", "\u2066", "\u2069", "\ud800", "\udfff", "\u00a0", "\u2028",
            "\u2070"]  # fmt: skip
    for _ in range(2000):
        text = "".join(rng.choice(pool) for _ in range(rng.randrange(0, 12)))
        assert edge.visible(text) == _reference(text), repr(text)
    assert edge.visible_lines("a\x1b\nb\u202e") == "a\\x1b\nb\\u202e"
