"""Charts and widgets for the simulation scorecard.

* :func:`quality_panel`: one coloured cell per dimension plus the verdict; clicking a cell shows
  that dimension's trailing-window time series underneath.
* :func:`fanout_chart`: graph fan-out at each checkpoint.
* :func:`highlight_markers`: character breaks as an HTML table with the marker marked.
* :class:`LivePanel`: the panel refreshed every few seconds while a run is still writing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from html import escape
from typing import Any

import altair as alt
import ipywidgets as widgets
import polars as pl

from toolkit.scorecard import FAIL, NA, OK, WARN, Scorecard
from toolkit.views.html import STATUS_COLOURS, VERDICT_COLOURS, render_html

STATUS_ORDER = [OK, WARN, FAIL, NA]
_STATUS_SCALE = alt.Scale(domain=STATUS_ORDER, range=[STATUS_COLOURS[s] for s in STATUS_ORDER])


def _cells(card: Scorecard) -> pl.DataFrame:
    return card.dimensions.with_columns(
        order=pl.int_range(pl.len()),
        label=pl.col("value").map_elements(
            lambda v: "-" if v is None else (f"{v:.3g}"), return_dtype=pl.String, skip_nulls=False
        ),
    )


def quality_panel(card: Scorecard, width: int = 700) -> alt.VConcatChart:
    """The scorecard as one coloured cell per dimension (eight for rubric 1.1.0); click a
    cell to see its time series. Informational dimensions are named in the subtitle.

    Args:
        card: a simulation scorecard whose ``series`` holds the long-form per-tick series
            (slug, tick, dimension, name, value, status).
        width: chart width in pixels.
    """
    cells = _cells(card)
    pick = alt.selection_point(
        name="pick",
        fields=["dimension"],
        value=[{"dimension": cells["dimension"][0]}],
        empty=False,
        clear=False,
    )
    verdict_colour = VERDICT_COLOURS.get(card.verdict, STATUS_COLOURS[NA])
    subtitle = card.verdict_reason or "all dimensions OK"
    info = cells.filter(pl.col("dimension").is_in(list(card.meta.get("informational", ()))))
    if info.height:
        subtitle += f"  ·  informational, not in the verdict: {', '.join(info['name']).lower()}"
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
        color=alt.Color("status:N", scale=_STATUS_SCALE, legend=alt.Legend(title="status")),
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
                subtitle=subtitle,
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
        color=alt.Color("status:N", scale=_STATUS_SCALE, legend=None),
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
        color=alt.Color("status:N", scale=_STATUS_SCALE),
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


class LivePanel(widgets.VBox):  # type: ignore[misc]
    """A scorecard panel that re-scores a run every ``interval`` seconds.

    The panel never reads files itself: ``rescore`` is a callable that returns a fresh
    :class:`Scorecard` (typically ``lambda: score_universe(load_universe(path))[0]``).
    Call :meth:`start` to refresh in a background thread and :meth:`stop` to end it;
    :meth:`refresh` updates once, now.
    """

    def __init__(self, rescore: Callable[[], Scorecard], interval: float = 10.0) -> None:
        self._rescore = rescore
        self.interval = interval
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.card: Scorecard | None = None
        self.refreshes = 0
        self.status = widgets.HTML()
        self.scorecard = widgets.HTML()
        self.chart = widgets.Output()
        self.toggle = widgets.ToggleButton(value=False, description="live", icon="refresh")
        self.toggle.observe(self._on_toggle, names="value")
        super().__init__([widgets.HBox([self.toggle, self.status]), self.scorecard, self.chart])
        self.refresh()

    def refresh(self) -> Scorecard:
        """Re-score now and redraw the panel."""
        try:
            card = self._rescore()
        except Exception as exc:  # keep the last good panel, say what went wrong
            self.status.value = (
                f"<span style='color:#c62828'>refresh failed: {escape(str(exc))}</span>"
            )
            raise
        self.card = card
        self.refreshes += 1
        self.scorecard.value = render_html(card)
        last = card.meta.get("last_tick")
        self.status.value = (
            f"refresh #{self.refreshes}: last tick {last}, verdict <b>{escape(card.verdict)}</b>"
        )
        self.chart.outputs = ()
        self.chart.append_display_data(quality_panel(card))
        return card

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.refresh()
            except Exception:
                continue

    def start(self) -> None:
        """Refresh every ``interval`` seconds in a background thread until :meth:`stop`."""
        if self._thread and self._thread.is_alive():
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name="toolkit-live", daemon=True)
        self._thread.start()
        if not self.toggle.value:
            self.toggle.value = True

    def stop(self) -> None:
        """Stop refreshing."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=self.interval + 5)
        self._thread = None
        if self.toggle.value:
            self.toggle.value = False

    @property
    def running(self) -> bool:
        """Whether the background refresh is on."""
        return self._thread is not None and self._thread.is_alive()

    def _on_toggle(self, change: dict[str, Any]) -> None:
        if change["new"]:
            self.start()
        else:
            self.stop()
