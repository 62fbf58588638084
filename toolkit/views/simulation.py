"""Charts and widgets for the simulation scorecard.

* :func:`quality_panel`: seven coloured cells plus the verdict; clicking a cell shows
  that dimension's trailing-window time series underneath.
* :func:`fanout_chart`: graph fan-out at each checkpoint.
* :func:`highlight_markers`: character breaks as an HTML table with the marker marked.
* :class:`LivePanel`: the panel refreshed every few seconds while a run is still writing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import altair as alt
import ipywidgets as widgets
import polars as pl

from toolkit.scorecard import FAIL, NA, OK, STATUS_SEVERITY, WARN, Scorecard
from toolkit.views.html import badge, render_html, table, text, wrap
from toolkit.views.notebook import StaticFallback, static_chart_html
from toolkit.views.palette import swatch

STATUS_ORDER = [OK, WARN, FAIL, NA]

#: Room (in pixels) kept between the outermost dots and the chart's edges.
EDGE_PADDING = 10


def status_scale(channel: str = "fill", statuses: list[str] | None = None) -> alt.Scale:
    """The palette as an Altair scale over ``statuses`` (default OK, WARN, FAIL, N/A):
    ``channel`` ``"fill"`` (colour of a mark), ``"text"`` (text drawn on that fill) or
    ``"shape"`` (point shape, so no status is told by colour alone)."""
    domain = statuses or STATUS_ORDER
    return alt.Scale(domain=domain, range=[getattr(swatch(s), channel) for s in domain])


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


def quality_panel(card: Scorecard, width: int = 700) -> alt.VConcatChart:
    """The scorecard as seven coloured cells; click a cell to see its time series.

    The panel opens on the worst dimension (see :func:`worst_dimension`); the series
    chart's title names the dimension shown.

    Args:
        card: a simulation scorecard whose ``series`` holds the long-form per-tick series
            (slug, tick, dimension, name, value, status).
        width: chart width in pixels.
    """
    cells = _cells(card)
    first = worst_dimension(card) if cells.height else None
    pick = alt.selection_point(
        name="pick",
        fields=["dimension"],
        value=[{"dimension": first}],
        empty=False,
        clear=False,
    )
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
    top = (
        alt.layer(rects, words, values)
        .add_params(pick)
        .properties(
            width=width,
            height=70,
            title=alt.TitleParams(
                text=f"{card.title} — {card.verdict}",
                subtitle=card.verdict_reason or "all dimensions OK",
                color=swatch(card.verdict).on_white,
                anchor="start",
            ),
        )
    )
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
    bottom = alt.LayerChart(
        layer=[line, points],
        width=width,
        height=180,
        title=alt.TitleParams(text=alt.ExprRef(shown), anchor="start"),
    )
    panel = alt.VConcatChart(vconcat=[top, bottom])
    panel.resolve = alt.Resolve(scale=alt.ScaleResolveMap(color="shared"))
    return panel


def _json(value: object) -> str:
    import json

    return json.dumps(value, ensure_ascii=False)


def fanout_chart(fanout: pl.DataFrame, width: int = 700) -> alt.LayerChart:
    """Graph fan-out (edges / nodes) at each checkpoint, coloured (and shaped) by its status
    then.

    Args:
        fanout: the frame of :func:`toolkit.rubrics.simulation.fanout_series` (collected):
            slug, tick, fan_out, slope, status_graph_fanout, ...
    """
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
        title="Graph fan-out",
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


class LivePanel(StaticFallback, widgets.VBox):  # type: ignore[misc]
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
                f"<span style='color:{swatch(FAIL).on_white}'>refresh failed: {text(exc)}</span>"
            )
            raise
        self.card = card
        self.refreshes += 1
        self.scorecard.value = render_html(card)
        last = card.meta.get("last_tick")
        self.status.value = (
            f"refresh #{self.refreshes}: last tick {last}, verdict {badge(card.verdict)}"
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

    def _static_html(self) -> str:
        """The last refresh: status line, scorecard and a picture of the quality panel."""
        if self.card is None:
            return str(self.status.value)
        return f"<p>{self.status.value}</p>{self.scorecard.value}" + static_chart_html(
            quality_panel(self.card)
        )

    @property
    def running(self) -> bool:
        """Whether the background refresh is on."""
        return self._thread is not None and self._thread.is_alive()

    def _on_toggle(self, change: dict[str, Any]) -> None:
        if change["new"]:
            self.start()
        else:
            self.stop()
