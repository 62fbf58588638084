"""Simulation charts (on their Vega-Lite spec, and drawn once headless) and the live panel."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import SAMPLE_RUNS, refused_v1, tick_v1, write_run

import toolkit as tk
from toolkit.views.html import STATUS_COLOURS


@pytest.fixture(scope="module")
def failed_card() -> tk.Scorecard:
    return tk.score_universe(tk.load_universe(SAMPLE_RUNS / "universes" / "ashfall"))[0]


def _dataset(spec: dict[str, Any], view: dict[str, Any]) -> list[dict[str, Any]]:
    return spec["datasets"][view["data"]["name"]]  # type: ignore[no-any-return]


def test_panel_has_eight_cells_coloured_by_status(failed_card: tk.Scorecard) -> None:
    spec = tk.quality_panel(failed_card).to_dict()
    top = spec["vconcat"][0]
    cells = _dataset(spec, top)
    assert cells[0]["name"] == "Groundedness"
    assert len(cells) == 8  # rubric 1.2.0: seven counted, novel subtype rate informational
    assert cells[-1]["name"] == "Novel subtype rate" and cells[-1]["status"] == "WARN"
    assert {c["dimension"]: c["status"] for c in cells}["refusal_cluster"] == "FAIL"
    rect = top["layer"][0]
    assert rect["mark"]["type"] == "rect"
    scale = rect["encoding"]["color"]["scale"]
    assert dict(zip(scale["domain"], scale["range"], strict=True))["FAIL"] == STATUS_COLOURS["FAIL"]
    assert top["title"]["text"] == "Ashfall · last 50 ticks — FAILED"
    assert top["title"]["subtitle"].endswith(
        "informational, not in the verdict: novel subtype rate"
    )


def test_clicking_a_cell_filters_the_time_series(failed_card: tk.Scorecard) -> None:
    spec = tk.quality_panel(failed_card).to_dict()
    params = spec["params"]
    pick = next(p for p in params if p["name"] == "pick")
    assert pick["select"]["type"] == "point" and pick["select"]["fields"] == ["dimension"]
    # it opens on the worst dimension: the first FAIL (groundedness is OK here)
    assert pick["value"] == [{"dimension": "character_stability"}]
    bottom = spec["vconcat"][1]
    line = bottom["layer"][0]
    assert line["transform"] == [{"filter": {"param": "pick", "empty": False}}]
    series = _dataset(spec, line)
    # Every dimension has a value at every tick file of the run (ticks 101..164).
    assert len(series) == 8 * 64
    assert {r["dimension"] for r in series} == set(failed_card.dimensions["dimension"])


def test_panel_opens_on_the_worst_dimension() -> None:
    degraded = tk.score_universe(tk.load_universe(SAMPLE_RUNS / "universes" / "harbor-town"))[0]
    statuses = dict(degraded.dimensions.select("dimension", "status").iter_rows())
    assert "FAIL" not in statuses.values()
    first_warn = next(k for k, v in statuses.items() if v == "WARN")
    assert tk.views.simulation.worst_dimension(degraded) == first_warn
    spec = tk.quality_panel(degraded).to_dict()
    pick = next(p for p in spec["params"] if p["name"] == "pick")
    assert pick["value"] == [{"dimension": first_warn}]


def test_series_chart_names_the_selected_dimension_and_rounds(failed_card: tk.Scorecard) -> None:
    spec = tk.quality_panel(failed_card).to_dict()
    bottom = spec["vconcat"][1]
    title = bottom["title"]["text"]["expr"]
    assert "pick.dimension[0]" in title and '"character_stability": "Character stability"' in title
    tips = {t["field"]: t.get("format") for t in bottom["layer"][1]["encoding"]["tooltip"]}
    assert tips["value"] == ".3f"
    # the title the browser computes for the opening selection names it
    vlc = pytest.importorskip("vl_convert")
    assert "Trailing-window value of Character stability" in vlc.vegalite_to_svg(spec)


def test_status_text_is_readable_on_every_cell(failed_card: tk.Scorecard) -> None:
    from toolkit.views.palette import contrast_ratio

    top = tk.quality_panel(failed_card).to_dict()["vconcat"][0]
    fill = top["layer"][0]["encoding"]["color"]["scale"]
    for text in top["layer"][1:]:
        ink = text["encoding"]["fill"]["scale"]
        assert ink["domain"] == fill["domain"]
        for a, b in zip(fill["range"], ink["range"], strict=True):
            assert contrast_ratio(a, b) >= 4.5


def test_the_series_draws_the_picked_dimensions_ok_and_fail_edges(
    failed_card: tk.Scorecard,
) -> None:
    from toolkit.rubrics.simulation import DEFAULT_RUBRIC, load_simulation_rubric

    spec = tk.quality_panel(failed_card).to_dict()
    bottom = spec["vconcat"][1]
    rules = [layer for layer in bottom["layer"] if layer["mark"]["type"] == "rule"]
    assert len(rules) == 2  # one layer per status colour: OK's edges, FAIL's edges
    lines = [row for rule in rules for row in _dataset(spec, rule)]
    by_dim = {(r["dimension"], r["status"]): r["value"] for r in lines}
    # the rubric's own numbers, on the value each series plots
    assert by_dim[("groundedness", "OK")] == DEFAULT_RUBRIC.groundedness.ok_min == 0.95
    assert by_dim[("groundedness", "FAIL")] == 0.85
    assert by_dim[("refusal_cluster", "FAIL")] == 5.0
    assert by_dim[("action_coherence", "OK")] == 15.0  # the streak the series plots
    for rule in rules:  # only the picked dimension's lines, dashed, in the palette's colour
        assert {"filter": {"param": "pick", "empty": False}} in rule["transform"]
        assert rule["mark"]["strokeDash"]
    colours = {rule["mark"]["color"] for rule in rules}
    assert colours == {"#2e7d32", "#c62828"}
    # a card scored by a tuned rubric draws that rubric's edges
    tuned = load_simulation_rubric(
        {"version": "9.0.0", "groundedness": {"ok_min": 0.9, "fail_below": 0.5}}
    )
    tuned_spec = tk.quality_panel(failed_card, rubric=tuned).to_dict()
    rows = [
        row
        for layer in tuned_spec["vconcat"][1]["layer"]
        if layer["mark"]["type"] == "rule"
        for row in _dataset(tuned_spec, layer)
    ]
    assert {(r["dimension"], r["value"]) for r in rows} >= {("groundedness", 0.5)}


def test_dots_keep_clear_of_the_chart_edges(failed_card: tk.Scorecard) -> None:
    u = tk.load_universe(SAMPLE_RUNS / "universes" / "ashfall")
    fan = tk.fanout_chart(tk.fanout_series(u.checkpoints).collect()).to_dict()
    bottom = tk.quality_panel(failed_card).to_dict()["vconcat"][1]
    for x in (fan["layer"][0]["encoding"]["x"], bottom["layer"][0]["encoding"]["x"]):
        assert x["scale"]["padding"] >= 8 and x["scale"]["nice"] is False
    assert fan["layer"][0]["encoding"]["y"]["scale"]["padding"] >= 8
    assert fan["layer"][0]["encoding"]["y"]["title"] == "fan-out (edges / nodes)"


def test_fanout_chart_plots_each_checkpoint() -> None:
    u = tk.load_universe(SAMPLE_RUNS / "universes" / "ashfall")
    spec = tk.fanout_chart(tk.fanout_series(u.checkpoints).collect()).to_dict()
    data = (
        spec["datasets"][spec["data"]["name"]]
        if "data" in spec
        else _dataset(spec, spec["layer"][0])
    )
    assert [r["tick"] for r in data] == [120, 130, 140, 150, 160]
    # the status is the slope's, so its edges are named, not drawn on the level axis
    # the packaged rubric (1.2.0): the slope itself stays below the FAIL edge
    assert spec["title"]["subtitle"] == (
        "status from the slope per 10 ticks over the last 5 checkpoints: OK >= 0; "
        "FAIL < -0.02 at each of the last 3 checkpoints"
    )
    assert data[-1]["status"] == "FAIL"
    assert data[0]["fan_out"] == pytest.approx(47 / 20)


def test_fanout_subtitle_states_the_rule_of_the_rubric_applied() -> None:
    """The subtitle said 1.1.0's rule (each step between checkpoints) under the 1.2.0 rubric
    whose card sits above it; it now follows the rubric's ``sustained`` setting."""
    from toolkit.rubrics.simulation.spec import RUBRIC_1_1_0

    u = tk.load_universe(SAMPLE_RUNS / "universes" / "ashfall")
    series = tk.fanout_series(u.checkpoints, RUBRIC_1_1_0).collect()
    subtitle = tk.fanout_chart(series, rubric=RUBRIC_1_1_0).to_dict()["title"]["subtitle"]
    assert subtitle.endswith(
        "FAIL < -0.02 with each of the last 3 steps between checkpoints < -0.02"
    )


