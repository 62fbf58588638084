"""dot-agents eval-harness runs: the typed loader (taskspec.yaml, eval-run.yaml), Go
durations, and one line for every bad file."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from conftest import SAMPLE_RUNS

from toolkit.errors import InputError
from toolkit.load.eval_runs import load_eval_run, load_eval_runs, parse_duration

RUNS = SAMPLE_RUNS / "eval_runs" / "claude" / ".agents" / "eval" / "runs"


def a_run(tmp_path: Path) -> Path:
    first = sorted(RUNS.iterdir())[0]
    folder = tmp_path / first.name
    shutil.copytree(first, folder)
    return folder


def edit(path: Path, change: dict[str, object]) -> None:
    doc = yaml.safe_load(path.read_text())
    for dotted, value in change.items():
        *parents, last = dotted.split(".")
        at = doc
        for p in parents:
            at = at[p]
        if value is ...:
            del at[last]
        else:
            at[last] = value
    path.write_text(yaml.safe_dump(doc, sort_keys=False))


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("4m12.5s", 252.5), ("850ms", 0.85), ("1h2m3s", 3723.0), ("0s", 0.0), ("0", 0.0),
     ("1.5h", 5400.0), ("300us", 3e-4), (12, 12.0), (None, None)],
)  # fmt: skip
def test_go_durations_and_seconds(text: object, seconds: float | None) -> None:
    got = parse_duration(text)
    assert got == (None if seconds is None else pytest.approx(seconds, rel=1e-12))


@pytest.mark.parametrize("bad", ["4 minutes", "-3s", "3x", "m5s", float("inf"), -1, True])
def test_bad_durations_are_refused(bad: object) -> None:
    with pytest.raises(ValueError):
        parse_duration(bad)


def test_a_sample_run_reads_every_field() -> None:
    run = load_eval_run(sorted(RUNS.iterdir())[0])
    row = run.row
    assert row["run_id"] == sorted(RUNS.iterdir())[0].name
    assert row["harness"] == "claude-code" and row["model"] == "claude-sonnet-4-5"
    assert isinstance(row["passed"], bool) and row["duration_s"] > 0
    assert row["template_id"].startswith("tpl-") and row["language"] in {
        "go", "python", "typescript", "rust"}  # fmt: skip
    assert run.log is not None and run.log.endswith("iteration-log")
    assert run.notes == ()


def test_all_sample_runs_load_with_distinct_ids() -> None:
    loaded = load_eval_runs(sorted(RUNS.iterdir()))
    assert loaded.runs.height == 24 and loaded.runs["task_id"].n_unique() == 8
    assert loaded.runs.group_by("task_id").len()["len"].to_list() == [3] * 8


@pytest.mark.parametrize(
    ("file", "change", "expected"),
    [
        ("eval-run.yaml", {"verify.passed": ...}, "verify.passed=None: missing (required)"),
        ("eval-run.yaml", {"verify.passed": "maybe"},
         "verify.passed='maybe': Input should be a valid boolean"),
        ("eval-run.yaml", {"agent.retries": "two"},
         "agent.retries='two': Input should be a valid integer"),
        ("eval-run.yaml", {"agent.duration": "ten minutes"},
         "agent.duration='ten minutes': not a Go duration"),
        ("eval-run.yaml", {"score.value": float("nan")},
         "score.value=nan: must be a finite number"),
        ("eval-run.yaml", {"task_id": "ev-other"}, "task_id='ev-other': the taskspec"),
        ("eval-run.yaml", {"run_id": ...}, "run_id=None: missing (required)"),
        ("taskspec.yaml", {"task_id": ...}, "task_id=None: missing (required)"),
    ],
)  # fmt: skip
def test_a_bad_field_is_one_line_naming_file_field_and_value(
    tmp_path: Path, file: str, change: dict[str, object], expected: str
) -> None:
    folder = a_run(tmp_path)
    edit(folder / file, change)
    with pytest.raises(InputError) as err:
        load_eval_run(folder)
    message = str(err.value)
    assert message.startswith(f"{folder / file}: {expected}")
    assert "\n" not in message


def test_a_missing_file_and_a_non_mapping_are_one_line(tmp_path: Path) -> None:
    folder = a_run(tmp_path)
    (folder / "taskspec.yaml").unlink()
    with pytest.raises(InputError, match=r"taskspec\.yaml: missing"):
        load_eval_run(folder)
    folder = a_run(tmp_path / "b")
    (folder / "eval-run.yaml").write_text("- a list\n")
    with pytest.raises(InputError, match=r"eval-run.yaml: \(top level\)='list'"):
        load_eval_run(folder)


def test_leniencies_are_notes_not_errors(tmp_path: Path) -> None:
    folder = a_run(tmp_path)
    renamed = folder.rename(folder.parent / "renamed")
    shutil.rmtree(renamed / "iteration-log")
    with pytest.warns(UserWarning):
        loaded = load_eval_runs([renamed])
    notes = " ".join(loaded.notes)
    assert "is not its folder's name 'renamed'" in notes
    assert "no iteration-log/ folder" in notes
    assert loaded.items[0].log is None


def test_two_folders_with_one_run_id_are_refused(tmp_path: Path) -> None:
    one = a_run(tmp_path / "x")
    two = a_run(tmp_path / "y")
    with pytest.raises(InputError, match="the same run id as"):
        load_eval_runs([one, two])
