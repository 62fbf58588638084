"""Stored notebooks carry static renderings: each chart as a mimebundle with its
Vega-Lite spec and a PNG (deterministic bytes), each of our widgets with a static HTML
picture, and ``notebooks/refresh.py`` keeps only what reads without a kernel."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path

import altair as alt
import nbformat
import pytest
from conftest import script_module

import toolkit as tk
from toolkit.views.notebook import RENDERER_ENV, STORED_RENDERER

ROOT = Path(__file__).resolve().parents[2]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def stored(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv(RENDERER_ENV, "stored")
    before = alt.renderers.active
    tk.setup_notebook()
    yield
    alt.renderers.enable(before)


@pytest.fixture(scope="module")
def card() -> tk.Scorecard:
    return tk.score_universe(tk.load_universe(ROOT / "sample_runs" / "universes" / "ashfall"))[0]


def test_a_chart_is_stored_as_spec_plus_png(stored: None, card: tk.Scorecard) -> None:
    assert alt.renderers.active == STORED_RENDERER
    bundle, meta = tk.quality_panel(card)._repr_mimebundle_()
    spec_key = next(k for k in bundle if k.startswith("application/vnd.vegalite"))
    assert spec_key == "application/vnd.vegalite.v6+json"  # nbformat validates "+json" only
    nbformat.validate(_notebook_with(bundle))
    assert bundle[spec_key]["vconcat"][0]["title"]["text"].startswith("Ashfall")
    png = base64.b64decode(bundle["image/png"])
    assert png.startswith(PNG_MAGIC)
    assert meta["image/png"]["width"] > 600
    assert bundle["text/plain"].startswith("<chart")
    # deterministic: the same chart gives the same bytes (no random ids), so stored
    # notebooks diff quietly
    again, _ = tk.quality_panel(card)._repr_mimebundle_()
    assert again["image/png"] == bundle["image/png"]
    assert "altair-viz-" not in str(bundle[spec_key])


def _notebook_with(bundle: dict[str, object]) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("chart")
    cell.outputs = [nbformat.v4.new_output("display_data", data=bundle)]
    nb.cells = [cell]
    return nb


def test_widgets_carry_a_static_picture_when_stored(stored: None, card: tk.Scorecard) -> None:
    drill = tk.Drilldown(["ashfall"], lambda slug: card)
    bundle = drill._repr_mimebundle_()
    assert "data-verdict='FAILED'" in bundle["text/html"]
    assert "<img src='data:image/png;base64," in bundle["text/html"]
    assert bundle["text/plain"] == "<Drilldown: interactive when the notebook runs>"
    assert "application/vnd.jupyter.widget-view+json" in bundle


def test_outcome_explorer_pictures_the_iteration_shown(
    stored: None, tally_log: Path, tally_repo: Path
) -> None:
    log = tk.load_iteration_log(tally_log)
    result = tk.score_outcome(log, tk.collect_outcome_evidence(log, repo=tally_repo))
    app = tk.outcome_explorer(result, iteration=4)
    html = app._repr_mimebundle_()["text/html"]
    assert "Iteration 4" in html and "<img src='data:image/png;base64," in html


def test_live_widgets_stay_as_they_were(
    monkeypatch: pytest.MonkeyPatch, card: tk.Scorecard
) -> None:
    monkeypatch.delenv(RENDERER_ENV, raising=False)
    bundle = tk.Drilldown(["ashfall"], lambda slug: card)._repr_mimebundle_()
    assert "text/html" not in bundle


def _refresh_module() -> object:
    return script_module(ROOT / "notebooks" / "refresh.py")


def test_refresh_keeps_static_pictures_and_drops_dead_widget_views() -> None:
    refresh = _refresh_module()
    view = "application/vnd.jupyter.widget-view+json"
    nb = nbformat.v4.new_notebook()
    nb.metadata["widgets"] = {"state": "big"}
    cell = nbformat.v4.new_code_cell("x")
    cell.metadata["execution"] = {"iopub.execute_input": "2026-11-23T10:00:00Z"}
    cell.outputs = [
        nbformat.v4.new_output(
            "display_data",
            data={view: {"model_id": "1f2e3d"}, "text/html": "<p>card</p>", "text/plain": "x"},
        ),
        nbformat.v4.new_output(
            "display_data", data={view: {"model_id": "9a8b7c"}, "text/plain": "VBox() at 0x7f12"}
        ),
    ]
    nb.cells = [cell]
    refresh.tidy(nb)  # type: ignore[attr-defined]
    assert "widgets" not in nb.metadata and "execution" not in cell.metadata
    first, second = cell.outputs
    assert view not in first["data"] and first["data"]["text/html"] == "<p>card</p>"
    assert second["data"][view]["model_id"] == "cell0-output1"
    assert second["data"]["text/plain"] == "VBox()"


def test_refresh_drops_a_progress_bar_that_would_show_stuck_at_0_percent() -> None:
    """fleet_overview.ipynb stored "reading tick files: 0%| | 0/960": a reader in
    JupyterLab saw the bar as it began, as if loading never finished."""
    refresh = _refresh_module()
    view = "application/vnd.jupyter.widget-view+json"
    bar = "reading tick files:   0%|          | 0/960 [00:00<?, ?file/s]"
    cell = nbformat.v4.new_code_cell("fleet = tk.load_universes(runs)")
    cell.outputs = [
        nbformat.v4.new_output("display_data", data={view: {"model_id": "a1"}, "text/plain": bar}),
        nbformat.v4.new_output(
            "display_data", data={view: {"model_id": "b2"}, "text/plain": "VBox()"}
        ),
        nbformat.v4.new_output("stream", name="stdout", text="50%| done as text, kept\n"),
    ]
    nb = nbformat.v4.new_notebook()
    nb.cells = [cell]
    refresh.tidy(nb)  # type: ignore[attr-defined]
    assert [o["output_type"] for o in cell.outputs] == ["display_data", "stream"]
    assert cell.outputs[0]["data"]["text/plain"] == "VBox()"


def test_no_stored_notebook_shows_a_progress_bar() -> None:
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        assert "0/960 [" not in path.read_text(encoding="utf-8"), path.name
        for cell in nbformat.read(path, as_version=4).cells:
            for output in cell.get("outputs", []):
                text = output.get("data", {}).get("text/plain", "")
                assert "%|" not in text, (path.name, text)