def test_charts_draw_headless(failed_card: tk.Scorecard) -> None:
    vlc = pytest.importorskip("vl_convert")
    svg = vlc.vegalite_to_svg(tk.quality_panel(failed_card).to_dict())
    assert svg.startswith("<svg") and "Ashfall" in svg and "FAIL" in svg
    assert STATUS_COLOURS["FAIL"] in svg


def test_highlight_markers_marks_the_marker_and_escapes_text() -> None:
    u = tk.load_universe(SAMPLE_RUNS / "universes" / "ashfall")
    html = tk.highlight_markers(tk.character_breaks(u))
    assert "<mark>framework</mark>" in html
    assert html.count("<tr>") == 1 + 10  # header + 10 breaks in the window
    import polars as pl

    tricky = pl.DataFrame(
        {"slug": ["s"], "tick": [1], "actor": ["a"], "marker": ["operator"],
         "action_text": ["<b>Ask the Operator</b>"]}
    )  # fmt: skip
    assert "&lt;b&gt;Ask the <mark>Operator</mark>&lt;/b&gt;" in tk.highlight_markers(tricky)


def test_html_scorecard_has_a_coloured_cell_per_dimension(failed_card: tk.Scorecard) -> None:
    html = tk.render_html(failed_card)
    assert html.count("class='tk-status'") == 8 + 1  # eight dimensions and the verdict
    assert html.count(f"background:{STATUS_COLOURS['FAIL']}") == 6 + 1
    assert "data-verdict='FAILED'" in html


