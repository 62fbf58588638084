"""Views of outcome scores: the CLI table, the JSON document, notebook charts and an
iteration explorer widget. Views never open a file."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import polars as pl

from toolkit.rubrics.outcome import ABSENT, UNSCORED, OutcomeResult
from toolkit.views.charts import threshold_lines
from toolkit.views.html import render_html, status_colour
from toolkit.views.notebook import StaticFallback, static_chart_html
from toolkit.views.palette import DELTA_BINS, DELTA_STRONG, DELTA_ZERO
from toolkit.views.text import format_value, paint, render_text, wrap_item, wrap_line

if TYPE_CHECKING:
    import altair as alt

#: Short column headers for the signals in the CLI table.
SHORT: dict[str, str] = {
    "landed": "landed",
    "verifier": "verif",
    "tests": "tests",
    "human_label": "human",
    "correction_pressure": "corr",
    "scope": "scope",
    "hook_outcomes": "hooks",
    "token_efficiency": "tokens",
}


def _fixed(value: float | None, places: int = 2) -> str:
    return "-" if value is None else f"{value:.{places}f}"


def render_outcome_table(
    result: OutcomeResult,
    title: str = "Outcome scores",
    *,
    width: int | None = None,
    colour: bool = False,
) -> str:
    """Scores per iteration (value, band, each signal's sub-score; ``-`` = absent), the
    bands' thresholds (:func:`band_line`), then sessions, over-claims (negative integrity
    deltas) and warnings, as plain text.

    ``width`` (a terminal's, see :func:`~toolkit.views.text.terminal_style`): when the
    table is wider, its columns close up (session ids cut to 8 characters) and long
    lines wrap under themselves; without a width nothing is cut or wrapped. ``colour``
    colours each band.
    """
    signals = list(result.rubric.weights())
    decimals = result.rubric.decimals
    lines = wrap_line(
        "",
        f"{title} · rubric {result.rubric.rubric} {result.rubric.version} · "
        f"{result.scores.height} iteration(s)",
        width,
        2,
    )
    wide = result.breakdown.pivot(on="signal", index="iteration", values="sub_score")
    table = result.scores.join(wide, on="iteration", how="left").sort("iteration")
    # (iteration, session, value, band, each signal) widths and the gap between columns
    full = (5, 10, 7, 10, 8)
    compact = (4, 8, max(5, decimals + 2), 9, 7)
    needed = full[0] + 2 + full[1] + 1 + full[2] + 2 + full[3] + full[4] * len(signals)
    fits = width is None or needed <= width
    it_w, ses_w, val_w, band_w, sig_w = full if fits else compact
    band_w = max([band_w, *(len(b) for b in table["band"].drop_nulls())])  # a rubric's own
    gap = "  " if fits else " "
    lines.append(
        f"{'iter':>{it_w}}{gap}{'session':<{ses_w}} {'value':>{val_w}}{gap}{'band':<{band_w}}"
        + "".join(f"{SHORT.get(s, s[:6]):>{sig_w}}" for s in signals)
    )
    for row in table.iter_rows(named=True):
        session = (row["session_id"] or "-")[:ses_w]
        value = _fixed(row["value"], decimals)
        band = paint(f"{row['band']:<{band_w}}", row["band"], colour)
        cells = "".join(f"{_fixed(row.get(s)):>{sig_w}}" for s in signals)
        lines.append(
            f"{row['iteration']:>{it_w}}{gap}{session:<{ses_w}} {value:>{val_w}}{gap}{band}{cells}"
        )
    lines.extend(wrap_item(band_line(result), width, bullet="", indent=2))
    if result.sessions.height:
        lines.append("Sessions")
        for s in result.sessions.iter_rows(named=True):
            members = ", ".join(str(n) for n in s["iterations"])
            wrapped = wrap_line(
                f"  {s['session_id']}  ",
                f"iterations {members}: {s['scored_iterations']} scored  "
                f"{_fixed(s['value'], decimals)} {s['band']}",
                width,
                4,
            )
            band = str(s["band"])  # painted after wrapping, when the last line ends with it
            if colour and band and wrapped[-1].endswith(band):
                wrapped[-1] = wrapped[-1][: -len(band)] + paint(band, band, colour)
            lines.extend(wrapped)
    over = result.over_claims()
    if over.height:
        lines.append("Over-claims (observed - claimed < 0)")
        for r in over.iter_rows(named=True):
            lines.append(
                f"  iter {r['iteration']:<4} {r['signal']:<9} {r['role']:<9} claimed "
                f"{_fixed(r['claimed'])}  observed {_fixed(r['observed'])}  "
                f"delta {_fixed(r['delta'])}"
            )
    if result.labels.height:
        lines.append("Reviewers' labels (* = counted in human_label)")
        lines.extend(_label_lines(result.labels, width))
    if result.warnings:
        lines.append("Warnings")
        for w in result.warnings:
            lines.extend(wrap_item(w, width))
    return "\n".join(lines)


def _label_lines(labels: pl.DataFrame, width: int | None) -> list[str]:
    """One line per label: the iteration, who (and their role), the three answers, the
    label's sub-score, whether it counted, and the free text."""
    out: list[str] = []
    for r in labels.iter_rows(named=True):
        mark = "*" if r["counted"] else " "
        role = (r["role"] or "-") + (" override" if r["admin_override"] else "")
        answers = (
            f"correctness {'-' if r['correctness'] is None else r['correctness']}/3, "
            f"scope {r['scope_judgement'] or '-'}, hallucination {r['hallucination'] or '-'}"
        )
        head = f"  iter {r['iteration']:<4} {mark} {r['actor']} ({role}) {_fixed(r['sub_score'])}  "
        said = answers + (f'; "{r["free_text"]}"' if r["free_text"] else "")
        said += f" (not counted: {r['why_not']})" if r["why_not"] else ""
        out.extend(wrap_line(head, said, width, 8))
    return out


def band_line(result: OutcomeResult) -> str:
    """The rubric's bands as the thresholds a value and each signal's sub-score are held
    to: ``Bands: excellent >= 0.85, good >= 0.70, fair >= 0.50, poor below 0.50``."""
    bands = result.rubric.bands
    said = [f"{b.band} >= {b.min:.2f}" for b in bands[:-1]]
    said.append(f"{bands[-1].band} below {bands[-2].min:.2f}" if len(bands) > 1 else bands[0].band)
    return "Bands: " + ", ".join(said)


def render_outcome_iteration(
    result: OutcomeResult, iteration: int, *, width: int | None = None, colour: bool = False
) -> str:
    """One iteration as the generic text scorecard, the bands its signals and value are
    held to (:func:`band_line`), then its breakdown weights and integrity pairs
    (``width``, ``colour``: as :func:`render_outcome_table`)."""
    lines = [render_text(result.scorecard(iteration), width=width, colour=colour)]
    lines.extend(wrap_item(band_line(result), width, bullet="", indent=2))
    rows = result.breakdown.filter(pl.col("iteration") == iteration)
    lines.append("Breakdown (weight -> effective weight x sub-score = contribution)")
    for r in rows.iter_rows(named=True):
        sub = format_value(r["sub_score"]) if r["present"] else ABSENT
        lines.append(
            f"  {r['signal']:<20} {r['nominal_weight']:.2f} -> {r['effective_weight']:.4f} x "
            f"{sub:<6} = {r['contribution']:.{result.rubric.decimals}f}"
        )
    pairs = result.integrity.filter(pl.col("iteration") == iteration)
    if pairs.height:
        lines.append("Integrity (claimed vs observed)")
        for r in pairs.iter_rows(named=True):
            lines.append(
                f"  {r['signal']:<9} {r['role']:<9} claimed {_fixed(r['claimed'])}  "
                f"observed {_fixed(r['observed'])}  delta {_fixed(r['delta'])}"
            )
    said = result.labels.filter(pl.col("iteration") == iteration)
    if said.height:
        lines.append("Reviewers' labels (* = counted in human_label)")
        lines.extend(_label_lines(said, width))
    done = result.objectives.filter(pl.col("iteration") == iteration)
    if done.height:
        lines.append("Objectives (checked, beside the score and not in it; - = not checked)")
        for r in done.iter_rows(named=True):
            mark = "-" if r["value"] is None else str(r["value"])
            lines.extend(wrap_line(f"  {r['objective']:<28} {mark}  ", r["detail"], width, 6))
    return "\n".join(lines)


def render_outcome_json(result: OutcomeResult) -> str:
    """The result as the JSON document of ``toolkit outcome --format json``."""
    return json.dumps(result.to_dict(), indent=2, default=str)


def _band_scale(result: OutcomeResult) -> alt.Scale:
    import altair as alt  # altair (seconds, jsonschema): only when a chart is drawn

    names = [b.band for b in result.rubric.bands] + [UNSCORED]
    return alt.Scale(domain=names, range=[status_colour(n) for n in names])


def _band_edges(result: OutcomeResult) -> pl.DataFrame:
    """Each band's lower edge (but 0), for threshold lines: value, status (the band),
    label."""
    bands = [b for b in result.rubric.bands if b.min > 0]
    return pl.DataFrame(
        {
            "value": [b.min for b in bands],
            "status": [b.band for b in bands],
            "label": [f"{b.band} >= {b.min:g}" for b in bands],
        },
        schema={"value": pl.Float64, "status": pl.String, "label": pl.String},
    )


def outcome_scores_chart(result: OutcomeResult) -> alt.LayerChart:
    """Bars of the score per iteration, coloured by band (unscored iterations at 0), with
    each band's lower edge dashed across the chart in the band's colour."""
    import altair as alt  # altair (seconds, jsonschema): only when a chart is drawn

    data = result.scores.with_columns(
        pl.col("value").fill_null(0.0).alias("shown"),
        pl.col("session_id").fill_null("-"),
    )
    bars = (
        alt.Chart(data)
        .mark_bar()
        .encode(
            x=alt.X("iteration:O", title="iteration"),
            y=alt.Y("shown:Q", title="outcome score (0-1)", scale=alt.Scale(domain=[0, 1])),
            color=alt.Color(
                "band:N",
                scale=_band_scale(result),
                title="band",
                legend=alt.Legend(orient="bottom"),  # the right margin holds the band edges
            ),
            tooltip=[
                "iteration:O",
                alt.Tooltip("session_id:N", title="session"),
                alt.Tooltip("value:Q", title="score", format=".3f"),
                "band:N",
                alt.Tooltip("signals_present:Q", title="signals with evidence"),
            ],
        )
    )
    return alt.LayerChart(
        layer=[bars, *threshold_lines(_band_edges(result))],
        title="Outcome score per iteration",
        width=alt.Step(40),
    )


def outcome_breakdown_chart(result: OutcomeResult, iteration: int) -> alt.Chart:
    """One iteration's contributions per signal (they sum to its score); absent signals
    are listed with no bar."""
    import altair as alt  # altair (seconds, jsonschema): only when a chart is drawn

    rows = result.breakdown.filter(pl.col("iteration") == iteration)
    status = pl.when(pl.col("present")).then(result.rubric.band_expr(pl.col("sub_score")))
    data = rows.with_columns(status.otherwise(pl.lit(ABSENT)).alias("status"))
    names = [b.band for b in result.rubric.bands] + [ABSENT]
    chart: alt.Chart = (
        alt.Chart(data, title=f"Iteration {iteration}: contribution per signal")
        .mark_bar()
        .encode(
            y=alt.Y("signal:N", sort=list(result.rubric.weights()), title=None),
            x=alt.X("contribution:Q", title="contribution to the score"),
            color=alt.Color(
                "status:N",
                scale=alt.Scale(domain=names, range=[status_colour(n) for n in names]),
                title="sub-score band",
            ),
            tooltip=[
                "signal:N",
                "present:N",
                "sub_score:Q",
                "nominal_weight:Q",
                "effective_weight:Q",
                "contribution:Q",
                "detail:N",
            ],
        )
    )
    return chart


def integrity_table(result: OutcomeResult) -> pl.DataFrame:
    """The integrity deltas laid out for the heat map, worst first.

    Returns:
        Columns iteration, signal, role, pair (``"signal · role"``), claimed, observed,
        delta, label (the delta as ``+0.50``/``-1.00``/``0``), row_rank and pair_rank (0 =
        worst), mismatched (whether the iteration has any non-zero delta). Iterations
        sort by their lowest delta, then their sum, then number; pairs by their lowest
        delta, then how many over-claims they hold.
    """
    data = result.integrity.filter(pl.col("delta").is_not_null()).with_columns(
        pair=pl.format("{} · {}", "signal", "role"),
        step=pl.when(pl.col("delta") <= -DELTA_STRONG)
        .then(pl.lit(DELTA_BINS[0].label))
        .when(pl.col("delta") <= -DELTA_ZERO)
        .then(pl.lit(DELTA_BINS[1].label))
        .when(pl.col("delta") < DELTA_ZERO)
        .then(pl.lit(DELTA_BINS[2].label))
        .when(pl.col("delta") < DELTA_STRONG)
        .then(pl.lit(DELTA_BINS[3].label))
        .otherwise(pl.lit(DELTA_BINS[4].label)),
        label=pl.when(pl.col("delta").abs() < DELTA_ZERO)
        .then(pl.lit("0"))
        .otherwise(pl.col("delta").map_elements(lambda d: f"{d:+.2f}", return_dtype=pl.String)),
    )
    rows = (
        data.group_by("iteration")
        .agg(
            low=pl.col("delta").min(),
            total=pl.col("delta").sum(),
            mismatched=(pl.col("delta").abs() >= DELTA_ZERO).any(),
        )
        .sort(~pl.col("mismatched"), "low", "total", "iteration")
        .with_row_index("row_rank")
    )
    pairs = (
        data.group_by("pair")
        .agg(low=pl.col("delta").min(), over=(pl.col("delta") <= -DELTA_ZERO).sum())
        .sort(["low", "over", "pair"], descending=[False, True, False])
        .with_row_index("pair_rank")
    )
    return (
        data.join(rows.select("iteration", "row_rank", "mismatched"), on="iteration")
        .join(pairs.select("pair", "pair_rank"), on="pair")
        .sort("row_rank", "pair_rank")
    )


def integrity_chart(result: OutcomeResult, max_rows: int = 25) -> alt.LayerChart:
    """Integrity deltas (observed - claimed) as a heat map: one column per signal and role,
    one row per iteration whose claims and evidence disagree somewhere, worst first.

    Over-claims (negative deltas) are red, under-claims blue, agreement near white; each
    cell is labelled with its delta in the palette's text colour for its step (contrast
    checked), and a tooltip shows claimed, observed and delta. Iterations where every
    claim matched, and rows beyond ``max_rows``, are counted in the subtitle.
    """
    import altair as alt  # altair (seconds, jsonschema): only when a chart is drawn

    table = integrity_table(result)
    iterations = table["iteration"].unique()
    shown_rows = table.filter(pl.col("mismatched")).select("iteration").unique()
    kept = shown_rows.height if shown_rows.height <= max_rows else max_rows
    data = table.filter(pl.col("mismatched") & (pl.col("row_rank") < kept))
    notes = []
    if (agreed := iterations.len() - shown_rows.height) > 0:
        notes.append(f"{agreed} iteration(s) where every claim matched the evidence not shown")
    if shown_rows.height > kept:
        notes.append(f"{shown_rows.height - kept} more with mismatches beyond the worst {kept}")
    steps = [b.label for b in DELTA_BINS]
    order = data.sort("pair_rank")["pair"].unique(maintain_order=True).to_list()
    rows = data.sort("row_rank")["iteration"].unique(maintain_order=True).to_list()
    base = alt.Chart(data.with_columns(label_step=pl.col("step"))).encode(
        x=alt.X(
            "pair:N",
            sort=order,
            title=None,
            axis=alt.Axis(orient="top", labelAngle=0, labelLimit=150),
        ),
        y=alt.Y("iteration:O", sort=rows, title="iteration (worst first)"),
        tooltip=[
            alt.Tooltip("iteration:O"),
            alt.Tooltip("signal:N"),
            alt.Tooltip("role:N"),
            alt.Tooltip("claimed:Q", format=".2f"),
            alt.Tooltip("observed:Q", format=".2f"),
            alt.Tooltip("delta:Q", format="+.2f", title="observed - claimed"),
        ],
    )
    cells = base.mark_rect(stroke="white", strokeWidth=2).encode(
        color=alt.Color(
            "step:N",
            scale=alt.Scale(domain=steps, range=[b.fill for b in DELTA_BINS]),
            legend=alt.Legend(title="observed - claimed", symbolStrokeColor="#999"),
        ),
    )
    labels = base.mark_text(fontSize=12).encode(
        text=alt.Text("label:N"),
        fill=alt.Fill(
            "label_step:N",
            scale=alt.Scale(domain=steps, range=[b.text for b in DELTA_BINS]),
            legend=None,
        ),
    )
    chart = alt.LayerChart(layer=[cells, labels]).properties(
        title=alt.TitleParams(
            "Integrity: observed - claimed (red = over-claim)",
            subtitle="; ".join(notes) or "every iteration shown",
            anchor="start",
        ),
        width=alt.Step(120),
        height=alt.Step(28),
    )
    return chart


def sessions_chart(result: OutcomeResult) -> alt.LayerChart:
    """Bars of each session's score (the mean of its scored iterations), by band, with
    each band's lower edge dashed in the band's colour (named in the subtitle)."""
    import altair as alt  # altair (seconds, jsonschema): only when a chart is drawn

    data = result.sessions.drop("iterations").with_columns(
        pl.col("value").fill_null(0.0).alias("shown")
    )
    bars = (
        alt.Chart(data)
        .mark_bar()
        .encode(
            y=alt.Y("session_id:N", title="session"),
            x=alt.X("shown:Q", title="session score (0-1)", scale=alt.Scale(domain=[0, 1])),
            color=alt.Color("band:N", scale=_band_scale(result), title="band"),
            tooltip=["session_id:N", "value:Q", "band:N", "scored_iterations:Q"],
        )
    )
    edges = _band_edges(result)
    return alt.LayerChart(
        layer=[bars, *threshold_lines(edges, axis="x", label=False)],
        title=alt.TitleParams(
            "Session scores", subtitle="dashed: " + ", ".join(edges["label"].to_list())
        ),
    )


def outcome_explorer(result: OutcomeResult, iteration: int | None = None) -> Any:
    """A widget: pick an iteration, see its scorecard (HTML) and its contribution chart.

    Returns:
        An ``ipywidgets.VBox`` of (the iteration picker, the scorecard, the chart output);
        in a stored notebook it also carries a static picture of the iteration shown.
    """
    import ipywidgets as widgets  # ipywidgets (~0.3 s): only when a widget is built
    from IPython.display import display  # IPython: only inside a notebook

    class OutcomeExplorer(StaticFallback, widgets.VBox):  # type: ignore[misc]
        def _static_html(self) -> str:
            if picker.value is None:
                return card.value  # type: ignore[no-any-return]
            chart_html = static_chart_html(outcome_breakdown_chart(result, picker.value))
            return f"{card.value}{chart_html}"

    options = result.scores["iteration"].to_list()
    picker = widgets.Dropdown(
        options=options,
        value=iteration if iteration in options else (options[0] if options else None),
        description="iteration",
    )
    card = widgets.HTML()
    chart = widgets.Output()

    def show(_: object = None) -> None:
        chart.clear_output()
        if picker.value is None:
            card.value = ""
            return
        card.value = render_html(result.scorecard(picker.value))
        with chart:
            display(outcome_breakdown_chart(result, picker.value))  # type: ignore[no-untyped-call]

    picker.observe(show, names="value")
    show()
    return OutcomeExplorer([picker, card, chart])


def render_outcome_fleet_text(
    fleet: pl.DataFrame, rubric_version: str, *, width: int | None = None, colour: bool = False
) -> str:
    """Many logs as a fixed-width table, worst mean first (the frame of
    :func:`toolkit.fleet.outcome.outcome_fleet`).

    With a ``width`` too narrow for the log names, each log's name gets a line of its own
    above its numbers (names are never cut); ``colour`` colours each band.
    """
    if fleet.height == 0:
        return "no iteration logs"
    numbers = (
        f"{'iters':>5}  {'scored':>6}  {'mean':>6}  {'band':<9}  {'worst':>12}  {'poor':>4}  "
        f"{'over-claims':>11}  {'issues':>6}"
    )
    name_w = max(3, *(len(s) for s in fleet["log"]))
    stacked = width is not None and name_w + 2 + len(numbers) > width
    lines = [f"log\n  {numbers}" if stacked else f"{'log':<{name_w}}  {numbers}"]
    for r in fleet.iter_rows(named=True):
        mean = "-" if r["mean"] is None else f"{r['mean']:.3f}"
        worst = (
            "-" if r["worst_value"] is None else f"#{r['worst_iteration']} {r['worst_value']:.3f}"
        )
        band = paint(f"{r['band']:<9}", r["band"], colour)
        cells = (
            f"{r['iterations']:>5}  {r['scored']:>6}  {mean:>6}  {band}  {worst:>12}  "
            f"{r['poor']:>4}  {r['over_claims']:>11}  {r['issues']:>6}"
        )
        lines.append(f"{r['log']}\n  {cells}" if stacked else f"{r['log']:<{name_w}}  {cells}")
    lines.append(f"{fleet.height} logs, worst mean first (rubric outcome {rubric_version})")
    return "\n".join(lines)


def render_outcome_fleet_json(fleet: pl.DataFrame, rubric_version: str) -> str:
    """Many logs as JSON: ``{"rubric", "rubric_version", "logs": [...]}``, worst mean
    first."""
    doc = {"rubric": "outcome", "rubric_version": rubric_version, "logs": fleet.to_dicts()}
    return json.dumps(doc, indent=2)
