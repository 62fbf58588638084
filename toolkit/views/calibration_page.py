"""The charts and the HTML page of a :class:`~toolkit.rubrics.calibrate.Calibration`.

* :func:`band_chart`: alpha of the other humans and alpha with the judge in place of each
  human, over the humans' leave-one-out band (shaded) and the humans' own alpha (dashed).
* :func:`bias_chart`: the judge's bias (judge - human mean) overall and per group value,
  with its bootstrap interval.
* :func:`render_calibration_page`: one standalone HTML file (``toolkit calibrate
  --html``): the headline numbers with what each means, both charts as inline SVG drawn
  by vl-convert (no script, no CDN: it opens from ``file://`` offline), the confusion
  table, and the top disagreements side by side (the judge's score and reasoning | each
  rater's score and note | the evidence, linked to ``source#anchor`` when known).

Statuses carry a symbol and a shape beside their colour (:mod:`toolkit.views.palette`).
Altair and vl-convert are imported when a chart is drawn.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import polars as pl

from toolkit.rubrics.calibrate import Calibration, gate_failures
from toolkit.views.calibration_alt import alt_test_html
from toolkit.views.charts import threshold_lines
from toolkit.views.html import badge, table, text, wrap
from toolkit.views.palette import swatch

if TYPE_CHECKING:
    import altair as alt

    from toolkit.rubrics.alt_test import AltTest

__all__ = [
    "band_chart",
    "band_frame",
    "bias_chart",
    "bias_frame",
    "calibration_html",
    "render_calibration_page",
]

#: The band chart's three kinds of point, their palette status (colour, shape, symbol).
BAND_KINDS: dict[str, str] = {
    "the other humans": "N/A",
    "judge in place: inside the band": "OK",
    "judge in place: below the band": "FAIL",
    "judge in place: no band": "N/A",
}
#: Shapes that differ from the status's own (two kinds share the grey of N/A).
KIND_SHAPES: dict[str, str] = {"judge in place: no band": "diamond"}
#: The bias chart's kinds: an interval that excludes 0 is a bias, not noise.
BIAS_KINDS: dict[str, str] = {
    "interval includes 0": "OK",
    "interval excludes 0": "WARN",
    "no interval": "N/A",
}
#: Link schemes a source may have on the page (anything else is shown, never linked).
LINK_SCHEMES = ("http", "https", "file")


def band_frame(result: Calibration) -> pl.DataFrame:
    """The band chart's points: per left-out human (``left_out``), ``kind`` (a key of
    :data:`BAND_KINDS`) and ``alpha`` (undefined alphas are left out)."""
    rows: list[dict[str, Any]] = []
    for r in result.band.iter_rows(named=True):
        if r["alpha_without"] is not None:
            rows.append(
                {"left_out": r["left_out"], "kind": "the other humans", "alpha": r["alpha_without"]}
            )
        if r["alpha_replaced"] is not None:
            kind = {
                True: "judge in place: inside the band",
                False: "judge in place: below the band",
                None: "judge in place: no band",  # fewer than three humans
            }[r["inside"]]
            rows.append({"left_out": r["left_out"], "kind": kind, "alpha": r["alpha_replaced"]})
    return pl.DataFrame(
        rows, schema={"left_out": pl.String(), "kind": pl.String(), "alpha": pl.Float64()}
    )


def _kind_scales(kinds: dict[str, str]) -> tuple[Any, Any]:
    import altair as alt  # altair (seconds, jsonschema): only when a chart is drawn

    domain = list(kinds)
    colour = alt.Scale(domain=domain, range=[swatch(s).fill for s in kinds.values()])
    shape = alt.Scale(
        domain=domain, range=[KIND_SHAPES.get(k, swatch(s).shape) for k, s in kinds.items()]
    )
    return colour, shape


def band_chart(
    result: Calibration, min_alpha: float | None = None
) -> alt.LayerChart | alt.FacetChart:
    """Is the judge inside the human band? One row per human left out: alpha of the
    other humans (grey square) and alpha with the judge in that human's place (a green
    circle inside the band, a red cross below it, a grey diamond when there is no band:
    fewer than three humans); the band from the lowest to the
    highest leave-one-out alpha is shaded, the humans' own alpha is a dashed line, and
    ``min_alpha`` (a gate) a red dashed line."""
    import altair as alt  # altair (seconds, jsonschema): only when a chart is drawn

    frame = band_frame(result)
    colour, shape = _kind_scales(BAND_KINDS)
    values = frame["alpha"].to_list() + [
        v for v in (result.alpha_humans, min_alpha, result.band_low) if v is not None
    ]
    low = math.floor((min(values, default=0.0) - 0.05) * 10) / 10  # room left of the lowest
    domain = [max(low, -1.0), 1.0]
    x = alt.X("alpha:Q", title="Krippendorff's alpha", scale=alt.Scale(domain=domain, zero=False))
    order = list(result.humans)
    layers: list[Any] = []
    if result.band_low is not None:
        layers.append(
            alt.Chart(pl.DataFrame({"low": [result.band_low], "high": [result.band_high]}))
            .mark_rect(color="#9e9e9e", opacity=0.25)
            .encode(x=alt.X("low:Q"), x2="high:Q", tooltip=["low:Q", "high:Q"])
        )
    lines = []
    if result.alpha_humans is not None:
        lines.append({"value": result.alpha_humans, "status": "N/A", "label": "all humans"})
    if min_alpha is not None:
        lines.append({"value": min_alpha, "status": "FAIL", "label": f"gate {min_alpha:g}"})
    if lines:
        layers += threshold_lines(pl.DataFrame(lines), axis="x")
    layers.append(
        alt.Chart(frame)
        .mark_point(filled=True, size=110, opacity=1)
        .encode(
            x=x,
            y=alt.Y("left_out:N", sort=order, title="human left out"),
            color=alt.Color("kind:N", scale=colour, title=None, legend=alt.Legend(orient="bottom")),
            shape=alt.Shape("kind:N", scale=shape, title=None),
            tooltip=["left_out:N", "kind:N", alt.Tooltip("alpha:Q", format=".3f")],
        )
    )
    return alt.layer(*layers).properties(
        width=460,
        height=max(60, 34 * len(order)),
        title="Alpha with the judge in place of each human, against the humans' band",
    )


def bias_frame(result: Calibration) -> pl.DataFrame:
    """The bias chart's rows: ``label`` (``all items`` or ``group=value``), ``items``,
    ``bias``, ``low``, ``high`` and ``kind`` (a key of :data:`BIAS_KINDS`)."""
    return result.bias.with_columns(
        pl.when(pl.col("group") == "all")
        .then(pl.lit("all items"))
        .otherwise(pl.format("{}={}", "group", "value"))
        .alias("label"),
        pl.when(pl.col("low").is_null())
        .then(pl.lit("no interval"))
        .when((pl.col("low") > 0) | (pl.col("high") < 0))
        .then(pl.lit("interval excludes 0"))
        .otherwise(pl.lit("interval includes 0"))
        .alias("kind"),
    ).select("label", "items", "bias", "low", "high", "kind")


def bias_chart(result: Calibration) -> alt.LayerChart | alt.FacetChart:
    """The judge's bias (judge - human mean) per group value with its bootstrap interval;
    an interval that excludes 0 (amber triangle) is a bias, not noise."""
    import altair as alt  # altair (seconds, jsonschema): only when a chart is drawn

    frame = bias_frame(result)
    colour, shape = _kind_scales(BIAS_KINDS)
    pct = round(result.rubric.confidence * 100)
    base = alt.Chart(frame).encode(
        y=alt.Y("label:N", sort=frame["label"].to_list(), title=None),
        tooltip=[
            "label:N",
            "items:Q",
            alt.Tooltip("bias:Q", format="+.2f"),
            alt.Tooltip("low:Q", format="+.2f", title=f"{pct}% low"),
            alt.Tooltip("high:Q", format="+.2f", title=f"{pct}% high"),
        ],
    )
    interval = base.mark_rule(strokeWidth=2, color="#616161").encode(
        x=alt.X("low:Q", title=f"judge - human mean ({pct}% bootstrap interval)"), x2="high:Q"
    )
    point = base.mark_point(filled=True, size=90, opacity=1).encode(
        x="bias:Q",
        color=alt.Color("kind:N", scale=colour, title=None, legend=alt.Legend(orient="bottom")),
        shape=alt.Shape("kind:N", scale=shape, title=None),
    )
    zero = (
        alt.Chart(pl.DataFrame({"x": [0.0]}))
        .mark_rule(color="#444", strokeDash=[4, 3])
        .encode(x="x:Q")
    )
    return alt.layer(zero, interval, point).properties(
        width=460, height=max(60, 22 * frame.height), title="The judge's bias, by group"
    )


def _svg(chart: Any) -> str:
    import vl_convert  # vl_convert: off the light paths (HEAVY, tests/test_startup_imports.py)

    return str(vl_convert.vegalite_to_svg(chart.to_dict()))


def _f(value: float | None, fmt: str = ".3f") -> str:
    return "undefined" if value is None else format(value, fmt)


def _inside(flag: bool | None) -> str:
    """Inside the band or below it, as a badge (a symbol beside the colour)."""
    if flag is None:
        return badge("N/A", "undefined")
    return badge("OK", "inside") if flag else badge("FAIL", "below the band")


def _headline(result: Calibration) -> list[list[str]]:
    """(number, value, what it means) rows, escaped."""
    r = result
    overall = r.bias.filter(pl.col("group") == "all").row(0, named=True)
    interval = "" if overall["low"] is None else f" [{overall['low']:+.2f}, {overall['high']:+.2f}]"
    band = "undefined" if r.band_low is None else f"{r.band_low:.3f} .. {r.band_high:.3f}"
    inside = _inside(r.inside_band)
    c = r.confusion
    rows = [
        ("alpha among the humans", _f(r.alpha_humans),
         "How far the humans agree with each other (1: perfectly, 0: as by chance). Below "
         "0.667 there is no baseline to hold the judge against."),
        ("alpha with the judge added", _f(r.alpha_with_judge),
         "The same with the judge as one more rater: close to the humans' alpha when the "
         "judge reads the items as they do."),
        ("the humans' leave-one-out band", band,
         "Alpha of the humans with each one left out in turn: how much one rater moves it."),
        ("the judge in the band", None,
         "Replacing each human by the judge, alpha stays at or above the band's lowest: the "
         "judge is as good as one more human."),
        ("Spearman, judge vs human mean", _f(r.spearman),
         "Whether the judge orders the items as the humans' mean does (1: the same order)."),
        ("weighted kappa, mean", _f(r.kappa_mean),
         "Quadratic weighted kappa of the judge against each human, averaged: agreement on "
         "the scale, far misses weighing more."),
        ("bias (judge - human mean)", f"{overall['bias']:+.2f}{interval}",
         f"Above 0 the judge is lenient, below strict; the {round(r.rubric.confidence * 100)}% "
         "interval is a bootstrap over items."),
        (f"agreement at threshold {r.rubric.threshold:g}", f"{c['agreement']:.0%}",
         "Share of items where the judge's pass/fail equals the humans' (mean at or above "
         "the threshold)."),
    ]  # fmt: skip
    out = []
    for name, value, meaning in rows:
        shown = inside if value is None else text(value)
        out.append([text(name), shown, text(meaning)])
    return out


def source_href(source: str | None, anchor: str | None, base: Path | None) -> str | None:
    """The link to ``source#anchor`` from a page in folder ``base``: a local path made
    relative to it, a URL kept when its scheme is http, https or file; None when there
    is no source or its scheme is another (``javascript:`` is never a link)."""
    if not source:
        return None
    fragment = f"#{quote(anchor, safe='-_.:~')}" if anchor else ""
    if "://" in source or source.lower().startswith(("javascript:", "data:", "vbscript:")):
        scheme = source.split(":", 1)[0].lower()
        return source + fragment if scheme in LINK_SCHEMES else None
    path = source
    if base is not None:
        path = os.path.relpath(os.path.abspath(source), os.path.abspath(base))
    return quote(Path(path).as_posix(), safe="/-_.~") + fragment


def _disagreement(n: int, row: dict[str, Any], result: Calibration, base: Path | None) -> str:
    groups = " · ".join(text(row[g]) for g in result.groups if row[g] is not None)
    notes = {x["rater"]: x["note"] for x in row["notes"] or []}
    reasoning = (
        f"<p class='tk-words'>{text(row['reasoning'])}</p>"
        if row["reasoning"]
        else "<p class='tk-muted'>no reasoning recorded</p>"
    )
    judge = (
        f"<div class='tk-who'>{text(result.judge)} <span class='tk-score'>"
        f"{row['judge']:g}</span></div>{reasoning}"
    )
    raters = "".join(
        f"<div class='tk-who'>{text(x['rater'])} <span class='tk-score'>{x['score']:g}</span>"
        "</div>"
        + (
            f"<p class='tk-words'>{text(notes[x['rater']])}</p>"
            if x["rater"] in notes
            else "<p class='tk-muted'>no note</p>"
        )
        for x in row["ratings"] or []
    )
    evidence = (
        f"<blockquote class='tk-words'>{text(row['evidence'])}</blockquote>"
        if row["evidence"]
        else "<p class='tk-muted'>no evidence recorded</p>"
    )
    where = ""
    if row["source"] or row["anchor"]:
        label = text(
            f"{row['source']}#{row['anchor']}" if row["source"] and row["anchor"]
            else row["source"] or row["anchor"]
        )  # fmt: skip
        href = source_href(row["source"], row["anchor"], base)
        where = (
            f"<p class='tk-muted'>at <a href='{text(href)}'>{label}</a></p>"
            if href
            else f"<p class='tk-muted'>at {label}</p>"
        )
    diff = f"{row['diff']:+.2f}".replace("-", "−")
    return (
        f"<section class='tk-disagreement' id='item-{n}'>"
        f"<h3>{n}. {text(row['item'])}"
        + (f" <span class='tk-muted'>{groups}</span>" if groups else "")
        + f" — judge {row['judge']:g} vs humans {row['human_mean']:.2f} ({diff})</h3>"
        f"<div class='tk-side'><div><h4>Judge</h4>{judge}</div>"
        f"<div><h4>Raters</h4>{raters}</div>"
        f"<div><h4>Evidence</h4>{evidence}{where}</div></div></section>"
    )


#: The style of the disagreements side by side (in every fragment that shows them).
SIDE_STYLE = (
    "<style>"
    ".tk-calibration h3{font-size:1em;margin:.2em 0 .5em}"
    ".tk-calibration h4{font-size:.8em;text-transform:uppercase;letter-spacing:.04em;"
    "color:#555;margin:0 0 .4em}"
    ".tk-side{display:grid;grid-template-columns:1fr 1fr 1fr;gap:1em}"
    ".tk-disagreement{border:1px solid #ddd;border-radius:6px;padding:.7em 1em;margin:.8em 0}"
    ".tk-who{font-weight:600}.tk-score{font-variant-numeric:tabular-nums;background:#f0f0f0;"
    "border-radius:3px;padding:0 5px;margin-left:.3em}"
    ".tk-words{margin:.2em 0 .7em;line-height:1.4}"
    "blockquote.tk-words{border-left:3px solid #bbb;padding-left:.6em;margin-left:0}"
    ".tk-calibration figure{margin:.5em 0}"
    ".tk-calibration a{color:#0b57d0}"
    "</style>"
)
#: The page's own style (around the fragments).
PAGE_STYLE = (
    "<style>"
    "body{margin:1.5em auto;max-width:1100px;padding:0 1em;background:#fff}"
    "h1{font-family:system-ui,sans-serif;font-size:1.35em;color:#1f2328}"
    ".tk-calibration h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ddd}"
    "</style>"
)


def _gate(r: Calibration, min_alpha: float | None, failures: list[str] | None) -> str:
    """The gate's verdict as a badge and its reasons (nothing without a gate)."""
    if min_alpha is None:
        return ""
    if failures is None:
        failures = gate_failures(r, min_alpha)
    verdict = badge("FAIL") if failures else badge("PASS")
    reasons = "".join(f"<li>{text(f)}</li>" for f in failures)
    return f"<p class='tk-verdict'>Gate min-alpha {min_alpha:g}: {verdict}</p>" + (
        f"<ul class='tk-warn'>{reasons}</ul>" if reasons else ""
    )


