"""Charts and widgets for the simulation scorecard.

* :func:`quality_panel`: one coloured cell per dimension plus the verdict; clicking a cell shows
  that dimension's trailing-window time series underneath.
* :func:`fanout_chart`: graph fan-out at each checkpoint.
* :func:`highlight_markers`: character breaks as an HTML table with the marker marked.
* :class:`toolkit.views.panels.LivePanel` (a widget) refreshes the panel while a run writes.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import polars as pl

from toolkit.rubrics.simulation import (
    DEFAULT_RUBRIC,
    PUBLISHED,
    SimulationRubric,
    series_thresholds,
)
from toolkit.scorecard import STATUS_SEVERITY, Scorecard
from toolkit.views.charts import status_scale, threshold_lines
from toolkit.views.html import table, text, wrap
from toolkit.views.palette import swatch

if TYPE_CHECKING:
    import altair as alt

#: Room (in pixels) kept between the outermost dots and the chart's edges.
EDGE_PADDING = 10


def worst_dimension(card: Scorecard) -> str:
    """The key of the card's worst dimension (FAIL before WARN before N/A before OK; the
    first in the card's order among equals)."""
    ranked = card.dimensions.with_row_index("order").sort(
        pl.col("status").replace_strict(STATUS_SEVERITY, default=len(STATUS_SEVERITY)),
        "order",
    )
    return str(ranked["dimension"][0])


def _cells(card: Scorecard) -> pl.DataFrame:
    return card.dimensions.with_columns(
        order=pl.int_range(pl.len()),
        label=pl.col("value").map_elements(
            lambda v: "-" if v is None else (f"{v:.3g}"), return_dtype=pl.String, skip_nulls=False
        ),
    )


def _rubric_of(card: Scorecard) -> SimulationRubric | None:
    """The packaged simulation rubric of the card's version (``None`` for another)."""
    return PUBLISHED.get(card.rubric_version) if card.rubric == "simulation" else None


def quality_panel(
    card: Scorecard, width: int = 700, rubric: SimulationRubric | None = None
) -> alt.VConcatChart:
    """The scorecard as one coloured cell per dimension (eight from rubric 1.1.0 on); click a
    cell to see its time series. Informational dimensions are named in the subtitle.

    The panel opens on the worst dimension (see :func:`worst_dimension`); the series
    chart's title names the dimension shown.

    Args:
        card: a simulation scorecard whose ``series`` holds the long-form per-tick series
            (slug, tick, dimension, name, value, status).
        width: chart width in pixels.
        rubric: the rubric that scored the card, whose OK and FAIL edges are drawn as
            dashed lines on the series (default: the packaged rubric of the card's
            version; a card of another version gets no lines).
    """
    import altair as alt  # altair (seconds, jsonschema): only when a chart is drawn

    cells = _cells(card)
    first = worst_dimension(card) if cells.height else None
    pick = alt.selection_point(
        name="pick",
        fields=["dimension"],
        value=[{"dimension": first}],
        empty=False,
        clear=False,
    )
    top = _status_cells(card, cells, pick, width)
    bottom = _series_chart(card, pick, width, rubric or _rubric_of(card))
    panel = alt.VConcatChart(vconcat=[top, bottom])
    panel.resolve = alt.Resolve(scale=alt.ScaleResolveMap(color="shared"))
    return panel


def _status_cells(
    card: Scorecard, cells: pl.DataFrame, pick: alt.Parameter, width: int
) -> alt.LayerChart | alt.FacetChart:
    """The panel's top row: a cell per dimension (status word and value on the status's
    colour, the picked one outlined), titled with the verdict and its reason."""
    import altair as alt  # altair (seconds, jsonschema): only when a chart is drawn

    subtitle = card.verdict_reason or "all dimensions OK"
    info = cells.filter(pl.col("dimension").is_in(list(card.meta.get("informational", ()))))
    if info.height:
        subtitle += f"  ·  informational, not in the verdict: {', '.join(info['name']).lower()}"
    base = alt.Chart(cells).encode(
        x=alt.X("name:N", sort=alt.SortField("order"), title=None, axis=alt.Axis(labelAngle=0)),
        tooltip=[
            alt.Tooltip("name:N", title="dimension"),
            alt.Tooltip("status:N"),
            alt.Tooltip("value:Q", format=".3f"),
            alt.Tooltip("detail:N"),
            alt.Tooltip("green:N", title="OK when"),
            alt.Tooltip("red:N", title="FAIL when"),
        ],
    )
    rects = base.mark_rect(stroke="#222", cornerRadius=4).encode(
        color=alt.Color("status:N", scale=status_scale(), legend=alt.Legend(title="status")),
        strokeWidth=alt.condition(pick, alt.value(3), alt.value(0)),
    )
    on_fill = alt.Fill("status:N", scale=status_scale("text"), legend=None)
    words = base.mark_text(fontWeight="bold", fontSize=13).encode(
        text=alt.Text("status:N"), fill=on_fill
    )
    values = base.mark_text(dy=16, fontSize=11).encode(text="label:N", fill=on_fill)
    return (
        alt.layer(rects, words, values)
        .add_params(pick)
        .properties(
            width=width,
            height=70,
            title=alt.TitleParams(
                text=f"{card.title} — {card.verdict}",
                subtitle=subtitle,
                color=swatch(card.verdict).on_white,
                anchor="start",
            ),
        )
    )


