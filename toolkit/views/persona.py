"""Persona-drift views: the agents x dimensions table, and Altair charts.

Every function takes a :class:`toolkit.rubrics.persona.PersonaResult` (or its frames);
none opens a file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import polars as pl

from toolkit.rubrics.persona import ENVIRONMENT, PersonaResult
from toolkit.views.charts import status_scale, threshold_lines
from toolkit.views.palette import INK, swatch
from toolkit.views.text import format_value, paint, wrap_item, wrap_line

if TYPE_CHECKING:
    import altair as alt

REGRESSION = "REGRESSION"

TABLE_SCHEMA: dict[str, pl.DataType] = {
    "agent_id": pl.String(),
    "dimension": pl.String(),
    "baseline": pl.Float64(),
    "score": pl.Float64(),
    "delta": pl.Float64(),
    "status": pl.String(),
}


def persona_table(result: PersonaResult) -> pl.DataFrame:
    """Agents x dimensions with baseline, score, delta and status.

    Each agent's own dimensions, then the environment (group) dimensions once, on rows
    whose ``agent_id`` is ``"environment"``: convergence is one number for the whole chat,
    so it is shown (and can regress) once, as the group's, as on the environment
    scorecard. ``status`` is the scorecard status, or ``REGRESSION`` for a regressed
    dimension.

    Returns:
        Columns agent_id, dimension, baseline, score, delta, status.
    """
    whole = result.dimensions.filter(pl.col("window") == 0)
    view = whole.select(
        pl.when(pl.col("target_type") == ENVIRONMENT)
        .then(pl.lit(ENVIRONMENT))
        .otherwise(pl.col("agent_id"))
        .alias("agent_id"),
        "dimension",
        "score",
    )
    statuses = pl.concat(
        [
            card.dimensions.select(
                pl.lit(key, pl.String()).alias("agent_id"), "dimension", "status"
            )
            for key, card in result.scorecards.items()
        ]
    )
    table = view.join(statuses, on=["agent_id", "dimension"], how="left")
    if result.comparison is not None:
        compared = result.comparison.select(
            pl.col("agent_id").fill_null(ENVIRONMENT),
            "dimension",
            "baseline",
            "delta",
            "regression",
        )
        table = table.join(compared, on=["agent_id", "dimension"], how="left").with_columns(
            pl.when(pl.col("regression").fill_null(False))
            .then(pl.lit(REGRESSION))
            .otherwise(pl.col("status"))
            .alias("status")
        )
    else:
        table = table.with_columns(
            pl.lit(None, pl.Float64()).alias("baseline"), pl.lit(None, pl.Float64()).alias("delta")
        )
    agents = [*(a for a in result.scorecards if a != ENVIRONMENT), ENVIRONMENT]
    dims = result.dimensions["dimension"].unique(maintain_order=True).to_list()
    return (
        table.sort(
            pl.col("agent_id").replace_strict(agents, list(range(len(agents))), default=None),
            pl.col("dimension").replace_strict(dims, list(range(len(dims))), default=None),
        )
        .select(list(TABLE_SCHEMA))
        .cast(TABLE_SCHEMA)  # type: ignore[arg-type]
    )


def render_persona_table(
    result: PersonaResult, *, width: int | None = None, colour: bool = False
) -> str:
    """The table of :func:`persona_table` as text, with a header and a regression line.

    ``width`` (a terminal's, see :func:`~toolkit.views.text.terminal_style`) wraps the
    header, the regression line and the warnings; ``colour`` colours the statuses.
    """
    table = persona_table(result)
    header = (
        f"{result.run} · judge {result.judge} · rubric {result.rubric.rubric} "
        f"{result.rubric.version}"
    )
    widths = (
        max([len("agent"), *(len(a) for a in table["agent_id"])]),
        max([len("dimension"), *(len(d) for d in table["dimension"])]),
    )
    lines = [
        *wrap_line("", header, width, 2),
        f"{'agent':<{widths[0]}}  {'dimension':<{widths[1]}}  {'baseline':>8}  {'score':>7}  "
        f"{'delta':>7}  status",
    ]
    for row in table.iter_rows(named=True):
        delta = "-" if row["delta"] is None else f"{row['delta']:+.2f}"
        lines.append(
            f"{row['agent_id']:<{widths[0]}}  {row['dimension']:<{widths[1]}}  "
            f"{format_value(row['baseline']):>8}  {format_value(row['score']):>7}  {delta:>7}  "
            + paint(row["status"], row["status"], colour)
        )
    regressions = result.regressions
    if result.comparison is None:
        verdict = "No baseline given: no regression check."
    elif regressions.height:
        verdict = (
            f"{regressions.height} regression(s), more than "
            f"{format_value(result.rubric.regression_tolerance)} below baseline: "
            + ", ".join(
                f"{a or ENVIRONMENT} {d}"
                for a, d in regressions.select("agent_id", "dimension").rows()
            )
        )
    else:
        verdict = "No regression against the baselines."
    lines.extend(wrap_item(verdict, width, bullet="", indent=2))
    if result.warnings:
        lines.append("Warnings:")
        for w in result.warnings:
            lines.extend(wrap_item(w, width))
    return "\n".join(lines)


#: Statuses of the persona table, in legend order.
HEATMAP_STATUSES = ["OK", "WARN", "FAIL", REGRESSION, "N/A"]


def _label(score: pl.Expr, status: pl.Expr) -> pl.Expr:
    """The score to one decimal, with the regression symbol after a regressed one."""
    text = score.round(1).cast(pl.String)
    return (
        pl.when(status == REGRESSION)
        .then(pl.concat_str(text, pl.lit(" " + swatch(REGRESSION).symbol)))
        .otherwise(text)
        .fill_null("-")
    )


def persona_heatmap(result: PersonaResult) -> alt.LayerChart:
    """Agents x dimensions of the whole-run 0-9 scores (counts left out), each cell coloured
    by its status (regressions apart, marked ▼), its label in the palette's text colour
    for that status."""
    import altair as alt  # altair (seconds, jsonschema): only when a chart is drawn

    data = (
        persona_table(result)
        .filter(~pl.col("dimension").is_in(list(result.rubric.count_dimensions)))
        .with_columns(
            label=_label(pl.col("score"), pl.col("status")),
            # a second name for status: the label colours need no legend of their own
            label_status=pl.col("status"),
        )
    )
    base = alt.Chart(_records(data)).encode(
        x=alt.X("dimension:N", title=None, sort=None, axis=alt.Axis(labelAngle=0)),
        y=alt.Y("agent_id:N", title=None, sort=None),
        tooltip=[
            alt.Tooltip("agent_id:N", title="agent"),
            alt.Tooltip("dimension:N"),
            alt.Tooltip("score:Q", format=".2f"),
            alt.Tooltip("baseline:Q", format=".2f"),
            alt.Tooltip("delta:Q", format="+.2f"),
            alt.Tooltip("status:N"),
        ],
    )
    rect = base.mark_rect(stroke="white", strokeWidth=2).encode(
        color=alt.Color(
            "status:N",
            scale=status_scale(statuses=HEATMAP_STATUSES),
            legend=alt.Legend(title="status"),  # explicit: the label fill would hide it
        ),
    )
    text = base.mark_text(fontSize=13, fontWeight="bold").encode(
        text=alt.Text("label:N"),
        fill=alt.Fill("label_status:N", scale=status_scale("text", HEATMAP_STATUSES), legend=None),
    )
    chart = (rect + text).properties(
        title=alt.TitleParams(
            f"{result.run}: persona scores (0-9)",
            subtitle=f"{swatch(REGRESSION).symbol} = regression against the baseline",
        ),
        width=alt.Step(110),
        height=alt.Step(36),
    )
    return cast(alt.LayerChart, chart)


def _band_lines(result: PersonaResult) -> pl.DataFrame:
    """The rubric's OK and FAIL edges on the 0-9 scale, for threshold lines."""
    rubric = result.rubric
    return pl.DataFrame(
        {
            "value": [rubric.green_at, rubric.red_below],
            "status": ["OK", "FAIL"],
            "label": [f"OK >= {rubric.green_at:g}", f"FAIL < {rubric.red_below:g}"],
        }
    )


def drift_chart(result: PersonaResult) -> alt.FacetChart:
    """Dimension scores over successive message windows (window >= 1), one line per agent,
    with the rubric's OK and FAIL edges dashed in every panel.

    A group (environment) dimension is one line, the environment's."""
    import altair as alt  # altair (seconds, jsonschema): only when a chart is drawn

    data = result.dimensions.filter(
        (pl.col("window") >= 1) & ~pl.col("dimension").is_in(list(result.rubric.count_dimensions))
    ).with_columns(pl.col("agent_id").fill_null(ENVIRONMENT))
    lines = (
        alt.Chart()
        .mark_line(point=True)
        .encode(
            x=alt.X("window:O", title="message window"),
            y=alt.Y("score:Q", scale=alt.Scale(domain=[0, 9]), title="score (0-9)"),
            color=alt.Color("agent_id:N", title="agent"),
            tooltip=["agent_id:N", "dimension:N", "window:O", "score:Q", "lowest_proposition:N"],
        )
    )
    chart = (
        alt.layer(lines, *threshold_lines(_band_lines(result), label=False), data=_records(data))
        .properties(width=180, height=140)
        .facet(facet=alt.Facet("dimension:N", title=None), columns=4)
        .properties(
            title=alt.TitleParams(
                f"{result.run}: drift over the run",
                subtitle=(
                    f"dashed: OK at or above {result.rubric.green_at:g} (green), "
                    f"FAIL below {result.rubric.red_below:g} (red)"
                ),
            )
        )
    )
    return cast(alt.FacetChart, chart)


def baseline_chart(result: PersonaResult) -> alt.FacetChart:
    """Score against baseline, one panel per agent holding only that agent's dimensions:
    a bar for the score on the 0-9 axis, a black tick at the baseline, the score written
    after the bar; regressions in red and marked ▼.

    The layers carry no data of their own: the facet's data is split by agent and each
    panel draws only its rows (layers with their own data would draw every agent's rows
    in every panel).
    """
    import altair as alt  # altair (seconds, jsonschema): only when a chart is drawn

    if result.comparison is None:
        raise ValueError("the result has no baseline comparison")
    data = result.comparison.filter(pl.col("baseline").is_not_null()).with_columns(
        state=pl.when(pl.col("regression"))
        .then(pl.lit("regression"))
        .otherwise(pl.lit("within tolerance")),
        label=_label(
            pl.col("score"),
            pl.when(pl.col("regression")).then(pl.lit(REGRESSION)).otherwise(pl.lit("")),
        ),
    )
    states = ["within tolerance", "regression"]
    axis = alt.Scale(domain=[0, 9], nice=False, clamp=True)
    base = alt.Chart().encode(
        y=alt.Y("dimension:N", title=None, sort=None),
        tooltip=[
            alt.Tooltip("agent_id:N", title="agent"),
            alt.Tooltip("dimension:N"),
            alt.Tooltip("baseline:Q", format=".2f"),
            alt.Tooltip("score:Q", format=".2f"),
            alt.Tooltip("delta:Q", format="+.2f"),
            alt.Tooltip("note:N"),
        ],
    )
    bars = base.mark_bar(height=16).encode(
        x=alt.X("score:Q", scale=axis, stack=None, title="score (0-9)"),
        color=alt.Color(
            "state:N",
            scale=alt.Scale(domain=states, range=[swatch("OK").fill, swatch(REGRESSION).fill]),
            title=None,
            legend=alt.Legend(orient="top"),
        ),
    )
    ticks = base.mark_tick(color="black", thickness=3, size=22).encode(
        x=alt.X("baseline:Q", scale=axis)
    )
    labels = base.mark_text(align="left", dx=4, fontSize=11, color=INK).encode(
        x=alt.X("score:Q", scale=axis), text="label:N"
    )
    rules = threshold_lines(_band_lines(result), axis="x", label=False)
    order = data["agent_id"].unique(maintain_order=True).to_list()
    chart = (
        alt.layer(bars, ticks, labels, *rules, data=_records(data))
        .properties(width=300, height=alt.Step(24))
        .facet(row=alt.Row("agent_id:N", title=None, sort=order, header=alt.Header(labelAngle=0)))
        .resolve_scale(y="independent")  # each panel lists only its own dimensions
        .properties(
            title=alt.TitleParams(
                "score (bar) against baseline (tick)",
                subtitle=(
                    f"dashed: OK at or above {result.rubric.green_at:g} (green), "
                    f"FAIL below {result.rubric.red_below:g} (red); "
                    f"{swatch(REGRESSION).symbol} regression: more than "
                    f"{result.rubric.regression_tolerance:g} below baseline"
                ),
            )
        )
    )
    return cast(alt.FacetChart, chart)


def similarity_chart(result: PersonaResult) -> alt.LayerChart:
    """Each message's highest Jaccard similarity with the agent's previous five."""
    import altair as alt  # altair (seconds, jsonschema): only when a chart is drawn

    data = result.evidence.messages.filter(pl.col("max_jaccard_prev5").is_not_null())
    flag = result.rubric.similarity_flag_above
    points = (
        alt.Chart(_records(data))
        .mark_circle(size=60)
        .encode(
            x=alt.X("step:Q", title="step"),
            y=alt.Y("max_jaccard_prev5:Q", scale=alt.Scale(domain=[0, 1]), title="max Jaccard"),
            color=alt.Color("agent_id:N", title="agent"),
            tooltip=["agent_id:N", "step:Q", "max_jaccard_prev5:Q", "text:N"],
        )
    )
    rule = (
        alt.Chart(_records(pl.DataFrame({"flag": [flag]})))
        .mark_rule(strokeDash=[4, 4], color=swatch("FAIL").fill)
        .encode(y="flag:Q")
    )
    chart = (points + rule).properties(
        title=f"self-similarity (flag above {flag})", width=420, height=180
    )
    return cast(alt.LayerChart, chart)


def _records(frame: pl.DataFrame) -> pl.DataFrame:
    """The frame as chart data, temporal columns as ISO strings (stable JSON specs)."""
    return frame.with_columns(pl.col(pl.Datetime).dt.to_string("%Y-%m-%dT%H:%M:%SZ"))
