"""`toolkit quality`: output formats and every exit code."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SAMPLE_RUNS, refused_v1, tick_v1, write_run

from toolkit.cli import main

HEALTHY = SAMPLE_RUNS / "universes" / "willowbrook"
FAILED = SAMPLE_RUNS / "universes" / "ashfall"


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_table_output_is_the_scorecard(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["quality", str(HEALTHY)], capsys)
    lines = out.splitlines()
    assert code == 0
    assert lines[0] == "Willowbrook · last 50 ticks"
    assert sum(1 for line in lines if line.startswith("  [")) == 8  # rubric 1.2.0
    assert "Verdict: HEALTHY" in lines


def test_json_is_a_superset_of_token_worlds_output(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["quality", str(FAILED), "--format", "json"], capsys)
    data = json.loads(out)
    assert code == 0
    for key in ("slug", "window", "tick_count", "first_tick", "last_tick", "rubric_version",
                "verdict", "dimensions", "warnings"):  # fmt: skip
        assert key in data
    assert data["slug"] == "ashfall" and data["verdict"] == "FAILED"
    assert data["window"] == 50 and data["tick_count"] == 50 and data["last_tick"] == 164
    assert [d["key"] for d in data["dimensions"]][:2] == ["groundedness", "character_stability"]
    assert set(data["dimensions"][0]) == {"key", "name", "status", "score", "detail", "green",
                                          "red", "measures"}  # fmt: skip
    coherence = next(d for d in data["dimensions"] if d["key"] == "action_coherence")
    assert coherence["measures"]["refuse_rate_10tick"] == 4.8  # ashfall: 24 refused in 50
    vocabulary = next(d for d in data["dimensions"] if d["key"] == "vocabulary_growth")
    assert vocabulary["measures"]["stagnant"] == 50


def test_html_output_is_a_page(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["quality", str(FAILED), "--format", "html"], capsys)
    assert code == 0 and out.startswith("<!DOCTYPE html>") and "data-verdict='FAILED'" in out


def test_window_option(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run_cli(["quality", str(HEALTHY), "--window", "20", "--format", "json"], capsys)
    data = json.loads(out)
    assert data["window"] == 20 and data["first_tick"] == data["last_tick"] - 19


def test_gate_passes_only_when_every_counted_dimension_is_ok(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(["quality", str(HEALTHY), "--gate"], capsys)[0] == 0
    assert run_cli(["quality", str(FAILED), "--gate"], capsys)[0] == 1
    # A run without a universe.db has fan-out N/A: printed fine, but the gate fails it.
    root = write_run(tmp_path / "nodb", [tick_v1(n) for n in range(1, 30)])
    assert run_cli(["quality", str(root)], capsys)[0] == 0
    assert run_cli(["quality", str(root), "--gate"], capsys)[0] == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["quality", "/no/such/run"], "/no/such/run: no such run folder"),
        (["quality", str(HEALTHY), "--rubric", "/no/rubric.yaml"], "cannot read rubric file"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(args, capsys)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and message in err


def test_run_with_nothing_loadable_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write_run(tmp_path / "r", [tick_v1(1)])
    (root / "tick_summaries" / "ticks" / "tick_1.json").write_text("{")
    code, _, err = run_cli(["quality", str(root)], capsys)
    assert code == 2 and "nothing loadable" in err and "tick_1.json" in err
    empty = tmp_path / "empty"
    (empty / "tick_summaries" / "ticks").mkdir(parents=True)
    code, _, err = run_cli(["quality", str(empty)], capsys)
    assert code == 2 and "no tick files and no batch records" in err


def test_skipped_files_are_shown_under_the_scorecard(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write_run(tmp_path / "r", [tick_v1(n) for n in range(1, 11)])
    (root / "tick_summaries" / "ticks" / "tick_11.json").write_text("[]")
    code, out, _ = run_cli(["quality", str(root)], capsys)
    assert code == 0
    assert "skipped " in out and "tick_11.json" in out


def test_changed_rubric_without_new_version_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "rubric.yaml"
    f.write_text("refusal_cluster:\n  fail_min: 3\n")
    code, _, err = run_cli(["quality", str(HEALTHY), "--rubric", str(f)], capsys)
    assert code == 2 and "version='1.2.0'" in err and str(f) in err


def test_custom_rubric_changes_the_status(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write_run(tmp_path / "r", [refused_v1(1), refused_v1(2), tick_v1(3)])
    f = tmp_path / "strict.yaml"
    f.write_text("version: 1.0.0-strict\nrefusal_cluster:\n  ok_max: 0\n  fail_min: 2\n")
    _, out, _ = run_cli(["quality", str(root), "--rubric", str(f), "--format", "json"], capsys)
    data = json.loads(out)
    cluster = next(d for d in data["dimensions"] if d["key"] == "refusal_cluster")
    assert data["rubric_version"] == "1.0.0-strict" and cluster["status"] == "FAIL"


def test_bad_window_is_a_usage_error_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["quality", str(HEALTHY), "--window", "0"])
    assert exc.value.code == 2
    assert "--window must be at least 1" in capsys.readouterr().err


def test_console_script_runs_as_a_process() -> None:
    exe = Path(sys.executable).parent / "toolkit"
    proc = subprocess.run(
        [str(exe), "quality", str(FAILED), "--gate"], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 1 and "Verdict: FAILED" in proc.stdout
    proc = subprocess.run([str(exe), "quality", "/nope"], capture_output=True, text=True,
                          check=False)  # fmt: skip
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


# --- The fleet: --all DIR ---------------------------------------------------------------


def test_all_prints_one_line_per_run_worst_first(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["quality", "--all", str(SAMPLE_RUNS / "universes")], capsys)
    lines = out.splitlines()
    assert code == 0
    assert [line.split()[0] for line in lines[1:4]] == ["ashfall", "harbor-town", "willowbrook"]
    assert lines[1].split()[2] == "FAILED" and lines[3].split()[2] == "HEALTHY"
    assert lines[1].split()[3:] == ["ok", "FAIL", "FAIL", "FAIL", "FAIL", "FAIL", "FAIL", "WARN"]
    assert lines[4].startswith("3 runs: 1 FAILED, 1 DEGRADED, 1 HEALTHY")
    assert lines[5].startswith("Columns: Gr Groundedness · CS Character stability")


def test_all_json_lists_runs_with_their_statuses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_run(tmp_path / "b-ok", [tick_v1(n) for n in range(1, 31)])
    write_run(tmp_path / "a-wedged", [tick_v1(1)] + [refused_v1(n) for n in range(2, 9)])
    write_run(tmp_path / "c-broken", [tick_v1(n) for n in range(1, 31)])
    (tmp_path / "c-broken" / "tick_summaries" / "ticks" / "tick_31.json").write_text("{")
    code, out, _ = run_cli(["quality", "--all", str(tmp_path), "--format", "json"], capsys)
    data = json.loads(out)
    assert code == 0
    assert [r["slug"] for r in data["runs"]] == ["a-wedged", "b-ok", "c-broken"]
    assert data["runs"][0]["statuses"]["refusal_cluster"] == "FAIL"
    assert data["runs"][0]["ticks"] == 8
    assert any("c-broken: skipped" in w and "tick_31.json" in w for w in data["warnings"])


def test_all_gate_fails_when_any_run_is_not_all_ok(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run_cli(["quality", "--all", str(SAMPLE_RUNS / "universes"), "--gate"], capsys)[0] == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["quality"], "give either RUN_DIR or --all DIR"),
        (["quality", str(HEALTHY), "--all", str(HEALTHY)], "give either RUN_DIR or --all DIR"),
        (["quality", "--all", "/no/such/dir"], "/no/such/dir: no such folder of runs"),
        (["quality", "--all", str(SAMPLE_RUNS)], "no run folders"),
    ],
)
def test_all_bad_input_exits_2(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(args, capsys)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_all_with_cache_dir_reuses_the_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs"
    write_run(runs / "a", [tick_v1(n) for n in range(1, 11)])
    store = tmp_path / "cache"
    first = run_cli(["quality", "--all", str(runs), "--cache", str(store)], capsys)[1]
    assert any(store.iterdir())
    second = run_cli(["quality", "--all", str(runs), "--cache", str(store)], capsys)[1]
    assert first == second


# --- A run named by its slug under a universes root (issue 23, item 4) ---------------------

UNIVERSES = SAMPLE_RUNS / "universes"


def test_a_slug_resolves_under_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # no folder named willowbrook here
    monkeypatch.delenv("TOOLKIT_UNIVERSES_ROOT", raising=False)
    code, out, _ = run_cli(["quality", "willowbrook", "--root", str(UNIVERSES)], capsys)
    assert code == 0 and out.splitlines()[0] == "Willowbrook · last 50 ticks"


def test_a_slug_resolves_under_the_environment_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TOOLKIT_UNIVERSES_ROOT", str(UNIVERSES))
    code, out, _ = run_cli(["quality", "ashfall", "--format", "json"], capsys)
    assert code == 0 and json.loads(out)["slug"] == "ashfall"
    code, out, _ = run_cli(["quality", "ashfall", "--diff", "willowbrook"], capsys)
    assert code == 0 and out.startswith("ashfall vs willowbrook")


def test_root_flag_wins_over_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TOOLKIT_UNIVERSES_ROOT", str(tmp_path / "elsewhere"))
    code, out, _ = run_cli(["quality", "ashfall", "--root", str(UNIVERSES)], capsys)
    assert code == 0 and out.startswith("Ashfall")


def test_a_folder_given_as_such_is_used_without_a_root(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TOOLKIT_UNIVERSES_ROOT", "/no/such/root")
    code, out, _ = run_cli(["quality", str(HEALTHY)], capsys)
    assert code == 0 and out.startswith("Willowbrook")


@pytest.mark.parametrize(
    ("args", "env", "expected"),
    [
        (["willowbrook"], None, "willowbrook: no such run folder (to name a run by its slug, "
         "give --root DIR or set TOOLKIT_UNIVERSES_ROOT)"),
        (["nope", "--root", "<ROOT>"], None, "nope: no such run folder here, and no run 'nope' "
         "under <ROOT> (--root)"),
        (["nope"], "<ROOT>", "nope: no such run folder here, and no run 'nope' under <ROOT> "
         "(TOOLKIT_UNIVERSES_ROOT)"),
        (["willowbrook", "--root", "<MISSING>"], None, "<MISSING>: the universes root (--root) is "
         "not an existing folder"),
        (["x/../../etc", "--root", "<ROOT>"], None, "x/../../etc: no such run folder, and not a "
         "slug to look up under <ROOT> (--root)"),
    ],
)  # fmt: skip
def test_neither_a_folder_nor_a_slug_under_the_root_is_one_line_exit_2(
    args: list[str],
    env: str | None,
    expected: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    places = {"<ROOT>": str(UNIVERSES), "<MISSING>": str(tmp_path / "missing")}
    if env is None:
        monkeypatch.delenv("TOOLKIT_UNIVERSES_ROOT", raising=False)
    else:
        monkeypatch.setenv("TOOLKIT_UNIVERSES_ROOT", places[env])
    code, out, err = run_cli(["quality", *(places.get(a, a) for a in args)], capsys)
    for key, value in places.items():
        expected = expected.replace(key, value)
    assert (code, out) == (2, "")
    assert err == f"toolkit quality: error: {expected}\n"


def test_root_with_all_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["quality", "--all", str(UNIVERSES), "--root", str(UNIVERSES)], capsys)
    assert code == 2 and "--root" in err and len(err.splitlines()) == 1
