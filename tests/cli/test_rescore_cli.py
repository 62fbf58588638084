"""`toolkit rescore`: outcome and simulation runs re-scored under two rubrics, the split of a
change since stored scores, the threshold sweep (table, JSON, chart), the Python API, and
bad input (exit 2, one line). Expected numbers are worked out by hand from the rubrics."""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, SAMPLE_RUNS, script_module

import toolkit as tk
from toolkit.cli import main
from toolkit.io import edge

TALLY = SAMPLE_RUNS / "iteration_logs" / "tally-loop"
FLEET = SAMPLE_RUNS / "fleet"

#: Outcome 2.1.0 with correction_pressure weighted 0.26 (landed gives up 0.13): a
#: version of our own, so the weights still sum to 1.
HEAVIER_CORRECTIONS = """\
rubric: outcome
version: 9.0.0
signals:
  - {signal: landed, label: Landed on trunk, weight: 0.07}
  - {signal: verifier, label: Verifier results, weight: 0.18}
  - {signal: tests, label: Test outcomes, weight: 0.17}
  - {signal: correction_pressure, label: Correction pressure, weight: 0.26}
  - {signal: scope, label: Scope adherence, weight: 0.13}
  - {signal: hook_outcomes, label: Hook-gate outcomes, weight: 0.10}
  - {signal: token_efficiency, label: Token & cache efficiency, weight: 0.09}
"""


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["rescore", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_sample_log_from_2_1_0_to_3_0_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli([str(TALLY), "--rubric", "2.1.0", "--rubric", "3.0.0",
                            "--format", "json"], capsys)  # fmt: skip
    assert code == 0
    doc = json.loads(out)
    assert doc["a"]["label"] == "outcome 2.1.0" and doc["b"]["label"] == "outcome 3.0.0"
    runs = {r["subject"]: r for r in doc["runs"]}
    # iteration 3 has no reviewers' label: its two signals (correction 0.5, scope 1.0)
    # keep their ratio under both versions: 0.75 either way
    assert runs["3"]["value_a"] == 0.75 and runs["3"]["value_b"] == 0.75
    assert runs["1"]["delta"] == 0.0  # every present signal 1.0: 1.0 either way
    assert any("version" in line for line in doc["differences"])
    assert "human_label: scored under outcome 3.0.0 only" in doc["notes"]


def test_text_fits_80_columns(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli([str(TALLY), "--rubric", "2.1.0", "--rubric", "3.0.0"], capsys)
    assert code == 0 and "Per iteration" in out
    assert max(len(line) for line in out.splitlines()) <= 80


@pytest.fixture
def planted_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """The sample log with sidecars written under 2.1.0, then iteration 3's retries
    raised from 1 to 3 (an input change after the scores were stored)."""
    log = tmp_path / "log"
    shutil.copytree(TALLY, log)
    assert main(["outcome", str(log), "--write"]) == 0
    capsys.readouterr()
    entry = log / "iter-3.yaml"
    text = entry.read_text()
    assert "\nretries: 1\n" in text
    entry.write_text(text.replace("\nretries: 1\n", "\nretries: 3\n"))
    return log


def test_a_planted_rubric_change_and_input_change_are_separated(
    planted_log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rubric = tmp_path / "heavier.yaml"
    rubric.write_text(HEAVIER_CORRECTIONS)
    code, out, _ = run_cli([str(planted_log), "--rubric", "2.1.0", "--rubric", str(rubric),
                            "--format", "json"], capsys)  # fmt: skip
    assert code == 0
    doc = json.loads(out)
    runs = {r["subject"]: r for r in doc["runs"]}
    third = runs["3"]
    # iteration 3 has two signals: scope 1.0 ("on-target ..."), correction_pressure
    # 1 / (1 + retries). Stored (2.1.0, retries 1): (0.13*0.5 + 0.13*1) / 0.26 = 0.75.
    assert third["value_stored"] == 0.75 and third["verdict_stored"] == "good"
    # A now (2.1.0, retries 3): (0.13*0.25 + 0.13*1) / 0.26 = 0.625 -> fair
    assert third["value_a"] == pytest.approx(0.625) and third["verdict_a"] == "fair"
    # B now (correction 0.26): (0.26*0.25 + 0.13*1) / 0.39 = 0.5 -> fair (min 0.50)
    assert third["value_b"] == pytest.approx(0.5) and third["verdict_b"] == "fair"
    assert third["inputs_changed"] is True
    assert third["from_inputs"] == pytest.approx(-0.125)
    assert third["from_rubric"] == pytest.approx(-0.125)
    assert third["flipped_inputs"] is True  # good -> fair came from the inputs
    for n in ("1", "2", "4", "5", "6"):  # untouched: the whole change is the rubric's
        assert runs[n]["inputs_changed"] is False and runs[n]["from_inputs"] == 0.0
        assert runs[n]["from_rubric"] == pytest.approx(runs[n]["value_b"] - runs[n]["value_a"])
    assert doc["overall"]["inputs_changed"] == 1
    assert doc["overall"]["flips_from_inputs"] == 1


def test_markdown_and_output_file(planted_log: Path, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    target = tmp_path / "rescore.md"
    code, out, _ = run_cli([str(planted_log), "--rubric", "2.1.0", "--rubric", "3.0.0",
                            "--format", "markdown", "-o", str(target)], capsys)  # fmt: skip
    assert code == 0 and out == ""
    text = target.read_text()
    assert text.startswith("## Rescore of") and "| 3 |" in text and "from inputs" in text


def test_the_markdown_heading_shows_a_path_with_brackets_as_it_is(
    planted_log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found in review: inside backticks Markdown decodes no entity, so an escaped
    ``<`` showed as ``&lt;``; the code span holds the path itself."""
    odd = planted_log.rename(tmp_path / "a<b>&c")
    code, out, _ = run_cli([str(odd), "--rubric", "2.1.0", "--rubric", "3.0.0",
                            "--format", "markdown"], capsys)  # fmt: skip
    assert code == 0
    assert out.startswith(f"## Rescore of `{odd}` (outcome)\n")


def _small_fleet(tmp_path: Path) -> Path:
    """Four runs of the sample fleet. Under 1.2.0 (groundedness OK at 0.95, FAIL below
    0.85; quality --all shows the statuses): run-0000 groundedness 0.94 WARN (action
    coherence and fan-out WARN too: DEGRADED); run-0001 1.00, all OK (HEALTHY); run-0003
    0.96, all OK (HEALTHY); run-0014 0.94 WARN, fan-out FAIL (FAILED)."""
    fleet = tmp_path / "fleet"
    for run in ("run-0000", "run-0001", "run-0003", "run-0014"):
        shutil.copytree(FLEET / run, fleet / run)
    return fleet


def test_a_sweep_counts_the_flips_worked_out_by_hand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fleet = _small_fleet(tmp_path)
    code, out, _ = run_cli([str(fleet), "--sweep", "groundedness.ok_min=0.93:0.97:0.02",
                            "--format", "json"], capsys)  # fmt: skip
    assert code == 0
    rows = {r["value"]: r for r in json.loads(out)["values"]}
    # 0.93: run-0000 and run-0014 turn OK (2 status flips), but each keeps another
    # WARN or FAIL: no verdict flips.
    assert (rows[0.93]["flips"], rows[0.93]["status_flips"], rows[0.93]["HEALTHY"]) == (0, 2, 2)
    assert (rows[0.95]["flips"], rows[0.95]["status_flips"]) == (0, 0)  # the rubric's own
    # 0.97: run-0003 (0.96) turns WARN: HEALTHY -> DEGRADED, one flip
    assert (rows[0.97]["flips"], rows[0.97]["status_flips"], rows[0.97]["HEALTHY"]) == (1, 1, 1)
    assert rows[0.97]["DEGRADED"] == 2 and rows[0.97]["FAILED"] == 1


def test_a_sweep_table_and_chart(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    chart = tmp_path / "sweep.html"
    code, out, err = run_cli([str(FLEET), "--sweep", "groundedness.ok_min=0.8:1:0.05",
                              "--chart", str(chart)], capsys)  # fmt: skip
    assert code == 0
    assert "0.95 *" in out  # the rubric's own value, marked
    assert "0.8: not a valid rubric" in out  # below fail_below 0.85
    assert max(len(line) for line in out.splitlines()) <= 80
    assert (
        chart.read_text().lstrip().lower().startswith("<!doctype html")
        or "vega" in chart.read_text()
    )
    assert "wrote the chart" in err


def test_simulation_stored_scores_split_an_edited_tick_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fleet = _small_fleet(tmp_path)
    stored = tmp_path / "stored"
    stored.mkdir()
    for run in ("run-0001", "run-0003"):
        assert main(["quality", str(fleet / run), "--format", "json"]) == 0
        (stored / f"{run}.json").write_text(capsys.readouterr().out)
    tick = fleet / "run-0003" / "tick_summaries" / "ticks" / "tick_30.json"
    data = json.loads(tick.read_text())
    data["action_text"] += " (rewritten)"  # token-world rewrote a tick in place
    tick.write_text(json.dumps(data))
    code, out, _ = run_cli([str(fleet), "--rubric", "1.2.0", "--rubric", "1.1.0",
                            "--stored", str(stored), "--format", "json"], capsys)  # fmt: skip
    assert code == 0
    runs = {r["subject"]: r for r in json.loads(out)["runs"]}
    assert runs["run-0001"]["inputs_changed"] is False
    assert runs["run-0003"]["inputs_changed"] is True
    assert runs["run-0000"]["note"] == "no stored score"


# ---------------------------------------------------------------------------
# A 300-run fleet: no judge, no tick file read twice
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fleet_300(tmp_path_factory: pytest.TempPathFactory) -> Path:
    module = script_module(ROOT / "bench" / "make_fleet.py")
    out = tmp_path_factory.mktemp("fleet300") / "fleet"
    module.write_fleet(out, runs=300, ticks=12, nights=4, seed=3)
    return out


def test_a_300_run_fleet_is_read_once_and_never_judged(
    fleet_300: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: Counter[str] = Counter()
    real_open = os.open

    def counting_open(path: Any, *args: Any, **kwargs: Any) -> int:
        if "tick_" in os.fspath(path):
            opened[os.fspath(path)] += 1
        return real_open(path, *args, **kwargs)

    def no_judge(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a rubric change called a judge")

    monkeypatch.setattr(os, "open", counting_open)
    c_reader = edge._c_read_packed  # the optional C reader opens files in C: count them too
    if c_reader is not None:

        def counting_c_reader(names: list[str], start: int, *rest: Any) -> Any:
            data, ends, count = c_reader(names, start, *rest)
            for path in names[start : start + count]:
                if "tick_" in path:
                    opened[path] += 1
            return data, ends, count

        monkeypatch.setattr(edge, "_c_read_packed", counting_c_reader)
    monkeypatch.setattr("toolkit.judge.judge_from_spec", no_judge)
    monkeypatch.setattr("toolkit.judge._protocol.build_prompt", no_judge)
    stricter = {"version": "1.2.0-strict", "refusal_cluster": {"ok_max": 1, "fail_min": 3}}
    result = tk.rescore(fleet_300, "1.2.0", stricter)
    assert result.runs.height == 300
    ticks = len(list(fleet_300.glob("*/tick_summaries/ticks/tick_*.json")))
    assert ticks == 300 * 12 and len(opened) == ticks
    assert max(opened.values()) == 1  # two rubrics, one read
    opened.clear()
    swept = tk.sweep(fleet_300, "refusal_cluster.fail_min=3:6:1")
    assert swept.table.height == 4 and max(opened.values()) == 1 and len(opened) == ticks


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        [str(FLEET), "--sweep", "groundedness.ok_min=0.8:1"],
        [str(FLEET), "--sweep", "nosuch.ok_min=0.8:1:0.1"],
        [str(FLEET), "--sweep", "groundedness.ok_min=1:0:0.1"],
        [str(FLEET), "--rubric", "1.2.0"],
        [str(FLEET), "--rubric", "1.2.0", "--rubric", "7.7.7"],
        [str(TALLY), "--rubric", "2.1.0", "--rubric", "2.2.0"],
        [str(FLEET), "--chart", "x.html", "--rubric", "1.2.0", "--rubric", "1.1.0"],
        [str(TALLY), "--rubric", "2.1.0", "--rubric", "3.0.0", "--dry-run"],
        [str(FLEET), "--sweep", "groundedness.ok_min=0.9:1:0.05", "--family", "outcome"],
        # found in review: an overflow and repeated values, not a traceback or five 0.9 rows
        [str(FLEET), "--sweep", "groundedness.ok_min=0:1e308:1e-308"],
        [str(FLEET), "--sweep", "groundedness.ok_min=0.9:0.9000000000004:1e-13"],
    ],
)
def test_bad_input_exits_2_with_one_line(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(args, capsys)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("toolkit rescore: error:")
    assert "Traceback" not in err


def test_the_python_api_matches_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    result = tk.rescore(TALLY, "2.1.0", "3.0.0")
    code, out, _ = run_cli([str(TALLY), "--rubric", "2.1.0", "--rubric", "3.0.0",
                            "--format", "json"], capsys)  # fmt: skip
    assert code == 0
    assert json.loads(out)["overall"] == result.to_dict()["overall"]
    chart = tk.sweep_chart(tk.sweep(FLEET, "refusal_cluster.fail_min=3:6:1"))
    assert chart.to_dict()["layer"]


@pytest.mark.parametrize(
    "command",
    [
        "toolkit rescore sample_runs/iteration_logs/tally-loop --rubric 2.1.0 --rubric 3.0.0",
        "toolkit rescore sample_runs/fleet --sweep groundedness.ok_min=0.8:1:0.05",
    ],
)
def test_the_worked_examples_in_the_docs_are_current(
    command: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = (ROOT / "docs" / "rescore.md").read_text(encoding="utf-8")
    shown = doc.split(f"$ {command}\n", 1)[1].split("\n```", 1)[0]
    monkeypatch.chdir(ROOT)
    assert main(command.split()[1:]) == 0
    assert capsys.readouterr().out.rstrip("\n") == shown


def test_digests_lent_by_an_earlier_scoring_are_the_ones_computed(tmp_path: Path) -> None:
    from toolkit.fleet.rescore import load_simulation_runs
    from toolkit.rubrics.simulation import score_universe

    universe = load_simulation_runs(_small_fleet(tmp_path))
    fresh = score_universe(universe, series=False)
    lent = score_universe(universe, series=False,
                          inputs={c.subject: c.meta["input_digest"] for c in fresh})  # fmt: skip
    assert [c.meta for c in lent] == [c.meta for c in fresh]
    assert len({c.meta["input_digest"] for c in fresh}) == 4  # four runs, four digests


@pytest.mark.parametrize(
    "stored", ["null", '"x"', '{"cards": 5}', '[{"verdict": "OK", "dimensions": [3]}]']
)
def test_stored_scores_of_the_wrong_shape_are_one_line(
    stored: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found in review: valid JSON that is no scorecard gave a traceback."""
    path = tmp_path / "stored.json"
    path.write_text(stored, encoding="utf-8")
    args = [str(FLEET), "--rubric", "1.1.0", "--rubric", "1.2.0", "--stored", str(path)]
    code, out, err = run_cli(args, capsys)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert str(path) in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("card", "field"),
    [
        ({"verdict": "HEALTHY", "input_digest": ["x"]}, "input_digest"),
        ({"verdict": ["HEALTHY"]}, "verdict"),
        ({"verdict": "HEALTHY", "dimensions": [{"key": "groundedness", "score": "high"}]},
         "dimensions.groundedness.score"),
        ({"verdict": "HEALTHY", "dimensions": [{"key": "groundedness", "score": float("nan")}]},
         "dimensions.groundedness.score"),
        ({"verdict": "HEALTHY", "dimensions": [{"key": "groundedness", "score": [1]}]},
         "dimensions.groundedness.score"),
    ],
)  # fmt: skip
def test_stored_scorecard_fields_of_the_wrong_kind_are_one_line(
    card: dict[str, Any], field: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found in review: a digest, verdict or score of the wrong kind reached Polars (a
    ComputeError traceback) or, NaN, the mean change."""
    path = tmp_path / "stored.json"
    path.write_text(json.dumps({"subject": "run-0001", **card}), encoding="utf-8")
    args = [str(FLEET), "--rubric", "1.1.0", "--rubric", "1.2.0", "--stored", str(path)]
    code, out, err = run_cli(args, capsys)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert str(path) in err and field in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ("\niteration: 2\n", "\niteration: two\n", "iteration"),
        ("\ntoolkit:\n", "\ntoolkit: [1]\nold_toolkit:\n", "toolkit"),
        ("\nbreakdown:\n", "\nbreakdown: [5]\nold_breakdown:\n", "breakdown"),
        ("\nvalue: ", "\nvalue: high\nold_value: ", "value"),
        ("\nband: ", "\nband: [good]\nold_band: ", "band"),
    ],
)
def test_stored_outcome_sidecars_of_the_wrong_kind_are_one_line(
    old: str, new: str, field: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found in review: an iter-N.score.yaml beside the log with an iteration, a toolkit
    block, a breakdown or a value of the wrong kind gave a traceback."""
    log = tmp_path / "log"
    shutil.copytree(TALLY, log)
    assert main(["outcome", str(log), "--write"]) == 0
    capsys.readouterr()
    sidecar = log / "iter-2.score.yaml"
    text = sidecar.read_text(encoding="utf-8")
    assert old in text
    sidecar.write_text(text.replace(old, new, 1), encoding="utf-8")
    code, out, err = run_cli([str(log), "--rubric", "2.1.0", "--rubric", "3.0.0"], capsys)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert "iter-2.score.yaml" in err and field in err and "Traceback" not in err


def test_a_stored_outcome_sidecar_that_is_not_utf8_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "log"
    shutil.copytree(TALLY, log)
    assert main(["outcome", str(log), "--write"]) == 0
    capsys.readouterr()
    sidecar = log / "iter-2.score.yaml"
    sidecar.write_bytes(sidecar.read_bytes() + b"# \xff\xfe\n")
    code, out, err = run_cli([str(log), "--rubric", "2.1.0", "--rubric", "3.0.0"], capsys)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert "iter-2.score.yaml" in err and "Traceback" not in err
