"""Outcome results through the generic scorecard views and the outcome charts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest
import vl_convert

from toolkit import (
    OutcomeResult,
    collect_outcome_evidence,
    integrity_chart,
    load_iteration_log,
    load_outcome_rubric,
    outcome_breakdown_chart,
    outcome_explorer,
    outcome_scores_chart,
    render_html,
    render_json,
    render_outcome_table,
    render_text,
    score_outcome,
    scorecards_frame,
    sessions_chart,
)
from toolkit.frames import SCORECARD_SCHEMA
from toolkit.views.palette import contrast_ratio, swatch


@pytest.fixture
def result(tally_log: Path, tally_repo: Path, tally_transcripts: Path) -> OutcomeResult:
    log = load_iteration_log(tally_log)
    evidence = collect_outcome_evidence(log, repo=tally_repo, transcripts=[tally_transcripts])
    return score_outcome(log, evidence)


def test_each_iteration_is_a_scorecard_with_one_dimension_per_signal(
    result: OutcomeResult,
) -> None:
    card = result.scorecard(6)
    assert (card.rubric, card.rubric_version, card.subject) == ("outcome", "2.1.0", "iter-6")
    assert (card.verdict, card.title) == (
        "excellent",
        "Iteration 6 · session 9e0b5c37-1a2d-4f6e-8b90-c4d5e6f7a8b9",
    )
    assert card.verdict_reason == "value 0.8901 from 6 of 7 signals (absent: token_efficiency)"
    dims = card.dimensions
    assert dims.schema == pl.Schema(SCORECARD_SCHEMA)
    assert dims.select("dimension", "value", "status").rows() == [
        ("landed", 1.0, "excellent"),
        ("verifier", 1.0, "excellent"),
        ("tests", 1.0, "excellent"),
        ("correction_pressure", 1.0, "excellent"),
        ("scope", 1.0, "excellent"),
        ("hook_outcomes", 0.0, "poor"),
        ("token_efficiency", None, "absent"),
    ]
    assert scorecards_frame(result.scorecards()).height == 6 * 7


def test_the_generic_views_render_an_outcome_scorecard(result: OutcomeResult) -> None:
    card = result.scorecard(4)
    text = render_text(card)
    assert "  [fair]      Scope adherence             0.667  2/3 changed files" in text
    assert text.splitlines()[-1].startswith("Verdict: good (value 0.7696 from 6 of 7 signals")
    html = render_html(card)
    assert "data-rubric='outcome'" in html and "data-verdict='good'" in html
    doc = json.loads(render_json(card))
    assert (doc["iteration"], doc["band"], doc["value"]) == (4, "good", 0.7696)
    assert [d["key"] for d in doc["dimensions"]][-1] == "token_efficiency"


def test_iteration_text_lists_the_objectives_after_the_score(result: OutcomeResult) -> None:
    from toolkit.views.outcome import render_outcome_iteration

    text = render_outcome_iteration(result, 4, width=80)
    head, _, objectives = text.partition("Objectives (checked, beside the score and not in it")
    assert "Breakdown" in head and "Integrity" in head
    lines = objectives.splitlines()[1:]
    assert lines[0].split()[:3] == ["ran_cli_command", "1", "3"]
    assert any(line.split()[:2] == ["read_loop_state", "0"] for line in lines)
    assert lines[-1].split()[:2] == ["tests_added_by_kind_in_diff", "-"]
    assert max(len(line) for line in lines) <= 80


def test_unscored_iteration_scorecard(tmp_path: Path) -> None:
    # Unscored needs a rubric without correction pressure (never absent: raw counts).
    (tmp_path / "iter-1.yaml").write_text("schema_version: 2\niteration: 1\n")
    log = load_iteration_log(tmp_path)
    only_verifier = [{"signal": "verifier", "label": "Verifier results", "weight": 1.0}]
    rubric = load_outcome_rubric({"version": "2.1.0-verifier-only", "signals": only_verifier})
    card = score_outcome(log, collect_outcome_evidence(log), rubric).scorecard(1)
    assert (card.verdict, card.verdict_reason) == ("unscored", "no signal present")
    assert set(card.dimensions["status"].to_list()) == {"absent"}


def test_table_lists_over_claims_worst_first(result: OutcomeResult) -> None:
    text = render_outcome_table(result)
    block = text.split("Over-claims (observed - claimed < 0)\n")[1].splitlines()
    assert block[0].split() == [
        "iter", "2", "landed", "impl", "claimed", "1.00", "observed", "0.00", "delta", "-1.00",
    ]  # fmt: skip
    assert block[3].split()[1:4] == ["4", "scope", "impl"]


def test_charts_encode_what_the_notebook_shows(result: OutcomeResult) -> None:
    chart = outcome_scores_chart(result).to_dict()
    scores, *edges = chart["layer"]
    assert scores["mark"]["type"] == "bar"
    # each band's lower edge (but 0) dashed in the band's colour, from the rubric's data
    rules = [e for e in edges if e["mark"]["type"] == "rule"]
    drawn = {
        row["status"]: row["value"] for e in rules for row in chart["datasets"][e["data"]["name"]]
    }
    assert drawn == {b.band: b.min for b in result.rubric.bands if b.min > 0}
    assert drawn == {"excellent": 0.85, "good": 0.70, "fair": 0.50}
    for rule in rules:
        (band,) = {row["status"] for row in chart["datasets"][rule["data"]["name"]]}
        assert rule["mark"]["color"] == swatch(band).on_white and rule["mark"]["strokeDash"]
    assert scores["encoding"]["y"]["title"] == "outcome score (0-1)"
    assert scores["encoding"]["color"]["field"] == "band"
    assert scores["encoding"]["color"]["scale"]["domain"] == [
        "excellent",
        "good",
        "fair",
        "poor",
        "unscored",
    ]
    breakdown = outcome_breakdown_chart(result, 4).to_dict()
    assert breakdown["encoding"]["x"]["field"] == "contribution"
    values = next(iter(breakdown["datasets"].values()))
    assert sum(v["contribution"] for v in values) == pytest.approx(0.7696, abs=1e-12)
    sessions = sessions_chart(result).to_dict()
    bars, *session_rules = sessions["layer"]
    assert bars["encoding"]["y"]["field"] == "session_id"
    assert {
        row["status"]: row["value"]
        for rule in session_rules
        for row in sessions["datasets"][rule["data"]["name"]]
    } == {"excellent": 0.85, "good": 0.70, "fair": 0.50}
    assert all(r["encoding"]["x"]["field"] == "value" for r in session_rules)
    assert sessions["title"]["subtitle"] == "dashed: excellent >= 0.85, good >= 0.7, fair >= 0.5"


def _rows(spec: dict[str, Any]) -> list[dict[str, Any]]:
    return spec["datasets"][spec["data"]["name"]]  # type: ignore[no-any-return]


def test_integrity_heat_map_is_worst_first_with_few_wide_cells(result: OutcomeResult) -> None:
    spec = integrity_chart(result).to_dict()
    cells, labels = spec["layer"]
    rows = _rows(spec)
    # iteration 6 agrees everywhere: left out, and the subtitle says so
    assert {r["iteration"] for r in rows} == {1, 2, 4, 5}
    assert spec["title"]["subtitle"].startswith("1 iteration(s) where every claim matched")
    # rows: worst first (5 has two -1.00 over-claims; 2 one, then +0.50/+1.00)
    assert cells["encoding"]["y"]["sort"] == [5, 2, 4, 1]
    # columns: pairs (five), worst first; wide cells, horizontal labels
    assert cells["encoding"]["x"]["sort"][:2] == ["landed · impl", "tests · impl"]
    assert spec["width"] == {"step": 120} and spec["height"] == {"step": 28}
    assert cells["encoding"]["x"]["axis"]["labelAngle"] == 0
    # labels: signed, two decimals, and "0" for agreement
    by_cell = {(r["iteration"], r["pair"]): r["label"] for r in rows}
    assert by_cell[(5, "landed · impl")] == "-1.00"
    assert by_cell[(2, "scope · impl")] == "+0.50"
    assert by_cell[(5, "scope · impl")] == "0"
    # tooltips round, on cells and labels alike (one base encoding)
    tips = {t["field"]: t.get("format") for t in cells["encoding"]["tooltip"]}
    assert tips["delta"] == "+.2f" and tips["claimed"] == ".2f"
    assert labels["encoding"]["tooltip"] == cells["encoding"]["tooltip"]


def test_integrity_labels_keep_aa_contrast_on_their_cells(result: OutcomeResult) -> None:
    spec = integrity_chart(result).to_dict()
    cells, labels = spec["layer"]
    fill = cells["encoding"]["color"]["scale"]
    ink = labels["encoding"]["fill"]["scale"]
    assert fill["domain"] == ink["domain"]
    for step, background, text in zip(fill["domain"], fill["range"], ink["range"], strict=True):
        assert contrast_ratio(background, text) >= 4.5, step
    # each row's step is the bin of its delta
    steps = {r["delta"]: r["step"] for r in _rows(spec)}
    assert steps[-1.0] == "over-claim ≥ 0.5" and steps[0.0] == "agrees"
    assert steps[-0.25] == "over-claim < 0.5" and steps[1.0] == "under-claim ≥ 0.5"


def test_integrity_heat_map_caps_its_rows(result: OutcomeResult) -> None:
    spec = integrity_chart(result, max_rows=2).to_dict()
    assert {r["iteration"] for r in _rows(spec)} == {5, 2}
    assert "2 more with mismatches beyond the worst 2" in spec["title"]["subtitle"]


def test_a_chart_draws(result: OutcomeResult) -> None:
    svg = vl_convert.vegalite_to_svg(integrity_chart(result).to_dict())
    assert svg.startswith("<svg")


def test_the_explorer_switches_iterations(result: OutcomeResult) -> None:
    app = outcome_explorer(result, iteration=5)
    picker, card, _ = app.children
    assert picker.options == (1, 2, 3, 4, 5, 6) and picker.value == 5
    assert "data-verdict='poor'" in card.value
    picker.value = 2
    assert "data-verdict='good'" in card.value and "Iteration 2" in card.value


def test_the_table_and_an_iteration_say_the_thresholds_of_the_bands(result: OutcomeResult) -> None:
    """Each signal's status and the value are bands of the rubric: the text names each
    band's threshold (read here from the packaged YAML), at 80 columns."""
    import yaml

    from toolkit.views.outcome import render_outcome_iteration

    packaged = Path(__file__).resolve().parents[2] / "toolkit" / "rubrics" / "outcome.yaml"
    bands = yaml.safe_load(packaged.read_text(encoding="utf-8"))["bands"]
    said = [f"{b['band']} >= {b['min']:.2f}" for b in bands[:-1]]
    said.append(f"{bands[-1]['band']} below {bands[-2]['min']:.2f}")
    line = "Bands: " + ", ".join(said)
    for text in (render_outcome_table(result, width=80), render_outcome_iteration(result, 4)):
        assert line in text.splitlines()
    iteration = render_outcome_iteration(result, 4, width=80).splitlines()
    assert max(len(x) for x in iteration) <= 80
    verdict = next(i for i, x in enumerate(iteration) if x.startswith("Verdict: "))
    breakdown = next(i for i, x in enumerate(iteration) if x.startswith("Breakdown"))
    assert iteration.index(line) == breakdown - 1 and verdict < breakdown - 1  # under the card
    assert json.loads(render_json(result.scorecard(4)))["band"] == "good"  # JSON as it was
