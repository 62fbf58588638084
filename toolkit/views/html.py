"""HTML for notebooks, reports and CI artefacts: the scorecard, and the helpers every HTML
view uses (text escaping, the wrapper, status badges, table style).

The helpers are defined once in the leaf :mod:`toolkit._html` (a result draws its own
notebook HTML there without importing the views) and named here for the views. Every HTML
fragment a view returns goes through :func:`wrap`, and every piece of text in it through
:func:`text`: JupyterLab typesets ``$…$`` in HTML outputs as maths, so ``text`` writes
``$`` as ``&#36;`` and ``wrap`` marks the fragment ``mathjax_ignore`` (MathJax 3;
``tex2jax_ignore`` for MathJax 2), and its style left-aligns text cells, which JupyterLab
otherwise right-aligns.
"""

from __future__ import annotations

from toolkit._html import (
    BADGE_COLUMNS,
    NO_MATHS,
    STYLE,
    SUMMARY_MAX_ROWS,
    badge,
    render_summary,
    table,
    text,
    wrap,
)
from toolkit.scorecard import Scorecard
from toolkit.views.palette import SWATCHES, swatch

__all__ = [
    "BADGE_COLUMNS",
    "NO_MATHS",
    "STATUS_COLOURS",
    "STYLE",
    "SUMMARY_MAX_ROWS",
    "VERDICT_COLOURS",
    "badge",
    "render_html",
    "render_html_page",
    "render_summary",
    "status_colour",
    "table",
    "text",
    "wrap",
]

#: Fill colour per status (from :mod:`toolkit.views.palette`); kept for callers that only
#: need a colour.
STATUS_COLOURS: dict[str, str] = {status: s.fill for status, s in SWATCHES.items()}

#: Fill colour per simulation verdict.
VERDICT_COLOURS: dict[str, str] = {
    v: SWATCHES[v].fill for v in ("HEALTHY", "DEGRADED", "FAILED", "INSUFFICIENT_DATA")
}


def status_colour(status: str) -> str:
    """The fill colour used for ``status`` in HTML and charts."""
    return swatch(status).fill


def render_html(card: Scorecard) -> str:
    """The scorecard as an HTML fragment: a table with a badge per status, and the verdict
    (what the card shows in a notebook, drawn by :func:`toolkit._html.render_card`)."""
    return card._repr_html_()


def render_html_page(card: Scorecard) -> str:
    """A complete standalone HTML document holding :func:`render_html`."""
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f"<title>{text(card.title)}</title></head><body>{render_html(card)}</body></html>"
    )
