"""Plain-text and JSON renderings of scorecards.

Text fits a terminal when given its width (:func:`terminal_style`): a line too long has
its detail wrapped under it, indented. Without a width (output piped to a file or another
program) lines are never wrapped, so the text stays one line per dimension for ``grep``
and ``diff``. Statuses are coloured (ANSI) only on a terminal and only while ``NO_COLOR``
is unset (https://no-color.org).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import textwrap
from bisect import bisect_right
from collections.abc import Collection, Sequence
from typing import Any, TextIO

from toolkit.io.edge import visible
from toolkit.scorecard import FAIL, NA, OK, WARN, Scorecard
from toolkit.scorecard import format_value as format_value  # the views' one score format

#: ANSI colours of statuses and verdicts on a terminal (bold red, bold magenta, yellow, green, dim),
#: for every rubric's words (discussion PASS/PENDING, persona REGRESSION, outcome bands).
_ANSI = {
    FAIL: "1;31",
    "FAILED": "1;31",
    "REGRESSION": "1;35",  # purple, as the palette: a regression is not a FAIL
    "poor": "1;31",
    WARN: "33",
    "DEGRADED": "33",
    "fair": "33",
    OK: "32",
    "PASS": "32",
    "HEALTHY": "32",
    "good": "32",
    "excellent": "32",
    NA: "2",
    "PENDING": "2",
    "PENDING_RATING": "33",
}


def terminal_style(stream: TextIO | None = None) -> tuple[int | None, bool]:
    """``(width, colour)`` for text written to ``stream`` (default: standard output).

    On a terminal: its width (``shutil.get_terminal_size``, which honours ``COLUMNS``)
    and colour unless ``NO_COLOR`` is set or ``TERM=dumb``. Otherwise ``(None, False)``:
    no wrapping and no colour, so piped output is the same bytes whatever the terminal.
    """
    out = stream if stream is not None else sys.stdout
    try:
        tty = out.isatty()
    except (AttributeError, ValueError):
        tty = False
    if not tty:
        return None, False
    colour = not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"
    return shutil.get_terminal_size().columns, colour


def paint(text: str, status: str, colour: bool) -> str:
    """``text`` in the colour of ``status`` when ``colour`` (else unchanged)."""
    code = _ANSI.get(status)
    return f"\x1b[{code}m{text}\x1b[0m" if colour and code else text


def wrap_line(head: str, detail: str, width: int | None, indent: int) -> list[str]:
    """``head`` + ``detail`` on one line, or, past ``width``, the detail wrapped onto the
    following lines indented by ``indent`` spaces (the head itself is never cut)."""
    if width is None:
        return [f"{head}{detail}"]
    line = f"{head}{detail}".rstrip()
    if len(line) <= width:
        return [line]
    room = width - len(head)
    if room >= 24:  # the detail keeps its column
        first, *rest = textwrap.wrap(detail, room, break_on_hyphens=False) or [""]
        pad = " " * len(head)
        return [f"{head}{first}".rstrip(), *(pad + r for r in rest)]
    pad = " " * indent
    return [head.rstrip(), *textwrap.wrap(detail, max(width - indent, 20), initial_indent=pad,
                                          subsequent_indent=pad,
                                          break_on_hyphens=False)]  # fmt: skip


def wrap_item(text: str, width: int | None, *, bullet: str = "  - ", indent: int = 4) -> list[str]:
    """One list item (a warning, an advice line): a single line when ``width`` is None,
    else wrapped to ``width`` with its continuation lines indented under the text."""
    if width is None:
        return [f"{bullet}{text}"]
    return textwrap.wrap(
        text,
        max(width, 20),
        initial_indent=bullet,
        subsequent_indent=" " * indent,
        break_on_hyphens=False,  # file names such as game-role-repetition.json stay whole
        break_long_words=False,  # a path longer than the line runs over, never cut
    ) or [bullet.rstrip()]


def fit_table(
    rows: Sequence[Sequence[str]],
    *,
    right: Collection[int] = (),
    width: int | None = None,
    keys: int = 1,
) -> list[str]:
    """Rows of cells (the first row the header) as aligned columns, two spaces apart.

    When a line would be wider than ``width``, a name in the first column too long to
    leave the other columns room (a run's path) is printed on a line of its own, its row's
    cells on the next line under the column heads (a name wider than ``width`` itself is
    broken after a ``/`` onto lines indented two spaces: whole, never cut); then, if still
    too wide, the columns after the first ``keys`` are split into blocks that fit, each
    block printed as its own table that repeats the key columns, with a blank line between
    blocks: no cell is ever cut or wrapped. A column empty in every row takes no room.

    Args:
        rows: the header, then one row per line; every row as long as the header.
        right: indexes of right-aligned (numeric) columns.
        width: the terminal's width; None: one table whatever its width.
        keys: how many leading columns name a row (repeated in every block).
    """
    if not rows:
        return []
    n = len(rows[0])
    widths = [max(len(r[i]) for r in rows) for i in range(n)]
    long = _long_names(rows, widths, width)
    if long:
        widths[0] = max(len(r[0]) for k, r in enumerate(rows) if k not in long)

    def block(cols: Sequence[int]) -> list[str]:
        out: list[str] = []
        for k, r in enumerate(rows):
            if k in long:
                out += _broken_name(r[0], width)
                r = ["", *r[1:]]
            cells = (r[i].rjust(widths[i]) if i in right else r[i].ljust(widths[i]) for i in cols)
            out.append("  ".join(cells).rstrip())
        return out

    shown = [i for i in range(n) if widths[i] or i == 0]  # a column with nothing in it: none
    key_cols = [i for i in shown if i < keys]
    rest = [i for i in shown if i >= keys]
    total = sum(widths[i] for i in shown) + 2 * (len(shown) - 1)
    if width is None or total <= width or not rest:
        return block(shown)
    base = sum(widths[i] for i in key_cols) + 2 * len(key_cols)
    blocks: list[list[int]] = [[]]
    used = base
    for i in rest:
        if blocks[-1] and used + widths[i] > width:
            blocks.append([])
            used = base
        blocks[-1].append(i)
        used += widths[i] + 2
    out: list[str] = []
    for k, cols in enumerate(blocks):
        if k:
            out.append("")
        out.extend(block([*key_cols, *cols]))
    return out


#: The fewest columns a first column keeps when its long names go on lines of their own.
_NAME_ROOM = 12


def _long_names(
    rows: Sequence[Sequence[str]], widths: Sequence[int], width: int | None
) -> set[int]:
    """The rows (never the header) whose first cell goes on a line of its own: those
    longer than the room the other columns leave in ``width`` (at least a third of it,
    and :data:`_NAME_ROOM`), when the table does not fit as it is."""
    total = sum(widths) + 2 * (len(widths) - 1)
    if width is None or total <= width or len(widths) < 2:
        return set()
    others = sum(widths[1:]) + 2 * sum(1 for w in widths[1:] if w)
    room = max(width - others, width // 3, _NAME_ROOM, len(rows[0][0]))
    return {k for k, r in enumerate(rows) if k and len(r[0]) > room}


def _broken_name(name: str, width: int | None) -> list[str]:
    """``name`` on one line, or, wider than ``width``, broken after a ``/`` (else at the
    width) onto lines indented two spaces: every character kept, in order."""
    if width is None or len(name) <= width:
        return [name]
    lines: list[str] = []
    rest = name
    # at least one character a line: a terminal of two columns or fewer left the indented
    # lines no room (nothing cut off the name: a loop for ever)
    while len(rest) > (room := max(1, width - (2 if lines else 0))):
        cut = rest.rfind("/", 0, room) + 1 or room
        lines.append(("  " if lines else "") + rest[:cut])
        rest = rest[cut:]
    return [*lines, ("  " if lines else "") + rest]


#: The characters one column wide for certain, as inclusive code point ranges in order (the
#: range starts, then their ends): printable ASCII and the blocks wcwidth gives one column
#: to each code point of (Latin-1's printable half, Latin Extended A and B, IPA, spacing
#: modifiers; Greek and Cyrillic letters; general punctuation but its zero-width,
#: line-separating and direction marks; arrows and mathematical operators; geometric
#: shapes but two wide squares). Every character of the toolkit's own views (the ``·``
#: between a card's figures, ``—``, ``→``, ``≥``, ``…``) is in them: a terminal's text
#: needs no wcwidth for them (tests/views/test_text_columns.py holds each against the
#: installed wcwidth).
_NARROW_STARTS = (0x20, 0xA0, 0x370, 0x2010, 0x2030, 0x2190, 0x25A0)
_NARROW_ENDS = (0x7E, 0x2FF, 0x482, 0x2027, 0x205E, 0x22FF, 0x25FC)


def all_narrow(text: str) -> bool:
    """Whether every character of ``text`` is one column wide for certain (in a range of
    :data:`_NARROW_STARTS`): each distinct character looked up once, with no pattern of
    these ranges to compile (a regex of them cost ~0.4 ms, the first line a terminal
    drew in a process; issue 38)."""
    for c in set(text):
        code = ord(c)
        i = bisect_right(_NARROW_STARTS, code) - 1
        if i < 0 or code > _NARROW_ENDS[i]:
            return False
    return True


def text_columns(text: str) -> int:
    """The columns ``text`` takes on a terminal: two for an East Asian wide character,
    none for a combining mark, one for the rest (``wcwidth``, the width table terminals
    follow); a control character (shown by :func:`visible` as its escape) counts none."""
    if text.isascii() or all_narrow(text):
        return len(text)
    # wcwidth's tables (~15 ms of CPU, 30 modules): only for a text with a character
    # :func:`all_narrow` does not know, never on the plain path of one run nor for the
    # views' own characters (tests/test_startup_imports.py)
    from wcwidth import wcwidth

    return sum(max(0, wcwidth(c)) for c in text)


def name_lines(prefix: str, name: str, width: int | None) -> list[str]:
    """``prefix`` and ``name`` (a run's folder, a game's id: :func:`visible`) on one line,
    or, wider than ``width`` columns, the name broken after a ``/`` (else at the width)
    onto lines indented as far as ``prefix``: every character kept, in order, and each
    line within ``width`` measured in terminal columns (:func:`text_columns`)."""
    name = visible(name)
    if width is None or text_columns(prefix + name) <= width:
        return [prefix + name]
    pad = " " * text_columns(prefix)
    room = max(1, width - len(pad))
    lines: list[str] = []
    rest = name
    while text_columns(rest) > room:
        fits = max(1, _fitting(rest, room))  # a character wider than the room takes a line
        cut = rest.rfind("/", 0, fits) + 1 or fits
        lines.append(rest[:cut])
        rest = rest[cut:]
    lines.append(rest)
    return [prefix + lines[0], *(pad + line for line in lines[1:])]


def wrap_columns(text: str, width: int, indent: int) -> list[str]:
    """``text`` wrapped at spaces to ``width`` terminal columns (:func:`text_columns`:
    a CJK character takes two), its continuation lines indented ``indent`` spaces; a word
    wider than a line fills the line it starts on and goes on to the next, as ``textwrap``
    breaks a long word: every character kept."""
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        joined = f"{line} {word}" if line else (" " * indent if lines else "") + word
        if text_columns(joined) <= width:
            line = joined
            continue
        if text_columns(" " * indent + word) <= width:  # fits the next line whole
            lines.append(line)
            line = " " * indent + word
            continue
        while word and text_columns(joined) > width:  # a word wider than a line: break it
            fits = max(len(joined) - len(word) + 1, _fitting(joined, width))
            lines.append(joined[:fits].rstrip())
            word = joined[fits:]
            joined = " " * indent + word
        line = joined
    lines.append(line)
    return lines


def _fitting(text: str, room: int) -> int:
    """How many leading characters of ``text`` fit ``room`` terminal columns."""
    used = 0
    for count, c in enumerate(text):
        used += text_columns(c)
        if used > room:
            return count
    return len(text)


def render_text(
    card: Scorecard,
    *,
    width: int | None = None,
    colour: bool = False,
    thresholds: bool = False,
    held_to: bool = False,
) -> str:
    """The scorecard as lines of text: header, one ``[STATUS]`` line per dimension, verdict.

    Args:
        card: the scorecard.
        width: wrap to this many columns (details under their line); None: never wrap.
        colour: colour the statuses and the verdict with ANSI codes.
        thresholds: also name the rubric and its version under the title and end with
            each dimension's OK and FAIL ranges (what the command line prints).
        held_to: show the threshold each dimension is held to in a column between its
            value and its detail (:func:`held_to_mark`: ``min 0.60`` for a ``>= 0.60``
            pass range); blank for a dimension without one.

    Example::

        Willowbrook · last 50 ticks
          [OK]   Groundedness          0.960  48/50 grounded
          ...
        Verdict: HEALTHY
    """
    # A run's name, its details and warnings come from its files: an ESC or U+202E in
    # them is printed as its escape, never acted on by the terminal.
    title = visible(card.title)
    if width is not None and not title.isascii():  # a wide (CJK) name: by columns
        lines = wrap_columns(title, width, 2)
    else:
        lines = wrap_line("", title, width, 2)
    if thresholds:
        lines.append(f"rubric {card.rubric} {card.rubric_version}")
    name_width = max([len(n) for n in card.dimensions["name"].to_list()] + [10])
    # "[PENDING]" and other long statuses widen the tag column (7 fits "[WARN] ").
    tag_width = max([len(s) + 3 for s in card.dimensions["status"].to_list()] + [7])
    marks = [held_to_mark(g) if held_to else "" for g in card.dimensions["green"].to_list()]
    mark_width = max(len(m) for m in marks) if marks else 0
    for row, mark in zip(card.dimensions.iter_rows(named=True), marks, strict=True):
        tag = f"[{row['status']}]"
        value = format_value(row["value"])
        head = f"  {tag:<{tag_width}}{row['name']:<{name_width + 2}}{value:>7}  "
        if mark_width:
            head += f"{mark:<{mark_width}}  "
        wrapped = wrap_line(head, visible(str(row["detail"])), width, 6)
        wrapped[0] = wrapped[0].replace(tag, paint(tag, row["status"], colour), 1)
        lines.extend(wrapped)
    verdict = f"Verdict: {card.verdict}"
    if card.verdict_reason:
        verdict += f" ({visible(card.verdict_reason)})"
    wrapped = [verdict] if width is None else textwrap.wrap(verdict, width, subsequent_indent="  ")
    wrapped[0] = wrapped[0].replace(card.verdict, paint(card.verdict, card.verdict, colour), 1)
    lines.extend(wrapped)
    if thresholds:
        lines.extend(threshold_lines(card, width))
    if card.warnings:
        lines.append("Warnings:")
        for w in card.warnings:
            lines.extend(wrap_item(visible(w), width))
    return "\n".join(lines)


def held_to_mark(green: str | None) -> str:
    """A dimension's pass range as a short mark: ``>= 0.60`` -> ``min 0.60``, ``<= 5``
    -> ``max 5``; any other range as it is written; none -> ``""``."""
    if not green:
        return ""
    text = green.strip()
    for op, word in ((">=", "min"), ("<=", "max")):
        if text.startswith(op):
            return f"{word} {text[len(op) :].strip()}"
    return text


def threshold_lines(card: Scorecard, width: int | None = None) -> list[str]:
    """``Thresholds (OK | FAIL):`` and one line per dimension with its ranges, wrapped to
    ``width`` at spaces only (no range is cut mid-number)."""
    rows = [
        (r["name"], r["green"] or "-", r["red"] or "-")
        for r in card.dimensions.iter_rows(named=True)
        if r["green"] or r["red"]
    ]
    if not rows:
        return []
    name_width = max(len(n) for n, _, _ in rows)
    lines = ["Thresholds (OK | FAIL):"]
    for name, green, red in rows:
        lines.extend(wrap_line(f"  {name:<{name_width}}  ", f"{green} | {red}", width, 6))
    return lines


def render_json(cards: Scorecard | Sequence[Scorecard], **extra: Any) -> str:
    """One scorecard as a JSON object, or several as ``{"scorecards": [...], **extra}``."""
    if isinstance(cards, Scorecard):
        return json.dumps({**cards.to_dict(), **extra}, indent=2, default=str)
    return json.dumps({"scorecards": [c.to_dict() for c in cards], **extra}, indent=2, default=str)
