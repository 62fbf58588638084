"""`toolkit persona --compat the-office`: the harness's JSON on stdout or in a file, its PR
comment, its flags and its exit codes (1 when an agent fails, 2 on bad input)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import SAMPLE_RUNS

from toolkit.cli import main

FOLDER = SAMPLE_RUNS / "persona"
WEEK1 = FOLDER / "radio-week1.jsonl"
WEEK2 = FOLDER / "radio-week2.jsonl"
COMMON = [
    "--propositions",
    str(FOLDER / "propositions"),
    "--judge",
    f"recorded:{FOLDER / 'cassette.json'}",
    "--compat",
    "the-office",
]


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["persona", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_week1_against_its_baselines_passes_with_the_harness_shape(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run_cli([str(WEEK1), *COMMON, "--baseline", str(FOLDER / "baselines")], capsys)
    doc = json.loads(out)
    assert list(doc) == ["timestamp", "agents", "summary"]
    assert set(doc["agents"]) == {"mags", "otis", "priya", "lenny"}
    lenny = doc["agents"]["lenny"]
    assert list(lenny) == ["overall", "pass", "dimensions", "baselineDelta"]
    assert set(lenny["dimensions"]["ideas_quantity"]) == {"count"}
    assert set(lenny["dimensions"]["adherence"]) == {"score", "pass", "propositionScores"}
    assert doc["summary"]["failed"] == 0 and code == 0
    assert "Summary: 4/4 passed, 0 failed" in err


def test_week2_regresses_exits_1_and_the_summary_names_the_agents(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run_cli([str(WEEK2), *COMMON, "--baseline", str(FOLDER / "baselines")], capsys)
    doc = json.loads(out)
    assert code == 1
    assert doc["summary"]["failed"] == len(doc["summary"]["failedAgents"]) > 0
    regressed = {r["dimension"] for r in doc["agents"]["lenny"]["regressions"]}
    assert "adherence" in regressed


def test_agents_and_dimensions_narrow_the_report(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(
        [str(WEEK1), *COMMON, "--agents", "priya,otis", "--dimensions", "adherence"], capsys
    )
    doc = json.loads(out)
    assert list(doc["agents"]) == ["priya", "otis"]
    assert all(list(a["dimensions"]) == ["adherence"] for a in doc["agents"].values())
    assert code == 0


def test_agents_all_is_every_agent(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run_cli([str(WEEK1), *COMMON, "--agents", "all", "--dimensions", "fluency"], capsys)
    assert len(json.loads(out)["agents"]) == 4


def test_threshold_above_every_score_fails_every_agent(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli([str(WEEK1), *COMMON, "--threshold", "9.5"], capsys)
    assert code == 1 and json.loads(out)["summary"]["passed"] == 0


def test_output_file_and_markdown_comment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "eval-result.json"
    code, out, err = run_cli(
        [str(WEEK1), *COMMON, "--output", str(target), "--format", "markdown"], capsys
    )
    doc = json.loads(target.read_text("utf-8"))
    assert doc["summary"]["total"] == 4
    lines = out.splitlines()
    assert lines[0] == "<!-- persona-evaluation-report -->"
    assert lines[1] == "## Persona Evaluation Report"
    assert lines[3].startswith("| Agent | Adherence | Consistency | Convergence | Fluency |")
    assert lines[-1] == "**Result**: All 4 agents passed. No regressions detected."
    assert f"Report written to {target}" in err
    assert code == 0


def test_update_baseline_writes_the_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "baselines"
    folder.mkdir()
    code, out, _ = run_cli(
        [str(WEEK1), *COMMON, "--baseline", str(folder), "--update-baseline"], capsys
    )
    assert code == 0 and "baselineDelta" not in out
    assert sorted(p.name for p in folder.iterdir()) == [
        "lenny.json", "mags.json", "otis.json", "priya.json"
    ]  # fmt: skip
    saved = json.loads((folder / "otis.json").read_text("utf-8"))
    doc = json.loads(out)
    assert saved["dimensions"]["adherence"] == pytest.approx(
        doc["agents"]["otis"]["dimensions"]["adherence"]["score"], abs=1e-6
    )


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        (["--window", "seven"], "--window"),
        (["--dimensions", "charm"], "--dimensions"),
        (["--update-baseline"], "--update-baseline"),
        (["--update-baseline", "--baseline", "nowhere"], "no such folder"),
        (["--baseline", "nowhere"], "no such baseline file or folder"),
        (["--junit", "out.xml"], "--junit"),
        (["--gate", "strict"], "--gate"),
        (["--write-baseline", "here"], "--write-baseline"),
    ],
)
def test_bad_flags_exit_2_naming_them(
    extra: list[str], named: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path)  # no src/features/evaluation/baselines here
    code, _, err = run_cli([str(WEEK1), *COMMON, *extra], capsys)
    assert code == 2 and named in err


def test_harness_flags_need_the_compat(capsys: pytest.CaptureFixture[str]) -> None:
    args = [str(WEEK1), *COMMON[:4], "--threshold", "6"]
    code, _, err = run_cli(args, capsys)
    assert code == 2 and "--threshold" in err and "only with --compat the-office" in err


def test_the_harness_baseline_folder_is_read_when_present(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "src" / "features" / "evaluation" / "baselines"
    folder.mkdir(parents=True)
    (folder / "otis.json").write_text(
        (FOLDER / "baselines" / "otis.json").read_text("utf-8"), "utf-8"
    )
    monkeypatch.chdir(tmp_path)
    _, out, err = run_cli([str(WEEK1), *COMMON], capsys)
    doc = json.loads(out)
    assert "baselineDelta" in doc["agents"]["otis"]
    assert "baselineDelta" not in doc["agents"]["mags"]
    assert "baselines: src/features/evaluation/baselines" in err
