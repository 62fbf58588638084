"""Views of outcome scores: the CLI table, the JSON document, notebook charts and an
iteration explorer widget. Views never open a file."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import polars as pl

from toolkit.rubrics.outcome import ABSENT, UNSCORED, OutcomeResult
from toolkit.views.html import render_html, status_colour
from toolkit.views.text import format_value, render_text

if TYPE_CHECKING:
    import altair as alt

#: Short column headers for the signals in the CLI table.
SHORT: dict[str, str] = {
    "landed": "landed",
    "verifier": "verif",
    "tests": "tests",
    "correction_pressure": "corr",
    "scope": "scope",
    "hook_outcomes": "hooks",
    "token_efficiency": "tokens",
}


def _fixed(value: float | None, places: int = 2) -> str:
    return "-" if value is None else f"{value:.{places}f}"


def render_outcome_table(result: OutcomeResult, title: str = "Outcome scores") -> str:
    """Scores per iteration (value, band, each signal's sub-score; ``-`` = absent), then
    sessions, over-claims (negative integrity deltas) and warnings, as plain text."""
    signals = list(result.rubric.weights())
    decimals = result.rubric.decimals
    lines = [
        f"{title} · rubric {result.rubric.rubric} {result.rubric.version} · "
        f"{result.scores.height} iteration(s)"
    ]
    wide = result.breakdown.pivot(on="signal", index="iteration", values="sub_score")
    table = result.scores.join(wide, on="iteration", how="left").sort("iteration")
    header = f"{'iter':>5}  {'session':<10} {'value':>7}  {'band':<10}" + "".join(
        f"{SHORT.get(s, s[:6]):>8}" for s in signals
    )
    lines.append(header)
    for row in table.iter_rows(named=True):
        session = (row["session_id"] or "-")[:10]
        value = _fixed(row["value"], decimals)
        cells = "".join(f"{_fixed(row.get(s)):>8}" for s in signals)
        lines.append(f"{row['iteration']:>5}  {session:<10} {value:>7}  {row['band']:<10}{cells}")
    if result.sessions.height:
        lines.append("Sessions")
        for s in result.sessions.iter_rows(named=True):
            members = ", ".join(str(n) for n in s["iterations"])
            lines.append(
                f"  {s['session_id']}  iterations {members}: {s['scored_iterations']} scored  "
                f"{_fixed(s['value'], decimals)} {s['band']}"
            )
    over = result.over_claims()
    if over.height:
        lines.append("Over-claims (observed - claimed < 0)")
        for r in over.iter_rows(named=True):
            lines.append(
                f"  iter {r['iteration']:<4} {r['signal']:<9} {r['role']:<9} claimed "
                f"{_fixed(r['claimed'])}  observed {_fixed(r['observed'])}  "
                f"delta {_fixed(r['delta'])}"
            )
    if result.warnings:
        lines.append("Warnings")
        lines.extend(f"  - {w}" for w in result.warnings)
    return "\n".join(lines)


def render_outcome_iteration(result: OutcomeResult, iteration: int) -> str:
    """One iteration as the generic text scorecard, followed by its breakdown weights and
    integrity pairs."""
    lines = [render_text(result.scorecard(iteration))]
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
    return "\n".join(lines)


def render_outcome_json(result: OutcomeResult) -> str:
    """The result as the JSON document of ``toolkit outcome --format json``."""
    return json.dumps(result.to_dict(), indent=2, default=str)


def _band_scale(result: OutcomeResult) -> alt.Scale:
    import altair as alt

    names = [b.band for b in result.rubric.bands] + [UNSCORED]
    return alt.Scale(domain=names, range=[status_colour(n) for n in names])


def outcome_scores_chart(result: OutcomeResult) -> alt.Chart:
    """Bars of the score per iteration, coloured by band (unscored iterations at 0)."""
    import altair as alt

    data = result.scores.with_columns(
        pl.col("value").fill_null(0.0).alias("shown"),
        pl.col("session_id").fill_null("-"),
    )
    chart: alt.Chart = (
        alt.Chart(data, title="Outcome score per iteration")
        .mark_bar()
        .encode(
            x=alt.X("iteration:O", title="iteration"),
            y=alt.Y("shown:Q", title="score", scale=alt.Scale(domain=[0, 1])),
            color=alt.Color("band:N", scale=_band_scale(result), title="band"),
            tooltip=["iteration:O", "session_id:N", "value:Q", "band:N", "signals_present:Q"],
        )
    )
    return chart


def outcome_breakdown_chart(result: OutcomeResult, iteration: int) -> alt.Chart:
    """One iteration's contributions per signal (they sum to its score); absent signals
    are listed with no bar."""
    import altair as alt

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


def integrity_chart(result: OutcomeResult) -> alt.LayerChart:
    """Integrity deltas as a heat map: one row per signal and role, one column per
    iteration; over-claims (negative deltas) in red, under-claims in blue."""
    import altair as alt

    data = result.integrity.filter(pl.col("delta").is_not_null()).with_columns(
        pl.format("{} · {}", "signal", "role").alias("pair")
    )
    base = alt.Chart(data, title="Integrity: observed - claimed").encode(
        x=alt.X("iteration:O", title="iteration"),
        y=alt.Y("pair:N", title="signal · role"),
    )
    cells = base.mark_rect().encode(
        color=alt.Color(
            "delta:Q", scale=alt.Scale(scheme="redblue", domain=[-1, 1]), title="delta"
        ),
        tooltip=["iteration:O", "signal:N", "role:N", "claimed:Q", "observed:Q", "delta:Q"],
    )
    labels = base.mark_text(fontSize=10).encode(text=alt.Text("delta:Q", format=".2f"))
    chart: alt.LayerChart = cells + labels
    return chart


def sessions_chart(result: OutcomeResult) -> alt.Chart:
    """Bars of each session's score (the mean of its scored iterations), by band."""
    import altair as alt

    data = result.sessions.drop("iterations").with_columns(
        pl.col("value").fill_null(0.0).alias("shown")
    )
    chart: alt.Chart = (
        alt.Chart(data, title="Session scores")
        .mark_bar()
        .encode(
            y=alt.Y("session_id:N", title="session"),
            x=alt.X("shown:Q", title="score", scale=alt.Scale(domain=[0, 1])),
            color=alt.Color("band:N", scale=_band_scale(result), title="band"),
            tooltip=["session_id:N", "value:Q", "band:N", "scored_iterations:Q"],
        )
    )
    return chart


def outcome_explorer(result: OutcomeResult, iteration: int | None = None) -> Any:
    """A widget: pick an iteration, see its scorecard (HTML) and its contribution chart.

    Returns:
        An ``ipywidgets.VBox`` of (the iteration picker, the scorecard, the chart output).
    """
    import ipywidgets as widgets
    from IPython.display import display

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
    return widgets.VBox([picker, card, chart])


def render_outcome_fleet_text(fleet: pl.DataFrame, rubric_version: str) -> str:
    """Many logs as a fixed-width table, worst mean first (the frame of
    :func:`toolkit.rubrics.outcome_fleet.outcome_fleet`)."""
    if fleet.height == 0:
        return "no iteration logs"
    width = max(3, *(len(s) for s in fleet["log"]))
    lines = [
        f"{'log':<{width}}  {'iters':>5}  {'scored':>6}  {'mean':>6}  {'band':<9}  "
        f"{'worst':>12}  {'poor':>4}  {'over-claims':>11}  {'issues':>6}"
    ]
    for r in fleet.iter_rows(named=True):
        mean = "-" if r["mean"] is None else f"{r['mean']:.3f}"
        worst = (
            "-" if r["worst_value"] is None else f"#{r['worst_iteration']} {r['worst_value']:.3f}"
        )
        lines.append(
            f"{r['log']:<{width}}  {r['iterations']:>5}  {r['scored']:>6}  {mean:>6}  "
            f"{r['band']:<9}  {worst:>12}  {r['poor']:>4}  {r['over_claims']:>11}  "
            f"{r['issues']:>6}"
        )
    lines.append(f"{fleet.height} logs, worst mean first (rubric outcome {rubric_version})")
    return "\n".join(lines)


def render_outcome_fleet_json(fleet: pl.DataFrame, rubric_version: str) -> str:
    """Many logs as JSON: ``{"rubric_version", "logs": [...]}``, worst mean first."""
    return json.dumps({"rubric_version": rubric_version, "logs": fleet.to_dicts()}, indent=2)
