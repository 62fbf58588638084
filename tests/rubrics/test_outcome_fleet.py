"""Many iteration logs at once: discovery, scoring in worker processes, the fleet summary
and ``toolkit outcome --all``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolkit.cli import main
from toolkit.errors import InputError
from toolkit.fleet.outcome import (
    find_iteration_logs,
    outcome_fleet,
    score_outcome_logs,
)

ITERATION = """\
schema_version: 2
iteration: {n}
date: "2026-05-0{n}"
commit: ""
impl:
  summary: "step {n}"
  scope_note: "{scope}"
  retries: 0
  focused_tests_pass: true
session_tokens:
  cache_hit_rate: 0.5
verifiers: []
"""


def make_log(root: Path, scope: str, iterations: int = 2) -> Path:
    root.mkdir(parents=True)
    for n in range(1, iterations + 1):
        (root / f"iter-{n}.yaml").write_text(ITERATION.format(n=n, scope=scope))
    return root


@pytest.fixture
def logs(tmp_path: Path) -> Path:
    make_log(tmp_path / "fleet" / "team-a" / "on-target", "on-target", 3)
    make_log(tmp_path / "fleet" / "team-b" / "breach", "scope-breach", 2)
    (tmp_path / "fleet" / "notes").mkdir()
    return tmp_path / "fleet"


def test_find_iteration_logs_walks_subfolders(logs: Path) -> None:
    assert [p.name for p in find_iteration_logs(logs)] == ["on-target", "breach"]


def test_find_iteration_logs_rejects_missing_or_empty(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such folder"):
        find_iteration_logs(tmp_path / "nope")
    with pytest.raises(InputError, match="no iteration logs"):
        find_iteration_logs(tmp_path)


def test_fleet_is_sorted_worst_mean_first(logs: Path) -> None:
    fleet = outcome_fleet(score_outcome_logs(find_iteration_logs(logs), workers=1))
    rows = fleet.to_dicts()
    assert [Path(r["log"]).name for r in rows] == ["breach", "on-target"]
    assert [r["iterations"] for r in rows] == [2, 3]
    assert [r["scored"] for r in rows] == [2, 3]
    assert rows[0]["mean"] < rows[1]["mean"]
    # Same evidence everywhere except scope: every iteration of a log scores the same.
    assert rows[0]["worst_value"] == pytest.approx(rows[0]["mean"])


def test_worker_processes_give_the_same_scores(logs: Path) -> None:
    for i in range(8):  # enough logs for the process pool to be used
        make_log(logs / f"extra-{i}", "partial", 1)
    paths = find_iteration_logs(logs)
    serial = outcome_fleet(score_outcome_logs(paths, workers=1))
    pooled = outcome_fleet(score_outcome_logs(paths, workers=2))
    assert pooled.equals(serial)
    assert serial.height == 10


def test_cli_all_prints_one_line_per_log(logs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["outcome", "--all", str(logs)])
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    assert out[1].split()[0].endswith("breach") and out[2].split()[0].endswith("on-target")
    assert out[-1].startswith("2 logs, worst mean first")
    code = main(["outcome", "--all", str(logs), "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert data["rubric_version"] == "2.1.0" and len(data["logs"]) == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["outcome"], "give either LOG_DIR or --all DIR"),
        (["outcome", "--all", "/no/such"], "no such folder of iteration logs"),
    ],
)
def test_cli_all_bad_input_exits_2(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_cli_all_refuses_write(logs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["outcome", "--all", str(logs), "--write"]) == 2
    assert "--write work on one log" in capsys.readouterr().err


def test_fleet_rows_are_named_by_their_path_under_the_folder(
    logs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["outcome", "--all", str(logs), "--format", "json"]) == 0
    names = [r["log"] for r in json.loads(capsys.readouterr().out)["logs"]]
    assert names == ["team-b/breach", "team-a/on-target"]
    # a folder that is itself a log is named by its own name
    assert main(["outcome", "--all", str(logs / "team-b" / "breach"), "--format", "json"]) == 0
    assert [r["log"] for r in json.loads(capsys.readouterr().out)["logs"]] == ["breach"]


def test_a_log_holding_a_log_of_its_own_name_keeps_both_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    team = make_log(tmp_path / "team", "on-target", 3)
    make_log(team / "team", "scope-breach", 2)  # a nested log named like its parent
    assert main(["outcome", "--all", str(team), "--format", "json"]) == 0
    rows = {r["log"]: r["iterations"] for r in json.loads(capsys.readouterr().out)["logs"]}
    assert rows == {".": 3, "team": 2}