def _series_chart(
    card: Scorecard, pick: alt.Parameter, width: int, rubric: SimulationRubric | None
) -> alt.LayerChart:
    """The panel's bottom row: the picked dimension's trailing-window value at every tick,
    each point in its status's colour and shape, with ``rubric``'s OK and FAIL edges as
    dashed lines (none without a rubric)."""
    import altair as alt  # altair (seconds, jsonschema): only when a chart is drawn

    series = card.series if card.series is not None else pl.DataFrame(schema={"tick": pl.Int64})
    names = dict(card.dimensions.select("dimension", "name").iter_rows())
    shown = (
        "'Trailing-window value of ' + (isValid(pick) && isArray(pick.dimension) ? "
        f"({_json(names)})[pick.dimension[0]] : '(click a cell above)') + ' at every tick'"
    )
    line_base = alt.Chart(series.drop("slug", strict=False)).transform_filter(pick)
    x = alt.X("tick:Q", title="tick", scale=alt.Scale(padding=EDGE_PADDING, nice=False))
    y = alt.Y("value:Q", title="trailing-window value", scale=alt.Scale(padding=EDGE_PADDING))
    line = line_base.mark_line(color="#555").encode(x=x, y=y)
    points = line_base.mark_point(size=40, filled=True).encode(
        x="tick:Q",
        y="value:Q",
        color=alt.Color("status:N", scale=status_scale(), legend=None),
        shape=alt.Shape("status:N", scale=status_scale("shape"), legend=None),
        tooltip=[
            alt.Tooltip("tick:Q"),
            alt.Tooltip("name:N", title="dimension"),
            alt.Tooltip("value:Q", format=".3f"),
            alt.Tooltip("status:N"),
        ],
    )
    edges = series_thresholds(rubric) if rubric is not None else None
    rules = threshold_lines(edges, where=pick) if edges is not None and edges.height else []
    return alt.LayerChart(
        layer=[line, points, *rules],
        width=width,
        height=180,
        title=alt.TitleParams(text=alt.ExprRef(shown), anchor="start"),
    )


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def fanout_chart(
    fanout: pl.DataFrame, width: int = 700, rubric: SimulationRubric | None = None
) -> alt.LayerChart:
    """Graph fan-out (edges / nodes) at each checkpoint, coloured (and shaped) by its status
    then. The status comes from the slope of fan-out, not its level, so no line on this
    axis marks it: the subtitle says the slope's OK and FAIL edges.

    Args:
        fanout: the frame of :func:`toolkit.rubrics.simulation.fanout_series` (collected):
            slug, tick, fan_out, slope, status_graph_fanout, ...
        rubric: the rubric whose edges the subtitle names (default: the packaged one).
    """
    import altair as alt  # altair (seconds, jsonschema): only when a chart is drawn

    spec = (rubric or DEFAULT_RUBRIC).graph_fanout
    if spec.sustained == "slope":  # 1.2.0 on: the slope itself stays low for N checkpoints
        sustained = f"at each of the last {spec.recent_steps} checkpoints"
    else:  # 1.0.0 and 1.1.0: each step between consecutive checkpoints falls too
        sustained = (
            f"with each of the last {spec.recent_steps} steps between checkpoints "
            f"< {spec.fail_slope_below:g}"
        )
    subtitle = (
        f"status from the slope per {spec.per_ticks} ticks over the last {spec.checkpoints} "
        f"checkpoints: OK >= {spec.ok_slope_min:g}; FAIL < {spec.fail_slope_below:g} "
        f"{sustained}"
    )

    data = fanout.select(
        "slug", "tick", "fan_out", "slope", pl.col("status_graph_fanout").alias("status")
    )
    base = alt.Chart(data).encode(
        x=alt.X("tick:Q", title="tick", scale=alt.Scale(padding=EDGE_PADDING, nice=False))
    )
    line = base.mark_line(color="#555").encode(
        y=alt.Y(
            "fan_out:Q",
            title="fan-out (edges / nodes)",
            scale=alt.Scale(zero=False, padding=EDGE_PADDING),
            axis=alt.Axis(titlePadding=8),
        ),
        detail="slug:N",
    )
    points = base.mark_point(size=70, filled=True).encode(
        y="fan_out:Q",
        color=alt.Color("status:N", scale=status_scale(), title="status"),
        shape=alt.Shape("status:N", scale=status_scale("shape"), title="status"),
        tooltip=[
            "slug:N",
            "tick:Q",
            alt.Tooltip("fan_out:Q", format=".3f", title="fan-out"),
            alt.Tooltip("slope:Q", format=".4f"),
            "status:N",
        ],
    )
    return alt.LayerChart(
        layer=[line, points],
        width=width,
        height=200,
        title=alt.TitleParams("Graph fan-out", subtitle=subtitle),
        padding={"left": 10, "top": 5, "right": 5, "bottom": 5},
    )


def highlight_markers(breaks: pl.DataFrame) -> str:
    """Character breaks as an HTML table, each break marker wrapped in ``<mark>``.

    Args:
        breaks: the frame of :func:`toolkit.rubrics.simulation.character_breaks`
            (slug, tick, actor, marker, action_text).
    """
    if breaks.height == 0:
        return wrap("<p>No character breaks in the window.</p>")
    rows = []
    for r in breaks.iter_rows(named=True):
        action = r["action_text"] or ""
        start = action.lower().find(r["marker"])
        if start >= 0:
            end = start + len(r["marker"])
            shown = (
                text(action[:start])
                + f"<mark>{text(action[start:end])}</mark>"
                + text(action[end:])
            )
        else:
            shown = text(action)
        rows.append([text(r["tick"]), text(r["actor"] or ""), text(r["marker"]), shown])
    return wrap(table(["tick", "actor", "marker", "action text"], rows, frozenset({0})))
