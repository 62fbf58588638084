"""Standalone HTML rendering of a scorecard (for notebooks, reports and CI artefacts)."""

from __future__ import annotations

from html import escape

from toolkit.scorecard import FAIL, NA, OK, WARN, Scorecard
from toolkit.views.text import format_value

#: Background colour per status; rubrics with other status words fall back to grey.
STATUS_COLOURS: dict[str, str] = {
    OK: "#2e7d32",
    WARN: "#f9a825",
    FAIL: "#c62828",
    NA: "#9e9e9e",
    "PASS": "#2e7d32",
    "PENDING": "#9e9e9e",
    # Score bands (the outcome rubric), best to worst, and signals without evidence.
    "excellent": "#1b5e20",
    "good": "#66bb6a",
    "fair": "#f9a825",
    "poor": "#c62828",
    "unscored": "#9e9e9e",
    "absent": "#bdbdbd",
}

VERDICT_COLOURS: dict[str, str] = {
    "HEALTHY": STATUS_COLOURS[OK],
    "DEGRADED": STATUS_COLOURS[WARN],
    "FAILED": STATUS_COLOURS[FAIL],
    "INSUFFICIENT_DATA": STATUS_COLOURS[NA],
}

_STYLE = (
    "<style>"
    ".tk-card{font-family:system-ui,sans-serif;border-collapse:collapse;margin:.5em 0}"
    ".tk-card th,.tk-card td{padding:4px 10px;border-bottom:1px solid #ddd;text-align:left}"
    ".tk-status{color:#fff;font-weight:600;border-radius:3px;padding:2px 6px}"
    ".tk-verdict{font-family:system-ui,sans-serif;font-size:1.1em;margin:.3em 0}"
    ".tk-warn{font-family:system-ui,sans-serif;color:#6d4c00}"
    "</style>"
)


def status_colour(status: str) -> str:
    """The colour used for ``status`` in HTML and charts."""
    return STATUS_COLOURS.get(status, "#757575")


def render_html(card: Scorecard) -> str:
    """The scorecard as an HTML fragment: a table with coloured status cells and the verdict."""
    rows = []
    for row in card.dimensions.iter_rows(named=True):
        colour = status_colour(row["status"])
        rows.append(
            "<tr>"
            f"<td><span class='tk-status' style='background:{colour}'>"
            f"{escape(row['status'])}</span></td>"
            f"<td>{escape(row['name'])}</td>"
            f"<td style='text-align:right'>{escape(format_value(row['value']))}</td>"
            f"<td>{escape(row['detail'])}</td>"
            f"<td>{escape(row['green'])}</td><td>{escape(row['red'])}</td>"
            "</tr>"
        )
    verdict_colour = VERDICT_COLOURS.get(card.verdict, status_colour(card.verdict))
    reason = f" — {escape(card.verdict_reason)}" if card.verdict_reason else ""
    warnings = "".join(f"<li>{escape(w)}</li>" for w in card.warnings)
    return (
        f"{_STYLE}<div class='tk-scorecard' data-rubric='{escape(card.rubric)}' "
        f"data-verdict='{escape(card.verdict)}'>"
        f"<h3 style='font-family:system-ui,sans-serif'>{escape(card.title)}</h3>"
        "<table class='tk-card'><thead><tr><th>status</th><th>dimension</th><th>score</th>"
        "<th>detail</th><th>green</th><th>red</th></tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table>"
        f"<p class='tk-verdict'>Verdict: <b style='color:{verdict_colour}'>"
        f"{escape(card.verdict)}</b>{reason}</p>"
        + (f"<ul class='tk-warn'>{warnings}</ul>" if warnings else "")
        + f"<p style='font-size:.8em;color:#666'>rubric {escape(card.rubric)} "
        f"{escape(card.rubric_version)}</p></div>"
    )


def render_html_page(card: Scorecard) -> str:
    """A complete standalone HTML document holding :func:`render_html`."""
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f"<title>{escape(card.title)}</title></head><body>{render_html(card)}</body></html>"
    )