def _numbers(r: Calibration) -> str:
    warn = f"<p class='tk-warn'>Warning: {text(r.too_few_items)}</p>" if r.too_few_items else ""
    return warn + table(["number", "value", "what it means"], _headline(r), numeric=frozenset({1}))


def _band_table(r: Calibration) -> str:
    return table(
        ["human left out", "alpha of the others", "judge in their place", ""],
        [
            [
                text(b["left_out"]),
                text(_f(b["alpha_without"])),
                text(_f(b["alpha_replaced"])),
                _inside(b["inside"]),
            ]
            for b in r.band.iter_rows(named=True)
        ],
        numeric=frozenset({1, 2}),
    )


def _bias_table(r: Calibration) -> str:
    return table(
        ["", "items", "bias", "low", "high", ""],
        [
            [
                text(b["label"]),
                text(b["items"]),
                text(f"{b['bias']:+.2f}"),
                text(_f(b["low"], "+.2f")),
                text(_f(b["high"], "+.2f")),
                badge(BIAS_KINDS[b["kind"]], b["kind"]),
            ]
            for b in bias_frame(r).iter_rows(named=True)
        ],
        numeric=frozenset({1, 2, 3, 4}),
    )


def _confusion(r: Calibration) -> str:
    c = r.confusion
    return (
        "<p>Pass: a score at or above the threshold (the humans: their mean).</p>"
        + table(
            ["", "humans pass", "humans fail"],
            [
                ["judge pass", str(c["both_pass"]), str(c["judge_only"])],
                ["judge fail", str(c["humans_only"]), str(c["both_fail"])],
            ],
            numeric=frozenset({1, 2}),
        )
        + f"<p>The judge's verdict agrees with the humans' on {c['agreement']:.0%} of the "
        "items.</p><p>Weighted kappa (quadratic), the judge against each human:</p>"
        + table(
            ["human", "items", "kappa"],
            [
                [text(k["human"]), text(k["items"]), text(_f(k["kappa"]))]
                for k in r.kappa.iter_rows(named=True)
            ],
            numeric=frozenset({1, 2}),
        )
    )


