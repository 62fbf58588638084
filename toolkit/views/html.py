"""HTML for notebooks, reports and CI artefacts: the scorecard, and the helpers every HTML
view uses (text escaping, the wrapper, status badges, table style).

Every HTML fragment a view returns goes through :func:`wrap`, and every piece of text in it
through :func:`text`: JupyterLab typesets ``$…$`` in HTML outputs as maths, so ``text``
writes ``$`` as ``&#36;`` and ``wrap`` marks the fragment ``mathjax_ignore`` (MathJax 3;
``tex2jax_ignore`` for MathJax 2), and its style left-aligns text cells, which JupyterLab
otherwise right-aligns.
"""

from __future__ import annotations

from html import escape

from toolkit._show import Summary
from toolkit.scorecard import Scorecard
from toolkit.views.palette import SWATCHES, swatch
from toolkit.views.text import format_value

#: Fill colour per status (from :mod:`toolkit.views.palette`); kept for callers that only
#: need a colour.
STATUS_COLOURS: dict[str, str] = {status: s.fill for status, s in SWATCHES.items()}

#: Fill colour per simulation verdict.
VERDICT_COLOURS: dict[str, str] = {
    v: SWATCHES[v].fill for v in ("HEALTHY", "DEGRADED", "FAILED", "INSUFFICIENT_DATA")
}

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


def text(value: object) -> str:
    """``value`` as HTML text: ``&<>"'`` escaped, and ``$`` as ``&#36;`` so that no
    notebook typesets it as maths."""
    return escape(str(value)).replace("$", "&#36;")


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


def status_colour(status: str) -> str:
    """The fill colour used for ``status`` in HTML and charts."""
    return swatch(status).fill


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


def render_html(card: Scorecard) -> str:
    """The scorecard as an HTML fragment: a table with a badge per status, and the verdict."""
    rows = [
        [
            badge(row["status"]),
            text(row["name"]),
            text(format_value(row["value"])),
            text(row["detail"]),
            text(row["green"]),
            text(row["red"]),
        ]
        for row in card.dimensions.iter_rows(named=True)
    ]
    reason = f" — {text(card.verdict_reason)}" if card.verdict_reason else ""
    warnings = "".join(f"<li>{text(w)}</li>" for w in card.warnings)
    body = (
        f"<h3>{text(card.title)}</h3>"
        + table(
            ["status", "dimension", "score", "detail", "green", "red"],
            rows,
            numeric=frozenset({2}),
        )
        + f"<p class='tk-verdict'>Verdict: {badge(card.verdict)}{reason}</p>"
        + (f"<ul class='tk-warn'>{warnings}</ul>" if warnings else "")
        + f"<p class='tk-muted'>rubric {text(card.rubric)} {text(card.rubric_version)}</p>"
    )
    return wrap(body, "tk-scorecard", rubric=card.rubric, verdict=card.verdict)


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


def render_html_page(card: Scorecard) -> str:
    """A complete standalone HTML document holding :func:`render_html`."""
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f"<title>{text(card.title)}</title></head><body>{render_html(card)}</body></html>"
    )
