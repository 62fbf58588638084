"""How a result draws itself in HTML, from plain rows: the escaping, the wrapper, the one
style sheet, the status colours and badges, tables, a result's summary and a scorecard's
card.

A leaf beside :mod:`toolkit.summary` (like polars' ``dataframe/_html.py``). It registers
:func:`render_summary` and :func:`render_card` as the drawers of a result's summary and of
a scorecard (:func:`toolkit.summary.register_html`) when it is imported (the package's
front door registers stand-ins that import it when the first result is drawn): loaders,
rubrics and the scorecard say what they hold and import no drawing code, and
:mod:`toolkit.views` builds its pages on the same helpers (:mod:`toolkit.views.html`,
:mod:`toolkit.views.palette`).

Every HTML fragment goes through :func:`wrap`, and every piece of text in it through
:func:`text`: JupyterLab typesets ``$…$`` in HTML outputs as maths, so ``text`` writes
``$`` as ``&#36;`` and ``wrap`` marks the fragment ``mathjax_ignore`` (MathJax 3;
``tex2jax_ignore`` for MathJax 2), and its style left-aligns text cells, which JupyterLab
otherwise right-aligns.

The status colours are the one palette of every view: the text colour of a swatch is
chosen for WCAG AA contrast (at least 4.5:1) against its fill, and ``on_white`` is the
colour to write the status in on a white page (also at least 4.5:1);
``tests/views/test_palette.py`` computes both ratios. Nothing else names a status colour.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from toolkit.summary import Summary, register_html

#: Text colours: white, and the near-black ink of our pages.
WHITE = "#ffffff"
INK = "#1f2328"


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

#: Any status word not in :data:`SWATCHES`.
UNKNOWN = _NONE


def swatch(status: str) -> Swatch:
    """The swatch of ``status`` (grey for a word no rubric uses)."""
    return SWATCHES.get(status, UNKNOWN)


#: Classes that tell MathJax (3, and 2) to leave a subtree alone.
NO_MATHS = "mathjax_ignore tex2jax_ignore"

#: The one style sheet of our HTML. ``.tk-html table.tk-table td`` outranks JupyterLab's
#: ``:not(.jp-RenderedMarkdown).jp-RenderedHTMLCommon td`` (which right-aligns).
STYLE = (
    "<style>"
    ".tk-html{font-family:system-ui,sans-serif;color:#1f2328}"
    ".tk-html table.tk-table{border-collapse:collapse;margin:.5em 0}"
    ".tk-html table.tk-table th,.tk-html table.tk-table td{padding:4px 10px;"
    "border-bottom:1px solid #ddd;text-align:left;vertical-align:top}"
    ".tk-html table.tk-table td.num,.tk-html table.tk-table th.num{text-align:right;"
    "font-variant-numeric:tabular-nums}"
    ".tk-status{font-weight:600;border-radius:3px;padding:2px 6px;white-space:nowrap}"
    ".tk-verdict{font-size:1.1em;margin:.3em 0}"
    ".tk-warn{color:#6d4c00}"
    ".tk-muted{font-size:.8em;color:#555}"
    "</style>"
)


#: The bidirectional controls that reorder the text after them (embeddings, overrides,
#: isolates), each to its escape (``\u202e``), as the terminal output and the pages of
#: ``toolkit view`` show them; LRM, RLM and the joiners a script needs stay.
_BIDI_SHOWN = {c: f"\\u{c:04x}" for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))}


def text(value: object) -> str:
    """``value`` as HTML text: ``&<>"'`` escaped, ``$`` as ``&#36;`` so that no notebook
    typesets it as maths, and a bidirectional override (U+202E) or the like as its escape
    (``run<U+202E>evil.json`` would read ``runnosj.live``)."""
    # html imports its 2,231 named entities (~2 ms of every toolkit import, issue 38): only
    # when something is drawn as HTML
    from html import escape

    return escape(str(value).translate(_BIDI_SHOWN)).replace("$", "&#36;")


def wrap(fragment: str, kind: str = "", **data: str) -> str:
    """``fragment`` inside the one wrapper every HTML view returns: our style sheet, a
    ``tk-html`` ``<div>`` (plus the class ``kind``) that MathJax skips, and ``data-*``
    attributes from ``data``."""
    classes = " ".join(c for c in (kind, "tk-html", NO_MATHS) if c)
    attrs = "".join(f" data-{k.replace('_', '-')}='{text(v)}'" for k, v in data.items())
    return f"<div class='{classes}'{attrs}>{STYLE}{fragment}</div>"


def badge(status: str, label: str | None = None) -> str:
    """``status`` as a coloured badge with its symbol beside the word (the palette's text
    colour on the palette's fill, contrast checked); ``label``: other words in the
    status's colours (``inside``, ``below the band``)."""
    s = swatch(status)
    return (
        f"<span class='tk-status' style='background:{s.fill};color:{s.text}'>"
        f"{text(s.symbol)} {text(status if label is None else label)}</span>"
    )


def table(headers: list[str], rows: list[list[str]], numeric: frozenset[int] = frozenset()) -> str:
    """An HTML table of already-escaped cells (no header row when ``headers`` is empty);
    columns in ``numeric`` are right-aligned, all others left-aligned."""

    def cls(i: int) -> str:
        return " class='num'" if i in numeric else ""

    head = "".join(f"<th{cls(i)}>{h}</th>" for i, h in enumerate(headers))
    body = "".join(
        "<tr>" + "".join(f"<td{cls(i)}>{c}</td>" for i, c in enumerate(row)) + "</tr>"
        for row in rows
    )
    thead = f"<thead><tr>{head}</tr></thead>" if headers else ""
    return f"<table class='tk-table'>{thead}<tbody>{body}</tbody></table>"


def render_card(
    title: str,
    rows: Iterable[Sequence[str]],
    *,
    verdict: str,
    verdict_reason: str,
    warnings: Iterable[str],
    rubric: str,
    rubric_version: str,
) -> str:
    """A scorecard as an HTML fragment: a table with a badge per status, and the verdict.

    ``rows``: one ``(status, name, score, detail, green, red)`` per dimension, the score
    already written as people read it (:func:`toolkit.scorecard.format_value`)."""
    cells = [[badge(status), *(text(cell) for cell in rest)] for status, *rest in rows]
    reason = f" — {text(verdict_reason)}" if verdict_reason else ""
    listed = "".join(f"<li>{text(w)}</li>" for w in warnings)
    body = (
        f"<h3>{text(title)}</h3>"
        + table(
            ["status", "dimension", "score", "detail", "green", "red"],
            cells,
            numeric=frozenset({2}),
        )
        + f"<p class='tk-verdict'>Verdict: {badge(verdict)}{reason}</p>"
        + (f"<ul class='tk-warn'>{listed}</ul>" if listed else "")
        + f"<p class='tk-muted'>rubric {text(rubric)} {text(rubric_version)}</p>"
    )
    return wrap(body, "tk-scorecard", rubric=rubric, verdict=verdict)


#: Summary table columns whose cells are drawn as status badges.
BADGE_COLUMNS = frozenset({"status", "verdict"})

#: How many notes (issues, warnings) and table rows the HTML summary lists.
SUMMARY_MAX_ROWS = 20


def render_summary(summary: Summary) -> str:
    """A result object's HTML form: its headline, a table of counts, an optional table
    of rows, and its issues or warnings (the first :data:`SUMMARY_MAX_ROWS` of each)."""
    parts = [f"<p><b>{text(summary.kind)}</b> {text(summary.headline)}</p>"]
    if summary.facts:
        parts.append(
            table(
                [],
                [[text(label.rstrip(":")), text(value)] for label, value in summary.facts],
                numeric=frozenset({1}),
            )
        )
    if summary.columns:
        shown = summary.rows[:SUMMARY_MAX_ROWS]
        parts.append(
            table(
                [text(c) for c in summary.columns],
                [
                    [
                        badge(c) if col in BADGE_COLUMNS else text(c)
                        for col, c in zip(summary.columns, row, strict=True)
                    ]
                    for row in shown
                ],
            )
        )
        if len(summary.rows) > len(shown):
            parts.append(f"<p class='tk-muted'>… {len(summary.rows) - len(shown)} more</p>")
    if summary.notes:
        items = "".join(f"<li>{text(n)}</li>" for n in summary.notes[:SUMMARY_MAX_ROWS])
        more = len(summary.notes) - SUMMARY_MAX_ROWS
        if more > 0:
            items += f"<li>… {more} more</li>"
        parts.append(
            f"<p>{text(summary.notes_title)} ({len(summary.notes)}):</p>"
            f"<ul class='tk-warn'>{items}</ul>"
        )
    return wrap("".join(parts), "tk-summary", summary=summary.kind)


register_html("summary", render_summary)
register_html("scorecard", render_card)
