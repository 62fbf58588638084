"""Charts and widgets for the simulation scorecard.

* :func:`quality_panel`: seven coloured cells plus the verdict; clicking a cell shows
  that dimension's trailing-window time series underneath.
* :func:`fanout_chart`: graph fan-out at each checkpoint.
* :func:`highlight_markers`: character breaks as an HTML table with the marker marked.
* :class:`toolkit.views.panels.LivePanel` (a widget) refreshes the panel while a run writes.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

import polars as pl

from toolkit.scorecard import FAIL, NA, OK, WARN, Scorecard
from toolkit.views.html import STATUS_COLOURS, VERDICT_COLOURS

if TYPE_CHECKING:
    import altair as alt

STATUS_ORDER = [OK, WARN, FAIL, NA]


def _status_scale() -> alt.Scale:
    import altair as alt

    return alt.Scale(domain=STATUS_ORDER, range=[STATUS_COLOURS[s] for s in STATUS_ORDER])


def _cells(card: Scorecard) -> pl.DataFrame:
    return card.dimensions.with_columns(
        order=pl.int_range(pl.len()),
        label=pl.col("value").map_elements(
            lambda v: "-" if v is None else (f"{v:.3g}"), return_dtype=pl.String, skip_nulls=False
        ),
    )


def quality_panel(card: Scorecard, width: int = 700) -> alt.VConcatChart:
    """The scorecard as seven coloured cells; click a cell to see its time series.

    Args:
        card: a simulation scorecard whose ``series`` holds the long-form per-tick series
            (slug, tick, dimension, name, value, status).
        width: chart width in pixels.
    """
    import altair as alt

    cells = _cells(card)
    pick = alt.selection_point(
        name="pick",
        fields=["dimension"],
        value=[{"dimension": cells["dimension"][0]}],
        empty=False,
        clear=False,
    )
    verdict_colour = VERDICT_COLOURS.get(card.verdict, STATUS_COLOURS[NA])
    base = alt.Chart(cells).encode(
        x=alt.X("name:N", sort=alt.SortField("order"), title=None, axis=alt.Axis(labelAngle=0)),
        tooltip=[
            alt.Tooltip("name:N", title="dimension"),
            alt.Tooltip("status:N"),
            alt.Tooltip("detail:N"),
            alt.Tooltip("green:N", title="OK when"),
            alt.Tooltip("red:N", title="FAIL when"),
        ],
    )
    rects = base.mark_rect(stroke="#222", cornerRadius=4).encode(
        color=alt.Color("status:N", scale=_status_scale(), legend=alt.Legend(title="status")),
        strokeWidth=alt.condition(pick, alt.value(3), alt.value(0)),
    )
    text = base.mark_text(color="white", fontWeight="bold", fontSize=13).encode(
        text=alt.Text("status:N")
    )
    values = base.mark_text(color="white", dy=16, fontSize=11).encode(text="label:N")
    top = (
        alt.layer(rects, text, values)
        .add_params(pick)
        .properties(
            width=width,
            height=70,
            title=alt.TitleParams(
                text=f"{card.title} — {card.verdict}",
                subtitle=card.verdict_reason or "all dimensions OK",
                color=verdict_colour,
                anchor="start",
            ),
        )
    )
    series = card.series if card.series is not None else pl.DataFrame(schema={"tick": pl.Int64})
    line_base = alt.Chart(series.drop("slug", strict=False)).transform_filter(pick)
    line = line_base.mark_line(color="#555").encode(
        x=alt.X("tick:Q", title="tick"),
        y=alt.Y("value:Q", title="trailing-window value"),
    )
    points = line_base.mark_circle(size=30).encode(
        x="tick:Q",
        y="value:Q",
        color=alt.Color("status:N", scale=_status_scale(), legend=None),
        tooltip=["tick:Q", "name:N", "value:Q", "status:N"],
    )
    bottom = alt.LayerChart(
        layer=[line, points],
        width=width,
        height=180,
        title="click a cell above: its value at every tick",
    )
    panel = alt.VConcatChart(vconcat=[top, bottom])
    panel.resolve = alt.Resolve(scale=alt.ScaleResolveMap(color="shared"))
    return panel


def fanout_chart(fanout: pl.DataFrame, width: int = 700) -> alt.LayerChart:
    """Graph fan-out (edges / nodes) at each checkpoint, coloured by its status then.

    Args:
        fanout: the frame of :func:`toolkit.rubrics.simulation.fanout_series` (collected):
            slug, tick, fan_out, slope, status_graph_fanout, ...
    """
    import altair as alt

    data = fanout.select(
        "slug", "tick", "fan_out", "slope", pl.col("status_graph_fanout").alias("status")
    )
    base = alt.Chart(data).encode(x=alt.X("tick:Q", title="tick"))
    line = base.mark_line(color="#555").encode(
        y=alt.Y("fan_out:Q", title="edges / nodes", scale=alt.Scale(zero=False)),
        detail="slug:N",
    )
    points = base.mark_circle(size=60).encode(
        y="fan_out:Q",
        color=alt.Color("status:N", scale=_status_scale()),
        tooltip=["slug:N", "tick:Q", "fan_out:Q", "slope:Q", "status:N"],
    )
    return alt.LayerChart(layer=[line, points], width=width, height=200, title="Graph fan-out")


def highlight_markers(breaks: pl.DataFrame) -> str:
    """Character breaks as an HTML table, each break marker wrapped in ``<mark>``.

    Args:
        breaks: the frame of :func:`toolkit.rubrics.simulation.character_breaks`
            (slug, tick, actor, marker, action_text).
    """
    if breaks.height == 0:
        return "<p>No character breaks in the window.</p>"
    rows = []
    for r in breaks.iter_rows(named=True):
        text = r["action_text"] or ""
        start = text.lower().find(r["marker"])
        if start >= 0:
            end = start + len(r["marker"])
            shown = (
                escape(text[:start])
                + f"<mark>{escape(text[start:end])}</mark>"
                + escape(text[end:])
            )
        else:
            shown = escape(text)
        rows.append(
            f"<tr><td>{r['tick']}</td><td>{escape(r['actor'] or '')}</td>"
            f"<td>{escape(r['marker'])}</td><td>{shown}</td></tr>"
        )
    return (
        "<table class='tk-card'><thead><tr><th>tick</th><th>actor</th><th>marker</th>"
        "<th>action text</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
    )