def _disagreements(r: Calibration, top: int, base: Path | None) -> str:
    return SIDE_STYLE + "".join(
        _disagreement(n, row, r, base)
        for n, row in enumerate(r.disagreements.head(top).iter_rows(named=True), start=1)
    )


def _alt_section(alt_test: AltTest | None) -> list[str]:
    """The alternative-annotator test's heading and section (none without the test)."""
    if alt_test is None:
        return []
    return ["<h2>Can the judge take a rater's seat?</h2>", alt_test_html(alt_test)]


def calibration_html(
    result: Calibration,
    part: str,
    *,
    top: int = 10,
    base: Path | None = None,
    min_alpha: float | None = None,
) -> str:
    """One part of the page as an HTML fragment (for a notebook or a report).

    Args:
        result: the calibration.
        part: ``gate`` (the verdict of ``min-alpha`` and its reasons), ``numbers`` (the
            headline numbers, each with what it means), ``band`` (the
            band per human left out), ``bias`` (per group, with its interval),
            ``confusion`` (at the threshold, and kappa per human) or ``disagreements``
            (the top ones side by side).
        top: how many disagreements.
        base: the folder local sources are linked relative to (None: as given).
        min_alpha: the gate's alpha (``gate``: the rubric's when None).

    Raises:
        ValueError: another part.
    """
    gate = result.rubric.min_alpha if min_alpha is None else min_alpha
    parts = {
        "gate": lambda: _gate(result, gate, None),
        "numbers": lambda: _numbers(result),
        "band": lambda: _band_table(result),
        "bias": lambda: _bias_table(result),
        "confusion": lambda: _confusion(result),
        "disagreements": lambda: _disagreements(result, top, base),
    }
    if part not in parts:
        raise ValueError(f"no part {part!r}; the parts are {', '.join(parts)}")
    return wrap(parts[part](), "tk-calibration")


