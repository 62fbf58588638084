"""`toolkit experiment` on the-office's experiment runner report: told apart by shape, its
numbers read as reported, and against a reference per metric whether the direction
matches and the share of the reference's significant findings reproduced.

Expected values by hand from sample_runs/experiments/harbour_council_office_report.json
and harbour_council_reference.json (deltas and p-values read off the two files).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import SAMPLE_RUNS

import toolkit as tk
from toolkit.cli import main
from toolkit.load.experiments import is_office_report

FOLDER = SAMPLE_RUNS / "experiments"
REPORT = FOLDER / "harbour_council_office_report.json"
REFERENCE = FOLDER / "harbour_council_reference.json"
NAMED = f"harbour_council_gate={REPORT}"


def test_the_report_is_told_apart_by_shape_and_read_as_reported() -> None:
    data = json.loads(REPORT.read_text("utf-8"))
    assert is_office_report(data)
    tinytroupe = json.loads((FOLDER / "harbour_council_gate.json").read_text("utf-8"))
    assert not is_office_report(tinytroupe)
    loaded = tk.load_experiment(REPORT)
    assert loaded.scores.height == 0
    rows = {r["metric"]: r for r in loaded.reported.iter_rows(named=True)}
    assert list(rows) == [
        "persona_adherence", "self_consistency", "fluency", "divergence", "ideas_qty"
    ]  # fmt: skip
    adherence = rows["persona_adherence"]
    assert adherence["experiment"] == "harbour-council-gate"  # the scenario: not a Table 1 one
    assert (adherence["t_mean"], adherence["c_mean"], adherence["delta"]) == (7.125, 5.75, 1.375)
    t = data["metrics"]["adherence"]["tTest"]
    assert adherence["reported_t"] == -t["tStatistic"]  # kept as control - treatment
    assert adherence["p_value"] == t["pValue"] and adherence["significant"] is True


def test_a_table1_scenario_is_named_as_its_experiment(tmp_path: Path) -> None:
    data = json.loads(REPORT.read_text("utf-8"))
    path = tmp_path / "run.json"
    path.write_text(json.dumps({**data, "scenario": "brainstorming-average"}), "utf-8")
    assert set(tk.load_experiment(path).reported["experiment"]) == {"exp_1"}


def test_reproduction_against_the_reference() -> None:
    reported = tk.load_experiments([NAMED]).reported
    result = tk.office_reproduction(reported, tk.load_reference_table(REFERENCE))
    got = {r["metric"]: r for r in result.rows.iter_rows(named=True)}
    # ours: +1.375, -0.2083, +0.2917, -0.8333, +4.3333; reference: +0.71, +0.12, -0.66,
    # +0.35, +2.9 with p 0.012, 0.62, <0.001, 0.61, 0.004
    assert [got[m]["same_direction"] for m in got] == [True, False, False, False, True]
    assert [got[m]["counted"] for m in got] == [True, False, True, False, True]
    assert (result.matched, result.significant) == (2, 3)
    assert result.share == pytest.approx(2 / 3)
    assert got["fluency"]["detail"] == "opposite direction"


def test_a_reference_difference_of_zero_counts_as_the_same_direction(tmp_path: Path) -> None:
    ref = tmp_path / "ref.json"
    ref.write_text(json.dumps({"experiments": {"harbour_council_gate": {"metrics": {
        "Fluency": {"delta": 0, "p_value": 0.01}}}}}), "utf-8")  # fmt: skip
    reported = tk.load_experiments([NAMED]).reported
    result = tk.office_reproduction(reported, tk.load_reference_table(ref))
    fluency = result.rows.filter(result.rows["metric"] == "fluency").row(0, named=True)
    assert fluency["same_direction"] is True and (result.matched, result.significant) == (1, 1)


def test_cli_prints_the_table_and_the_share(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["experiment", NAMED, "--reference", str(REFERENCE)])
    out = capsys.readouterr().out
    assert code == 0
    assert out.splitlines()[0].split()[:4] == ["experiment", "metric", "T", "mean"]
    assert "harbour_council_gate  persona_adherence  7.13 (1.26)  5.75 (1.15)  1.38" in out
    assert "Reproduced overall: 2/3 of the reference's significant findings" in out
    assert "fluency: Δ 0.29 vs reference -0.66 (p <0.001): direction matches: no" in out


def test_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["experiment", NAMED, "--reference", str(REFERENCE), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["reproduced"]["matched"] == 2 and doc["reproduced"]["significant"] == 3
    assert len(doc["reported"]) == 5


@pytest.mark.parametrize("extra", [["--test", "mannwhitney"], ["--format", "latex"], ["--gate"]])
def test_cli_refuses_what_a_summary_cannot_do(
    extra: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["experiment", NAMED, *extra]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_a_bad_number_names_the_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(REPORT.read_text("utf-8"))
    data["metrics"]["fluency"]["tTest"]["pValue"] = "0.2"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), "utf-8")
    assert main(["experiment", str(path)]) == 2
    assert "metrics.fluency.tTest.pValue" in capsys.readouterr().err
