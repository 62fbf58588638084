"""`toolkit experiment`: output formats, options and every exit code."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SAMPLE_RUNS

import toolkit
from toolkit.cli import main

GATE = SAMPLE_RUNS / "experiments" / "harbour_council_gate.json"
ORCHARD = SAMPLE_RUNS / "experiments" / "orchard_variety.csv"
REFERENCE = SAMPLE_RUNS / "experiments" / "harbour_council_reference.json"


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_table_output(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["experiment", str(GATE), str(ORCHARD)], capsys)
    lines = out.splitlines()
    assert code == 0 and err == ""
    assert lines[0].startswith("experiment") and lines[0].rstrip().endswith("p")
    rows = [line for line in lines if line.startswith(("harbour_council_gate", "orchard_variety"))]
    assert len(rows) == 5 + 5
    fluency = next(r for r in rows if r.split()[1] == "Fluency")
    assert fluency.split()[-1] == "<0.001*"
    assert "* p < 0.05 (Welch's two-sided t-test" in out


def test_alpha_option(capsys: pytest.CaptureFixture[str]) -> None:
    _, default, _ = run_cli(["experiment", str(ORCHARD)], capsys)
    _, strict, _ = run_cli(["experiment", str(ORCHARD), "--alpha", "0.01"], capsys)
    fluency = next(line for line in default.splitlines() if " fluency " in line)
    assert fluency.endswith("0.021*")
    fluency = next(line for line in strict.splitlines() if " fluency " in line)
    assert fluency.endswith("0.021") and "* p < 0.01 " in strict


def test_named_files_and_renames(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(
        ["experiment", f"gate={GATE}", "--rename", "Persona Adherence=adherence", "--format",
         "json"], capsys
    )  # fmt: skip
    data = json.loads(out)
    assert code == 0 and list(data["experiments"]) == ["gate"]
    assert next(iter(data["experiments"]["gate"]["metrics"])) == "adherence"


def test_run_tables_need_the_runs_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = tmp_path / "drift.csv"
    table.write_text(
        "run,agent,dimension,score\n"
        "new,Ada,fluency,7\nnew,Bo,fluency,8\nold,Ada,fluency,5\nold,Bo,fluency,6\n"
    )
    code, _, err = run_cli(["experiment", str(table)], capsys)
    assert code == 2 and "say which run is the treatment" in err
    code, out, _ = run_cli(
        ["experiment", str(table), "--treatment-run", "new", "--control-run", "old"], capsys
    )
    # T 7.5 (0.71), C 5.5 (0.71), delta 2
    assert code == 0
    assert out.splitlines()[1].split()[:7] == ["drift", "fluency", "2/2", "7.50", "(0.71)",
                                               "5.50", "(0.71)"]  # fmt: skip


def test_reference_adds_the_directional_check(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["experiment", str(GATE), "--reference", str(REFERENCE)], capsys)
    assert code == 0
    header = out.splitlines()[0].split()
    assert header[-3:] == ["ref", "p", "check"]
    divergence = next(line for line in out.splitlines() if " Divergence " in line)
    assert divergence.endswith("DIFFERS")
    assert "Directional check: 4/5 rows agree with the reference" in out


def test_json_and_latex_formats(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run_cli(
        ["experiment", str(GATE), "--format", "json", "--reference", str(REFERENCE)], capsys
    )
    data = json.loads(out)
    cell = data["experiments"]["harbour_council_gate"]["metrics"]["Persona Adherence"]
    assert cell["t_n"] == 28 and cell["t_nulls"] == 2 and cell["c_n"] == 30
    assert cell["direction"]["agrees"] is True
    assert data["directional_check"] == {"agree": 4, "decided": 5, "rows": 5}
    _, tex, _ = run_cli(["experiment", str(GATE), "--format", "latex"], capsys)
    assert tex.startswith(r"\begin{table}") and r"harbour\_council\_gate" in tex


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["/no/such/results.json"], "/no/such/results.json: no such file"),
        ([str(REFERENCE)], "no Treatment or Control group"),
        ([str(GATE), "--reference", "/no/ref.json"], "/no/ref.json: no such reference file"),
        ([str(GATE), "--reference", str(GATE)], "each experiment needs a 'metrics' object"),
        ([str(GATE), str(GATE)], "experiment name already used"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(["experiment", *args], capsys)
    assert code == 2 and out == ""
    assert err.startswith("toolkit experiment: error: ") and message in err
    assert err.count("\n") == 1


def test_bad_score_names_file_field_and_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"experiments": {"Control": {"results": {"F": [1, "x"]}}}}))
    code, _, err = run_cli(["experiment", str(bad)], capsys)
    assert code == 2
    assert err == (
        f"toolkit experiment: error: {bad}: experiments.Control.results.F[1]='x': "
        "a score must be a number or null\n"
    )


@pytest.mark.parametrize("alpha", ["0", "1", "abc", "-0.1"])
def test_bad_alpha_exits_2(alpha: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["experiment", str(GATE), "--alpha", alpha])
    assert exc.value.code == 2
    assert "--alpha must" in capsys.readouterr().err


def test_no_files_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["experiment"])
    assert exc.value.code == 2


def test_console_script_prints_no_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "broken.json"
    bad.write_text("{not json")
    proc = subprocess.run(
        [str(Path(sys.executable).parent / "toolkit"), "experiment", str(bad)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and f"{bad}:1: not valid JSON" in proc.stderr


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


def test_a_missing_file_is_refused_before_scipy_is_imported(tmp_path: Path) -> None:
    here = str(Path(toolkit.__file__).resolve().parents[1])
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")])),
    }
    report = tmp_path / "report.json"
    missing = str(tmp_path / "no-such-results.json")
    subprocess.run(
        [sys.executable, "-c", REFUSAL, str(report), "experiment", missing],
        env=env, capture_output=True, timeout=600, check=False,
    )  # fmt: skip
    done = json.loads(report.read_text(encoding="utf-8"))
    assert done == {"code": 2, "scipy": False}  # about 1 s of imports a refusal never pays


def test_table1_reproduces_from_the_command_line(
    real_runs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = real_runs / "experiments" / "tinytroupe-june-2025"
    files = {
        "exp_1": "brainstorming_and_focus_group_quantitative_experimentation_1c.json",
        "exp_2_1": "brainstorming_and_focus_group_quantitative_experimentation_2.1c.json",
        "exp_2_2": "brainstorming_and_focus_group_quantitative_experimentation_2.2b.json",
        "exp_3": "debating_quantitative_experimentation_1c.json",
    }
    args = ["experiment", *(f"{k}={folder / v}" for k, v in files.items())]
    args += ["--rename", "Hard Persona Adherence=persona_adherence"]
    args += ["--rename", "Persona Adherence=persona_adherence"]
    args += ["--reference", str(folder / "table1.published.json")]
    code, out, _ = run_cli(args, capsys)
    assert code == 0
    # 19 cells of Table 1; Exp. 1 Divergence (published p 0.050, on alpha) is undecided
    assert "Directional check: 18/18 rows agree with the reference" in out
    row = [line for line in out.splitlines() if line.startswith("exp_2_1") and "Fluency" in line]
    # Δ% = -49.3: the authors' own percent_change for this cell is -49.26
    assert row[0].split()[2:10] == ["96/96", "3.22", "(1.45)", "6.34", "(1.35)", "-3.13",
                                    "-49.3%", "<0.001*"]  # fmt: skip


def test_a_folder_is_named_as_a_folder_not_a_missing_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from toolkit.cli import main

    assert main(["experiment", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"toolkit experiment: error: {tmp_path}: is a folder: name the results files in it "
        "(e.g. FOLDER/*.json FOLDER/*.csv)\n"
    )
