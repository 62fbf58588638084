"""`toolkit compare`: the sample pair of fleets, every output format, the gate, --plan,
--pair-by, each family's pairing, and every exit code."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from conftest import SAMPLE_RUNS

import toolkit
from toolkit.cli import main
from toolkit.fleet.compare import compare
from toolkit.fleet.find import detect_family

A = SAMPLE_RUNS / "compare" / "a"
B = SAMPLE_RUNS / "compare" / "b"
PERSONA = SAMPLE_RUNS / "persona"
PERSONA_ARGS = [
    "--propositions", str(PERSONA / "propositions"),
    "--judge", f"recorded:{PERSONA / 'cassette.json'}",
]  # fmt: skip


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["compare", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def sample_json() -> dict[str, object]:
    from toolkit.views.compare import render_compare_json

    return dict(json.loads(render_compare_json(compare(A, B, resamples=1999))))


def test_the_sample_pair_shows_the_planted_changes(sample_json: dict[str, object]) -> None:
    dims = {d["dimension"]: d for d in sample_json["dimensions"]}  # type: ignore[attr-defined]
    assert sample_json["family"] == "simulation" and sample_json["mode"] == "paired"
    assert sample_json["pairs"] == 12 and sample_json["runs_a"] == 24
    assert sample_json["only_a"] == [] and sample_json["only_b"] == []
    assert dims["groundedness"]["outcome"] == "better"
    assert dims["graph_fanout"]["outcome"] == "better"
    assert dims["character_stability"]["outcome"] == "worse"
    assert dims["conservation_drift"]["outcome"] == "no difference"
    noise = {n["dimension"]: n for n in sample_json["noise"]}  # type: ignore[attr-defined]
    assert noise["groundedness"]["units"] == 12 and noise["groundedness"]["df"] == 12


def test_table_text_and_the_gate(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(
        [str(A), str(B), "--gate", "no-regression", "--resamples", "999"], capsys
    )
    assert code == 1
    assert out.startswith("compare · simulation · B=b vs A=a\n")
    assert "paired by scenario, else seed, else slug: 12 pairs" in out
    row = next(line for line in out.splitlines() if line.startswith("character_stability"))
    assert row.endswith("worse")
    lines = err.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("toolkit compare: gate: character_stability is worse in b:")
    # the interval is adjusted like p: 1 - 0.05/9 over the 9 dimensions tested
    assert "99.4% adjusted CI" in lines[0] and "holm-adjusted p=" in lines[0]


def test_junit_and_step_summary_name_the_regressed_dimension(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """compare writes the CI outputs every scoring command writes: a JUnit test case per
    dimension (the one significantly worse in B fails, the others pass) and the Markdown
    appended to $GITHUB_STEP_SUMMARY."""
    import xml.etree.ElementTree as ET

    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    junit = tmp_path / "compare.xml"
    args = [str(A), str(B), "--gate", "no-regression", "--resamples", "999"]
    code, _, err = run_cli([*args, "--junit", str(junit)], capsys)
    assert "gate: character_stability is worse" in err
    assert code == 1
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert "character_stability" in cases and "groundedness" in cases
    failed = sorted(n for n, c in cases.items() if c.find("failure") is not None)
    assert failed == ["character_stability"]
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("earlier step\n")  # appended, never overwritten
    assert "character_stability" in text.split("earlier step\n", 1)[1]


def test_the_gate_limited_to_dimensions(capsys: pytest.CaptureFixture[str]) -> None:
    args = [str(A), str(B), "--resamples", "999", "--gate"]
    code, _, err = run_cli([*args, "no-regression:groundedness,graph_fanout"], capsys)
    assert code == 0 and err == ""
    code, _, err = run_cli([*args, "no-regression:grounded"], capsys)
    assert code == 2
    assert "--gate='grounded': no such dimension" in err


def test_an_aa_comparison_does_not_fire_the_gate(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli([str(A), str(A), "--gate", "no-regression"], capsys)
    assert code == 0 and err == ""
    assert "B: no significant difference on any of 9 dimensions." in out


def test_markdown_and_offline_html(capsys: pytest.CaptureFixture[str]) -> None:
    code, md, _ = run_cli([str(A), str(B), "--format", "markdown", "--resamples", "999"], capsys)
    assert code == 0
    assert "| dimension | mean A | mean B | B − A | 99.4% CI adj. | p (adj.) | outcome |" in md
    assert "95% simultaneous over the dimensions tested" in md
    assert "| character_stability |" in md and "❌ worse" in md
    code, html, _ = run_cli([str(A), str(B), "--format", "html", "--resamples", "999"], capsys)
    assert code == 0
    assert html.startswith("<!DOCTYPE html>") and "<svg" in html
    assert "<script" not in html and "http://" not in html.replace("http://www.w3.org", "")


def test_plan_from_the_pilot_fleet(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["--plan", str(A), "--mde", "0.5sd", "--format", "json"], capsys)
    assert code == 0
    rows = {r["dimension"]: r for r in json.loads(out)}
    # d_z = 0.5, paired t: 34 pairs (G*Power); Wilcoxon: / (3/pi) -> 36
    assert rows["groundedness"]["pairs"] == math.ceil(34 * math.pi / 3)
    assert rows["groundedness"]["source"] == "repeated runs of A"
    assert rows["conservation_drift"]["pairs"] is None  # no variation in the pilot
    code, out, _ = run_cli(["--plan", str(A), "--mde", "0.05", "--test", "t"], capsys)
    assert code == 0 and out.startswith("plan · pilot ")


def test_pair_by_slug_lists_the_unpaired_runs(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(
        [str(A), str(B), "--pair-by", "slug", "--format", "json", "--resamples", "999"], capsys
    )
    doc = json.loads(out)
    assert code == 0 and doc["pairs"] == 12 and doc["pair_by"] == "slug"
    assert len(doc["only_a"]) == 12 and all(u.endswith("-r2") for u in doc["only_a"])
    assert any("12 unit(s) only in A" in n for n in doc["notes"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--pair-by", "colour"], "--pair-by='colour': arm A has no such pairing key"),
        (["--test", "anova"], "--test='anova'"),
        (["--correction", "bonferroni"], "--correction='bonferroni'"),
        (["--family", "chess"], "--family='chess'"),
        (["--mde", "0.1"], "--mde goes with --plan A"),
        (["--gate", "strict"], "--gate='strict'"),
        (["--window", "0"], "window=0"),
        (["--seed", "-3"], "--seed=-3"),
        (["--rubric", "/nonexistent/compare.yaml"], "cannot read rubric file"),
    ],
)
def test_bad_options_exit_2_with_one_line(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli([str(A), str(B), "--resamples", "99", *args], capsys)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and message in err


def test_missing_arms_and_folders_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli([str(A)], capsys)
    assert code == 2 and "give two folders, A and B (got 1)" in err
    code, _, err = run_cli([str(A), str(tmp_path / "nope")], capsys)
    assert code == 2 and "nope" in err
    code, _, err = run_cli(["--plan", str(A)], capsys)
    assert code == 2 and "--plan needs --mde" in err
    code, _, err = run_cli(["--plan", str(A), "--mde", "big"], capsys)
    assert code == 2 and "--mde='big'" in err
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = run_cli([str(empty), str(A)], capsys)
    assert code == 2 and f"{empty}: the folder is empty" in err
    assert "--family='auto'" not in err  # no internal option value named


def test_a_bad_universe_yaml_is_a_note_and_the_run_pairs_by_slug(tmp_path: Path) -> None:
    for arm in ("a", "b"):
        for run in ("s01-r1", "s02-r1"):
            shutil.copytree(SAMPLE_RUNS / "compare" / arm / run, tmp_path / arm / run)
    (tmp_path / "a" / "s02-r1" / "universe.yaml").write_text("name: [unclosed\n")
    result = compare(tmp_path / "a", tmp_path / "b", resamples=99)
    assert result.pairs == 1  # s01 by scenario; A's s02-r1 lost its keys
    assert result.only_a == ("s02-r1",) and result.only_b == ("s02",)
    assert any("universe.yaml" in n and "not valid YAML" in n for n in result.notes)


def test_each_family_is_told_from_its_folder() -> None:
    assert detect_family(SAMPLE_RUNS / "fleet") == "simulation"
    assert detect_family(SAMPLE_RUNS / "universes" / "ashfall") == "simulation"
    assert detect_family(SAMPLE_RUNS / "iteration_logs") == "outcome"
    assert detect_family(SAMPLE_RUNS / "discussions") == "discussion"
    assert detect_family(PERSONA / "radio-week1.jsonl") == "persona"


def test_outcome_iterations_pair_by_task() -> None:
    logs = SAMPLE_RUNS / "iteration_logs"
    result = compare(logs, logs, resamples=99)
    from toolkit.fleet.compare import arm_scores

    frame = arm_scores(logs).frame
    tasks = frame.filter(pl.col("task").is_not_null())["task"].n_unique()
    assert result.family == "outcome" and result.pairs == tasks
    assert set(result.dimensions["outcome"].to_list()) <= {"no difference", "n/a"}


def test_discussion_games_without_shared_ids_fall_back_to_unpaired(
    capsys: pytest.CaptureFixture[str],
) -> None:
    games = SAMPLE_RUNS / "discussions"
    code, out, _ = run_cli([str(games), str(games / "baseline")], capsys)
    assert code == 0
    assert "UNPAIRED (no unit in both arms)" in out
    assert "Mann-Whitney U" in out and "no unit is in both arms" in out


def test_persona_week2_against_week1_finds_the_adherence_drop(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run_cli(
        [str(PERSONA / "radio-week1.jsonl"), str(PERSONA / "radio-week2.jsonl"),
         *PERSONA_ARGS, "--gate", "no-regression"], capsys,
    )  # fmt: skip
    assert code == 1
    assert "paired by proposition_agent" in out
    assert "adherence is worse in radio-week2.jsonl" in err
    code, _, err = run_cli(
        [str(PERSONA / "radio-week1.jsonl"), str(PERSONA / "radio-week2.jsonl")], capsys
    )
    assert code == 2 and "--propositions DIR and --judge SPEC" in err


def test_the_result_shows_itself_in_a_few_lines(sample_json: dict[str, object]) -> None:
    result = compare(A, B, resamples=99)
    lines = repr(result).splitlines()
    assert lines[0] == "CompareResult: simulation: b vs a, paired, 12 pairs"
    assert "better: 2" in lines[1] and "worse: 1" in lines[1]
    assert all(len(line) <= 100 for line in lines)
    assert "CompareResult" in result._repr_html_()


#: Runs the CLI in a fresh process; writes its exit code and whether scipy was imported.
REFUSAL = """
import json, sys
from toolkit.cli import main
try:
    code = main(sys.argv[2:])
except SystemExit as exc:
    code = exc.code
with open(sys.argv[1], "w", encoding="utf-8") as out:
    json.dump({"code": code, "scipy": "scipy" in sys.modules}, out)
"""


@pytest.mark.parametrize(
    "args",
    [
        [str(A), str(B), "--gate", "nonsense"],
        [str(A / "no-such-folder"), str(B)],
        ["--plan", str(A / "no-such-folder"), "--mde", "0.1"],
    ],
    ids=["bad-gate", "missing-folder", "plan-missing-folder"],
)
def test_a_refused_input_is_refused_before_scipy_is_imported(
    args: list[str], tmp_path: Path
) -> None:
    here = str(Path(toolkit.__file__).resolve().parents[1])
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")])),
    }
    report = tmp_path / "report.json"
    subprocess.run(
        [sys.executable, "-c", REFUSAL, str(report), "compare", *args],
        env=env, capture_output=True, timeout=600, check=False,
    )  # fmt: skip
    done = json.loads(report.read_text(encoding="utf-8"))
    assert done == {"code": 2, "scipy": False}  # about 1 s of imports a refusal never pays
