"""The one status palette of every view: colours with checked contrast, and a symbol and a
chart shape beside each colour, so that no status is told by colour alone.

Every status word a rubric emits (OK/WARN/FAIL/N/A, PASS/PENDING, the outcome bands, the
simulation verdicts and the persona REGRESSION) maps to one :class:`Swatch`. The text
colour of a swatch is chosen for WCAG AA contrast (at least 4.5:1) against its fill, and
``on_white`` is the colour to write the status in on a white page (also at least 4.5:1);
``tests/views/test_palette.py`` computes both ratios. HTML scorecards, badges, heat maps
and charts all read this module; nothing else names a status colour.

The swatches themselves (:class:`Swatch`, :data:`SWATCHES`, :func:`swatch`) are defined in
the leaf :mod:`toolkit._html`, so that a result draws its badges without importing the
views; this module names them for the views, beside the contrast arithmetic and the
heat-map bins. It imports nothing heavy (no altair): text and HTML views use it too.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolkit._html import INK, SWATCHES, UNKNOWN, WHITE, Swatch, swatch

__all__ = [
    "AA_TEXT",
    "DELTA_BINS",
    "DELTA_STRONG",
    "DELTA_ZERO",
    "INK",
    "STATUS_ORDER",
    "SWATCHES",
    "UNKNOWN",
    "WHITE",
    "Bin",
    "Swatch",
    "contrast_ratio",
    "relative_luminance",
    "swatch",
]

#: WCAG 2 AA: the least contrast ratio for normal text.
AA_TEXT = 4.5

#: The order statuses are listed in (legends, stacks): best to worst, then no evidence.
STATUS_ORDER: tuple[str, ...] = ("OK", "WARN", "FAIL", "N/A")


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
