"""The one status palette of every view: colours with checked contrast, and a symbol and a
chart shape beside each colour, so that no status is told by colour alone.

Every status word a rubric emits (OK/WARN/FAIL/N/A, PASS/PENDING, the outcome bands, the
simulation verdicts and the persona REGRESSION) maps to one :class:`Swatch`. The text
colour of a swatch is chosen for WCAG AA contrast (at least 4.5:1) against its fill, and
``on_white`` is the colour to write the status in on a white page (also at least 4.5:1);
``tests/views/test_palette.py`` computes both ratios. HTML scorecards, badges, heat maps
and charts all read this module; nothing else names a status colour.

This module imports nothing heavy (no altair): text and HTML views use it too.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Text colours: white, and the near-black ink of our pages.
WHITE = "#ffffff"
INK = "#1f2328"

#: WCAG 2 AA: the least contrast ratio for normal text.
AA_TEXT = 4.5


@dataclass(frozen=True)
class Swatch:
    """How one status looks.

    Attributes:
        fill: background of a badge, a heat-map cell or a chart mark.
        text: colour of text drawn on ``fill`` (contrast >= 4.5:1).
        on_white: colour of the status written on a white page (contrast >= 4.5:1).
        symbol: a character shown beside the word (``✓``, ``!``, ``✗``, ...).
        shape: the Vega-Lite point shape for this status in charts.
    """

    fill: str
    text: str
    on_white: str
    symbol: str
    shape: str


_GOOD = Swatch("#2e7d32", WHITE, "#2e7d32", "✓", "circle")
_BEST = Swatch("#1b5e20", WHITE, "#1b5e20", "★", "circle")
_FAIR_GOOD = Swatch("#66bb6a", INK, "#2e7d32", "✓", "circle")
_WARN = Swatch("#f9a825", INK, "#7a5200", "!", "triangle-up")
_BAD = Swatch("#c62828", WHITE, "#c62828", "✗", "cross")
#: A regression against a baseline is not a failed threshold: its own hue (purple, not a
#: second red), its own symbol and shape.
_REGRESSED = Swatch("#6a1b9a", WHITE, "#6a1b9a", "▼", "triangle-down")
_NONE = Swatch("#757575", WHITE, "#616161", "–", "square")
_ABSENT = Swatch("#e0e0e0", INK, "#616161", "○", "square")

#: Every status word of every rubric, with its swatch.
SWATCHES: dict[str, Swatch] = {
    "OK": _GOOD,
    "PASS": _GOOD,
    "WARN": _WARN,
    "FAIL": _BAD,
    "N/A": _NONE,
    "PENDING": _NONE,
    "PENDING_RATING": _NONE,
    "REGRESSION": _REGRESSED,
    # Score bands (the outcome rubric), best to worst, and signals without evidence.
    "excellent": _BEST,
    "good": _FAIR_GOOD,
    "fair": _WARN,
    "poor": _BAD,
    "unscored": _NONE,
    "absent": _ABSENT,
    # Verdicts.
    "HEALTHY": _GOOD,
    "DEGRADED": _WARN,
    "FAILED": _BAD,
    "INSUFFICIENT_DATA": _NONE,
}

#: The order statuses are listed in (legends, stacks): best to worst, then no evidence.
STATUS_ORDER: tuple[str, ...] = ("OK", "WARN", "FAIL", "N/A")

#: Any status word not in :data:`SWATCHES`.
UNKNOWN = _NONE


def swatch(status: str) -> Swatch:
    """The swatch of ``status`` (grey for a word no rubric uses)."""
    return SWATCHES.get(status, UNKNOWN)


def relative_luminance(colour: str) -> float:
    """WCAG 2 relative luminance of a ``#rrggbb`` colour (0 = black, 1 = white)."""
    digits = colour.lstrip("#")
    if len(digits) != 6:
        raise ValueError(f"expected a #rrggbb colour, got {colour!r}")
    channels = [int(digits[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast_ratio(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two ``#rrggbb`` colours, from 1 (none) to 21."""
    high, low = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@dataclass(frozen=True)
class Bin:
    """One step of a stepped colour scale, for heat maps whose cells carry labels."""

    label: str
    fill: str
    text: str


#: Integrity deltas (observed - claimed): over-claims red, under-claims blue, agreement
#: near white; a cell's bin is decided by :data:`DELTA_ZERO` and :data:`DELTA_STRONG`.
DELTA_BINS: tuple[Bin, ...] = (
    Bin("over-claim ≥ 0.5", "#b71c1c", WHITE),
    Bin("over-claim < 0.5", "#f4c7c3", INK),
    Bin("agrees", "#f5f5f5", INK),
    Bin("under-claim < 0.5", "#c6dbef", INK),
    Bin("under-claim ≥ 0.5", "#1565c0", WHITE),
)
#: A delta this large (either sign) is a strong over- or under-claim.
DELTA_STRONG = 0.5
#: A delta smaller than this (either sign) counts as agreement.
DELTA_ZERO = 0.005
