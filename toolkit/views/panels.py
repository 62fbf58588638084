"""Notebook panels built on ipywidgets (imported here, not by the text and chart views).

* :class:`LivePanel`: a run's scorecard panel, refreshed every few seconds while the run
  is still writing.
* :class:`Drilldown`: pick a run of a fleet and see its scorecard and quality panel.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import ipywidgets as widgets

from toolkit.scorecard import FAIL, Scorecard
from toolkit.views.html import badge, render_html, text
from toolkit.views.notebook import StaticFallback, static_chart_html
from toolkit.views.palette import swatch
from toolkit.views.simulation import quality_panel


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


class Drilldown(StaticFallback, widgets.VBox):  # type: ignore[misc]
    """Pick a run from the fleet and see its full scorecard and quality panel.

    ``score_one`` turns a slug into that run's scorecard (with its series), e.g.
    ``lambda slug: score_universe(fleet.run(slug))[0]``; the widget itself reads nothing.
    """

    def __init__(self, slugs: Sequence[str], score_one: Callable[[str], Scorecard]) -> None:
        self._score_one = score_one
        self.picker = widgets.Dropdown(options=list(slugs), description="run")
        self.scorecard = widgets.HTML()
        self.chart = widgets.Output()
        self.card: Scorecard | None = None
        self.picker.observe(self._on_pick, names="value")
        super().__init__([self.picker, self.scorecard, self.chart])
        if slugs:
            self.show(slugs[0])

    def show(self, slug: str) -> Scorecard:
        """Score and show ``slug``."""
        card = self._score_one(slug)
        self.card = card
        self.scorecard.value = render_html(card)
        self.chart.outputs = ()
        self.chart.append_display_data(quality_panel(card))
        return card

    def _on_pick(self, change: dict[str, Any]) -> None:
        if change["new"] is not None:
            self.show(change["new"])

    def _static_html(self) -> str:
        """The run shown now: its scorecard and a picture of its quality panel."""
        if self.card is None:
            return "<p>no runs</p>"
        return self.scorecard.value + static_chart_html(quality_panel(self.card))  # type: ignore[no-any-return]