def test_json_rendering_round_trips(failed_card: tk.Scorecard) -> None:
    data = json.loads(tk.render_json(failed_card))
    assert data["verdict"] == "FAILED" and len(data["dimensions"]) == 8
    assert data["informational"] == ["novel_subtype_rate"]


def test_live_panel_picks_up_new_ticks(tmp_path: Path) -> None:
    root = write_run(tmp_path / "live", [tick_v1(n) for n in range(1, 21)])

    def rescore() -> tk.Scorecard:
        return tk.score_universe(tk.load_universe(root), window=20)[0]

    panel = tk.LivePanel(rescore, interval=0.05)
    assert panel.card is not None and panel.card.verdict != "FAILED"
    assert "refresh #1" in panel.status.value
    write_run(root, [refused_v1(n) for n in range(21, 27)])  # a refusal wedge arrives
    panel.start()
    deadline = time.monotonic() + 10
    while panel.card.verdict != "FAILED" and time.monotonic() < deadline:
        time.sleep(0.05)
    panel.stop()
    assert panel.card.verdict == "FAILED"
    assert panel.card.meta["last_tick"] == 26
    assert "FAILED" in panel.scorecard.value
    assert not panel.running and panel.toggle.value is False


def test_live_panel_toggle_starts_and_stops(tmp_path: Path) -> None:
    root = write_run(tmp_path / "live", [tick_v1(n) for n in range(1, 5)])
    panel = tk.LivePanel(lambda: tk.score_universe(tk.load_universe(root))[0], interval=0.05)
    panel.toggle.value = True
    assert panel.running
    panel.toggle.value = False
    assert not panel.running


def test_live_panel_keeps_the_last_good_card_when_a_refresh_fails(tmp_path: Path) -> None:
    root = write_run(tmp_path / "live", [tick_v1(n) for n in range(1, 5)])
    panel = tk.LivePanel(lambda: tk.score_universe(tk.load_universe(root))[0], interval=10)
    shutil.rmtree(root)
    with pytest.raises(tk.InputError):
        panel.refresh()
    assert panel.card is not None and "refresh failed" in panel.status.value
