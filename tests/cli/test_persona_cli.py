"""`toolkit persona`: table and JSON output, baselines, and every exit code."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SAMPLE_RUNS

import toolkit as tk
from toolkit.cli import main

FOLDER = SAMPLE_RUNS / "persona"
WEEK1 = FOLDER / "radio-week1.jsonl"
WEEK2 = FOLDER / "radio-week2.jsonl"
COMMON = [
    "--propositions",
    str(FOLDER / "propositions"),
    "--judge",
    f"recorded:{FOLDER / 'cassette.json'}",
]


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["persona", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_no_baseline_prints_the_table_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli([str(WEEK2), *COMMON], capsys)
    lines = out.splitlines()
    assert code == 0
    assert err == ""
    assert lines[0].startswith("radio-week2 · judge recorded:cassette.json")
    assert lines[1].split() == ["agent", "dimension", "baseline", "score", "delta", "status"]
    # 4 agents x 3 dimensions of their own, and the 2 group dimensions once
    firsts = [line.split()[0] for line in lines[2:] if line.strip()]
    assert sum(1 for f in firsts if f in {"mags", "otis", "priya", "lenny"}) == 12
    assert firsts.count("environment") == 2
    assert "No baseline given: no regression check." in lines


def test_healthy_run_against_its_own_baselines_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli([str(WEEK1), *COMMON, "--baseline", str(FOLDER / "baselines")], capsys)
    assert code == 0
    assert "No regression against the baselines." in out
    assert "REGRESSION" not in out


def test_drifted_run_exits_1_naming_the_regressions(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli([str(WEEK2), *COMMON, "--baseline", str(FOLDER / "baselines")], capsys)
    assert code == 1
    lenny = [
        line.split() for line in out.splitlines() if line.split()[:2] == ["lenny", "adherence"]
    ]
    assert lenny == [["lenny", "adherence", "9", "1.043", "-7.96", "REGRESSION"]]
    assert "lenny adherence, lenny consistency, lenny fluency" in out


def test_json_format(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(
        [str(WEEK2), *COMMON, "--baseline", str(FOLDER / "baselines"), "--format", "json"], capsys
    )
    data = json.loads(out)
    assert code == 1
    assert data["run"] == "radio-week2"
    assert [c["subject"] for c in data["scorecards"]] == [
        "radio-week2/mags",
        "radio-week2/otis",
        "radio-week2/priya",
        "radio-week2/lenny",
        "radio-week2/environment",
    ]
    assert all(c["rubric_version"] == "1.1" for c in data["scorecards"])
    assert len(data["table"]) == 14  # 4 agents x 3 dimensions, then the group's 2 once
    lenny = next(e for e in data["evidence"] if e["agent_id"] == "lenny")
    assert lenny["flagged_similar_messages"] >= 2
    assert {(r["agent_id"], r["dimension"]) for r in data["regressions"]} >= {
        ("lenny", "adherence"),
        ("lenny", "fluency"),
    }


def test_write_baseline_then_compare_with_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_dir = tmp_path / "golden"
    code, _, err = run_cli([str(WEEK2), *COMMON, "--write-baseline", str(out_dir)], capsys)
    assert code == 0
    assert err.strip() == f"wrote 4 baseline(s) to {out_dir}"
    written = tk.load_baselines(out_dir)
    assert sorted(written) == ["lenny", "mags", "otis", "priya"]
    assert written["lenny"].dimensions["adherence"] == pytest.approx(1.042857, abs=1e-6)
    code, out, _ = run_cli([str(WEEK2), *COMMON, "--baseline", str(out_dir)], capsys)
    assert code == 0
    assert "No regression against the baselines." in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.jsonl", *COMMON], "cannot read file"),
        ([str(WEEK2), "--propositions", "nowhere", "--judge", "recorded:x"], "no such file"),
        ([str(WEEK2), *COMMON[:2], "--judge", "crystal:ball"], "unknown judge kind"),
        ([str(WEEK2), *COMMON[:2], "--judge", "recorded:/nonexistent.json"], "cannot read"),
        ([str(WEEK2), *COMMON, "--baseline", "/nonexistent"], "no such baseline"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(args, capsys)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith("toolkit persona: error: ")
    assert message in err


def test_cassette_miss_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "changed.jsonl"
    text = WEEK2.read_text().replace("Agreed.", "Agreed, fine.")
    run.write_text(text)
    code, _, err = run_cli([str(run), *COMMON], capsys)
    assert code == 2
    assert "no recording for proposition" in err
    assert "re-record the cassette" in err


def test_bad_proposition_file_exits_2_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    props = tmp_path / "props"
    shutil.copytree(FOLDER / "propositions", props)
    bad = props / "fluency" / "_default.yaml"
    bad.write_text(bad.read_text().replace("weight: 0.8", "weight: 8"))
    code, _, err = run_cli([str(WEEK2), "--propositions", str(props), "--judge", COMMON[3]], capsys)
    assert code == 2
    assert f"{bad}: propositions.1.weight=8: Input should be less than or equal to 1" in err


def test_console_script_runs_offline() -> None:
    exe = Path(sys.executable).with_name("toolkit")
    proc = subprocess.run(
        [str(exe), "persona", str(WEEK1), *COMMON, "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["run"] == "radio-week1"


def test_rubric_override_changes_the_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lenient = tmp_path / "lenient.yaml"
    lenient.write_text("version: team-lenient\nregression_tolerance: 9.5\n")
    args = [str(WEEK2), *COMMON, "--baseline", str(FOLDER / "baselines"), "--rubric", str(lenient)]
    code, out, _ = run_cli(args, capsys)
    assert code == 0
    assert out.splitlines()[0].endswith("rubric persona team-lenient")
    unbumped = tmp_path / "unbumped.yaml"
    unbumped.write_text("regression_tolerance: 9.5\n")
    code, _, err = run_cli([str(WEEK2), *COMMON, "--rubric", str(unbumped)], capsys)
    assert code == 2
    assert "bump its version" in err


def test_double_check_needs_double_check_recordings(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli([str(WEEK1), *COMMON, "--double-check"], capsys)
    assert code == 2
    assert "double-check" in err


def test_agents_flag_scores_only_the_named_agents(capsys: pytest.CaptureFixture[str]) -> None:
    # Issue 23 item 16: `toolkit persona --agents michael,dwight` scores only those agents.
    code, out, _ = run_cli(
        [
            str(WEEK2),
            *COMMON,
            "--baseline",
            str(FOLDER / "baselines"),
            "--agents",
            "priya,Otis",  # an id and a display name
            "--format",
            "json",
        ],
        capsys,
    )
    data = json.loads(out)
    assert [c["subject"] for c in data["scorecards"]] == [
        "radio-week2/priya",
        "radio-week2/otis",
        "radio-week2/environment",
    ]
    # the group's convergence is shown once, as the environment's
    assert {r["agent_id"] for r in data["table"]} == {"priya", "otis", "environment"}
    assert {e["agent_id"] for e in data["evidence"]} == {"priya", "otis"}
    # lenny's regressions are not this run's business any more; the shared convergence is
    assert all(r["agent_id"] in {"priya", "otis", "environment"} for r in data["regressions"])
    assert not any("lenny" in w for w in data["warnings"])
    assert code == (1 if data["regressions"] else 0)


def test_agents_flag_with_an_unknown_agent_exits_2_naming_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run_cli([str(WEEK2), *COMMON, "--agents", "priya,michael"], capsys)
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert "agents" in err and "michael" in err
