"""Persona views: the agents x dimensions table and the charts (specs, and that they draw)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import vl_convert

import toolkit as tk
from toolkit.views.palette import contrast_ratio, swatch
from toolkit.views.persona import (
    baseline_chart,
    drift_chart,
    persona_heatmap,
    persona_table,
    render_persona_table,
    similarity_chart,
)

FOLDER = Path(__file__).resolve().parents[2] / "sample_runs" / "persona"


@pytest.fixture(scope="module")
def week2() -> tk.PersonaResult:
    return tk.score_persona(
        tk.load_chat(FOLDER / "radio-week2.jsonl"),
        tk.load_propositions(FOLDER / "propositions"),
        tk.RecordedJudge(FOLDER / "cassette.json"),
        baselines=tk.load_baselines(FOLDER / "baselines"),
        windows=8,
    )


def test_table_is_agents_by_dimensions_in_order(week2: tk.PersonaResult) -> None:
    table = persona_table(week2)
    assert table.columns == ["agent_id", "dimension", "baseline", "score", "delta", "status"]
    assert table["agent_id"].unique(maintain_order=True).to_list() == [
        "mags",
        "otis",
        "priya",
        "lenny",
        "environment",
    ]
    assert table["dimension"].head(3).to_list() == ["adherence", "consistency", "fluency"]
    lenny = table.filter(table["agent_id"] == "lenny").row(0, named=True)
    assert lenny["status"] == "REGRESSION"
    assert lenny["delta"] == pytest.approx(lenny["score"] - lenny["baseline"])


def test_a_group_metric_is_shown_and_counted_once_as_the_groups(
    week2: tk.PersonaResult,
) -> None:
    """Convergence is one number for the whole chat: one row (the environment's), one
    regression, not a REGRESSION on each of four agents."""
    table = persona_table(week2)
    convergence = table.filter(table["dimension"] == "convergence")
    assert convergence["agent_id"].to_list() == ["environment"]
    assert convergence["status"].to_list() == ["REGRESSION"]
    regressions = week2.regressions.select("agent_id", "dimension").rows()
    assert sorted(regressions, key=str) == sorted(
        [("lenny", "adherence"), ("lenny", "consistency"), ("lenny", "fluency"),
         ("environment", "convergence")],
        key=str,
    )  # fmt: skip
    assert "4 regression(s)" in render_persona_table(week2)
    # the table's statuses are the scorecards' (a regression is the card's FAIL)
    for key, card in week2.scorecards.items():
        rows = table.filter(table["agent_id"] == key)
        assert rows["dimension"].to_list() == card.dimensions["dimension"].to_list()
        for (status,), card_status, detail in zip(
            rows.select("status").rows(), card.dimensions["status"], card.dimensions["detail"],
            strict=True,
        ):  # fmt: skip
            assert status == card_status or (
                status == "REGRESSION" and card_status == "FAIL" and "REGRESSION" in detail
            )
    # mags, otis and priya are HEALTHY on their cards and have no regression here
    for agent in ("mags", "otis", "priya"):
        assert week2.scorecards[agent].verdict == "HEALTHY"
        assert "REGRESSION" not in table.filter(table["agent_id"] == agent)["status"].to_list()
    assert "REGRESSION" in week2.scorecards["environment"].dimensions["detail"][0]


def test_text_table_lists_regressions_last(week2: tk.PersonaResult) -> None:
    text = render_persona_table(week2)
    assert "regression(s), more than 1 below baseline: lenny adherence" in text.splitlines()[-1]


def test_heatmap_spec_and_render(week2: tk.PersonaResult) -> None:
    spec = persona_heatmap(week2).to_dict()
    rect, text = spec["layer"]
    assert rect["mark"]["type"] == "rect"
    assert rect["encoding"]["color"]["field"] == "status"
    assert text["encoding"]["text"]["field"] == "label"
    values = spec["datasets"][next(iter(spec["datasets"]))]
    # counts (ideas_quantity) are not on the 0-9 heatmap
    assert {v["dimension"] for v in values} == {
        "adherence",
        "consistency",
        "fluency",
        "convergence",
    }
    assert vl_convert.vegalite_to_svg(spec).startswith("<svg")


def test_drift_chart_uses_windows_only(week2: tk.PersonaResult) -> None:
    spec = drift_chart(week2).to_dict()
    values = spec["datasets"][spec["data"]["name"]]
    assert {v["window"] for v in values} == {1, 2, 3, 4}
    lines, *rules = spec["spec"]["layer"]
    assert lines["encoding"]["x"]["field"] == "window"
    # the group's convergence is one line, the environment's
    assert {v["agent_id"] for v in values if v["dimension"] == "convergence"} == {"environment"}
    _assert_band_rules(spec, rules, "y")
    assert vl_convert.vegalite_to_svg(spec).startswith("<svg")


def _assert_band_rules(spec: dict[str, Any], rules: list[dict[str, Any]], axis: str) -> None:
    """Dashed rules at the rubric's OK (7, green) and FAIL (5, red) edges, in every panel."""
    assert [r["mark"]["type"] for r in rules] == ["rule", "rule"]
    drawn = {
        row["status"]: (row["value"], rule["mark"]["color"])
        for rule in rules
        for row in spec["datasets"][rule["data"]["name"]]
    }
    assert drawn == {"OK": (7.0, swatch("OK").on_white), "FAIL": (5.0, swatch("FAIL").on_white)}
    assert all(r["encoding"][axis]["field"] == "value" and r["mark"]["strokeDash"] for r in rules)


def test_baseline_and_similarity_charts_draw(week2: tk.PersonaResult) -> None:
    spec = baseline_chart(week2).to_dict()
    assert spec["facet"]["row"]["field"] == "agent_id"
    assert vl_convert.vegalite_to_svg(spec).startswith("<svg")
    sim = similarity_chart(week2).to_dict()
    assert sim["layer"][1]["mark"]["type"] == "rule"
    assert vl_convert.vegalite_to_svg(sim).startswith("<svg")


def test_baseline_chart_draws_each_agent_only_in_its_own_panel(week2: tk.PersonaResult) -> None:
    spec = baseline_chart(week2).to_dict()
    # the data layers carry no data of their own: the facet splits the one dataset by
    # agent; the threshold rules have theirs, so each panel draws them
    bars, ticks, labels, *rules = spec["spec"]["layer"]
    assert all("data" not in layer for layer in (bars, ticks, labels))
    _assert_band_rules(spec, rules, "x")
    rows = spec["datasets"][spec["data"]["name"]]
    per_agent: dict[str, list[str]] = {}
    for r in rows:
        per_agent.setdefault(r["agent_id"], []).append(r["dimension"])
    # three dimensions with a baseline per agent (counts have none), none twice; the
    # group's convergence once, in the environment's panel
    assert {a: sorted(d) for a, d in per_agent.items()} == {
        **{a: ["adherence", "consistency", "fluency"] for a in ("mags", "otis", "priya", "lenny")},
        "environment": ["convergence"],
    }
    # bars are not stacked and stay on the 0-9 axis
    assert bars["encoding"]["x"]["stack"] is None
    for layer in (bars, ticks, labels):
        assert layer["encoding"]["x"]["scale"]["domain"] == [0, 9]
    # Lenny's regression: 1.04 against 9, red, marked in its label
    lenny = next(r for r in rows if r["agent_id"] == "lenny" and r["dimension"] == "adherence")
    assert lenny["score"] == pytest.approx(1.042857, abs=1e-6) and lenny["baseline"] == 9.0
    assert lenny["state"] == "regression" and lenny["label"] == "1.0 ▼"
    colour = bars["encoding"]["color"]["scale"]
    assert dict(zip(colour["domain"], colour["range"], strict=True))["regression"] == (
        swatch("REGRESSION").fill
    )


def test_heatmap_colours_by_status_with_readable_labels(week2: tk.PersonaResult) -> None:
    spec = persona_heatmap(week2).to_dict()
    rect, text = spec["layer"]
    fill = rect["encoding"]["color"]["scale"]
    ink = text["encoding"]["fill"]["scale"]
    assert fill["domain"] == ink["domain"] and "REGRESSION" in fill["domain"]
    for status, background, label in zip(fill["domain"], fill["range"], ink["range"], strict=True):
        assert contrast_ratio(background, label) >= 4.5, status
    values = spec["datasets"][next(iter(spec["datasets"]))]
    lenny = next(v for v in values if v["agent_id"] == "lenny" and v["dimension"] == "adherence")
    assert lenny["status"] == "REGRESSION" and lenny["label"] == "1.0 ▼"


def test_baseline_chart_needs_baselines() -> None:
    result = tk.score_persona(
        tk.load_chat(FOLDER / "radio-week1.jsonl"),
        tk.load_propositions(FOLDER / "propositions"),
        tk.RecordedJudge(FOLDER / "cassette.json"),
    )
    with pytest.raises(ValueError, match="no baseline comparison"):
        baseline_chart(result)