def render_calibration_page(
    result: Calibration,
    path: str,
    *,
    top: int = 10,
    min_alpha: float | None = None,
    failures: list[str] | None = None,
    base: Path | None = None,
    alt_test: AltTest | None = None,
) -> str:
    """The calibration as one standalone, offline HTML document.

    Args:
        result: the calibration.
        path: the scores file, named in the title.
        top: how many disagreements are shown side by side.
        min_alpha: the gate's alpha, when ``--gate min-alpha`` was given.
        failures: the gate's reasons (:func:`~toolkit.rubrics.calibrate.gate_failures`).
        base: the folder the page is written to: local sources are linked relative to it.
        alt_test: the alternative-annotator test, a section after the band's.
    """
    r = result
    title = f"Can we trust the judge? {r.judge} vs {len(r.humans)} humans · {path}"
    parts = [
        f"<p>{r.items} items scored by the judge and at least one of {text(', '.join(r.humans))}"
        + (f"; {r.unpaired} scored by one side only (left out)" if r.unpaired else "")
        + f". Rubric {text(r.rubric.rubric)} {text(r.rubric.version)}, {text(r.rubric.level)} "
        f"alpha, bootstrap seed {r.seed}.</p>"
    ]
    parts.append(_gate(r, min_alpha, failures))
    parts += [
        "<h2>The numbers</h2>",
        _numbers(r),
        "<h2>Is the judge inside the human band?</h2>",
        f"<figure>{_svg(band_chart(r, min_alpha))}</figure>",
        _band_table(r),
        *_alt_section(alt_test),
        "<h2>The judge's bias</h2>",
        f"<figure>{_svg(bias_chart(r))}</figure>",
        _bias_table(r),
        f"<h2>Confusion at threshold {r.rubric.threshold:g}</h2>",
        _confusion(r),
        f"<h2>Top {min(top, r.disagreements.height)} disagreements, by |judge − human mean|</h2>",
        _disagreements(r, top, base),
        "<p class='tk-muted'>What each number means: docs/rubrics/calibration.md of the "
        "toolkit.</p>",
    ]
    body = wrap("".join(parts), "tk-calibration", rubric=r.rubric.rubric)
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{text(title)}</title>{PAGE_STYLE}</head><body>"
        f"<h1>{text(title)}</h1>{body}</body></html>"
    )
