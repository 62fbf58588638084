"""Persona-drift views: the agents x dimensions table, and Altair charts.

Every function takes a :class:`toolkit.rubrics.persona.PersonaResult` (or its frames);
none opens a file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import polars as pl

from toolkit.rubrics.persona import ENVIRONMENT, PersonaResult
from toolkit.views.html import STATUS_COLOURS
from toolkit.views.text import format_value

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

    Environment dimensions are repeated for each agent (a baseline holds them per agent).
    ``status`` is the scorecard status, or ``REGRESSION`` for a regressed dimension.

    Returns:
        Columns agent_id, dimension, baseline, score, delta, status.
    """
    view = result.agent_view()
    statuses = pl.concat(
        [
            card.dimensions.select(
                pl.lit(None if key == ENVIRONMENT else key, pl.String()).alias("agent_id"),
                "dimension",
                "status",
            )
            for key, card in result.scorecards.items()
        ]
    )
    agent_status = statuses.filter(pl.col("agent_id").is_not_null())
    env_status = statuses.filter(pl.col("agent_id").is_null()).drop("agent_id")
    table = (
        view.join(agent_status, on=["agent_id", "dimension"], how="left")
        .join(env_status, on="dimension", how="left", suffix="_env")
        .with_columns(pl.coalesce("status", "status_env").alias("status"))
    )
    if result.comparison is not None:
        table = table.join(
            result.comparison.select("agent_id", "dimension", "baseline", "delta", "regression"),
            on=["agent_id", "dimension"],
            how="left",
        ).with_columns(
            pl.when(pl.col("regression").fill_null(False))
            .then(pl.lit(REGRESSION))
            .otherwise(pl.col("status"))
            .alias("status")
        )
    else:
        table = table.with_columns(
            pl.lit(None, pl.Float64()).alias("baseline"), pl.lit(None, pl.Float64()).alias("delta")
        )
    agents = [a for a in result.scorecards if a != ENVIRONMENT]
    dims = result.dimensions["dimension"].unique(maintain_order=True).to_list()
    return (
        table.sort(
            pl.col("agent_id").replace_strict(agents, list(range(len(agents))), default=None),
            pl.col("dimension").replace_strict(dims, list(range(len(dims))), default=None),
        )
        .select(list(TABLE_SCHEMA))
        .cast(TABLE_SCHEMA)  # type: ignore[arg-type]
    )


def render_persona_table(result: PersonaResult) -> str:
    """The table of :func:`persona_table` as text, with a header and a regression line."""
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
        header,
        f"{'agent':<{widths[0]}}  {'dimension':<{widths[1]}}  {'baseline':>8}  {'score':>7}  "
        f"{'delta':>7}  status",
    ]
    for row in table.iter_rows(named=True):
        delta = "-" if row["delta"] is None else f"{row['delta']:+.2f}"
        lines.append(
            f"{row['agent_id']:<{widths[0]}}  {row['dimension']:<{widths[1]}}  "
            f"{format_value(row['baseline']):>8}  {format_value(row['score']):>7}  {delta:>7}  "
            f"{row['status']}"
        )
    regressions = result.regressions
    if result.comparison is None:
        lines.append("No baseline given: no regression check.")
    elif regressions.height:
        lines.append(
            f"{regressions.height} regression(s), more than "
            f"{format_value(result.rubric.regression_tolerance)} below baseline: "
            + ", ".join(f"{a} {d}" for a, d in regressions.select("agent_id", "dimension").rows())
        )
    else:
        lines.append("No regression against the baselines.")
    if result.warnings:
        lines.append("Warnings:")
        lines.extend(f"  - {w}" for w in result.warnings)
    return "\n".join(lines)


def persona_heatmap(result: PersonaResult) -> alt.LayerChart:
    """Agents x dimensions heatmap of the whole-run 0-9 scores (counts left out)."""
    import altair as alt

    data = persona_table(result).filter(
        ~pl.col("dimension").is_in(list(result.rubric.count_dimensions))
    )
    base = alt.Chart(_records(data)).encode(
        x=alt.X("dimension:N", title=None, sort=None),
        y=alt.Y("agent_id:N", title=None),
    )
    rect = base.mark_rect().encode(
        color=alt.Color(
            "score:Q",
            scale=alt.Scale(domain=[0, 9], scheme="redyellowgreen"),
            title="score (0-9)",
        ),
        tooltip=["agent_id:N", "dimension:N", "score:Q", "baseline:Q", "delta:Q", "status:N"],
    )
    text = base.mark_text(fontSize=12).encode(
        text=alt.Text("score:Q", format=".1f"),
        color=alt.condition(
            alt.datum.status == REGRESSION, alt.value("#b71c1c"), alt.value("black")
        ),
    )
    chart = (rect + text).properties(title=f"{result.run}: persona scores", width=320)
    return cast(alt.LayerChart, chart)


def drift_chart(result: PersonaResult) -> alt.FacetChart:
    """Dimension scores over successive message windows (window >= 1), one line per agent."""
    import altair as alt

    data = result.dimensions.filter(
        (pl.col("window") >= 1) & ~pl.col("dimension").is_in(list(result.rubric.count_dimensions))
    ).with_columns(pl.col("agent_id").fill_null(ENVIRONMENT))
    chart = (
        alt.Chart(_records(data))
        .mark_line(point=True)
        .encode(
            x=alt.X("window:O", title="message window"),
            y=alt.Y("score:Q", scale=alt.Scale(domain=[0, 9]), title="score (0-9)"),
            color=alt.Color("agent_id:N", title="agent"),
            tooltip=["agent_id:N", "dimension:N", "window:O", "score:Q", "lowest_proposition:N"],
        )
        .properties(width=180, height=140)
        .facet(facet=alt.Facet("dimension:N", title=None), columns=4)
        .properties(title=f"{result.run}: drift over the run")
    )
    return cast(alt.FacetChart, chart)


def baseline_chart(result: PersonaResult) -> alt.FacetChart:
    """Score against baseline per agent and dimension; regressions in red."""
    import altair as alt

    if result.comparison is None:
        raise ValueError("the result has no baseline comparison")
    data = result.comparison.filter(pl.col("baseline").is_not_null())
    base = alt.Chart(_records(data)).encode(
        y=alt.Y("dimension:N", title=None), x=alt.X("score:Q", scale=alt.Scale(domain=[0, 9]))
    )
    bars = base.mark_bar().encode(
        color=alt.condition(
            alt.datum.regression,
            alt.value(STATUS_COLOURS["FAIL"]),
            alt.value(STATUS_COLOURS["OK"]),
        ),
        tooltip=["agent_id:N", "dimension:N", "baseline:Q", "score:Q", "delta:Q", "note:N"],
    )
    ticks = base.mark_tick(color="black", thickness=2, size=18).encode(x="baseline:Q")
    chart = (
        alt.layer(bars, ticks, data=_records(data))
        .properties(width=220, height=90)
        .facet(row=alt.Row("agent_id:N", title=None))
        .properties(title="score (bar) against baseline (tick)")
    )
    return cast(alt.FacetChart, chart)


def similarity_chart(result: PersonaResult) -> alt.LayerChart:
    """Each message's highest Jaccard similarity with the agent's previous five."""
    import altair as alt

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
        .mark_rule(strokeDash=[4, 4], color="#c62828")
        .encode(y="flag:Q")
    )
    chart = (points + rule).properties(
        title=f"self-similarity (flag above {flag})", width=420, height=180
    )
    return cast(alt.LayerChart, chart)


def _records(frame: pl.DataFrame) -> pl.DataFrame:
    """The frame as chart data, temporal columns as ISO strings (stable JSON specs)."""
    return frame.with_columns(pl.col(pl.Datetime).dt.to_string("%Y-%m-%dT%H:%M:%SZ"))
