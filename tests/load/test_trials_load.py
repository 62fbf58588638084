"""The per-trial frame read from CSV and JSONL (`toolkit compare --pass-k FILE`):
tau-bench's success rule and one line for every bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.errors import InputError
from toolkit.load.trials import read_trials, success


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_success_is_a_reward_within_1e_6_of_1_as_tau_bench_counts_it() -> None:
    assert success(1.0) and success(1 - 1e-6) and success(1 + 1e-6) and success(0.9999995)
    assert not success(1 - 2e-6) and not success(0.5) and not success(0.0)


def test_csv_with_rewards_and_verdicts(tmp_path: Path) -> None:
    path = write(tmp_path, "t.csv", "task,trial,reward,passed,note\n"
                 "a,0,1,,x\na,1,0.9999995,,\nb,0,0.5,,\nb,1,,true,\nc,0,,0,\n")  # fmt: skip
    frame = read_trials(path)
    assert frame.columns == ["task", "trial", "passed", "reward"]
    assert frame["passed"].to_list() == [True, True, False, True, False]
    assert frame["reward"].to_list() == [1.0, 0.9999995, 0.5, None, None]


def test_jsonl_with_task_id_and_integer_trials(tmp_path: Path) -> None:
    path = write(tmp_path, "t.jsonl", '{"task_id": 7, "trial": 0, "reward": 1.0}\n\n'
                 '{"task_id": 7, "trial": 1, "passed": false}\n')  # fmt: skip
    frame = read_trials(path)
    assert frame.rows() == [("7", "0", True, 1.0), ("7", "1", False, None)]


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("t.csv", "task,trial,reward\na,0,1\na,1\n", "t.csv:3: 2 cells where the header has 3"),
        ("t.csv", "task,trial,reward,reward\na,0,1,1\n",
         "t.csv:1: reward='reward': the header names this column twice"),
        ("t.csv", "task,trial,reward\na,0,nan\n", "t.csv:2: reward='nan': must be a finite number"),
        ("t.csv", "task,trial,reward\na,0,inf\n", "t.csv:2: reward='inf': must be a finite number"),
        ("t.csv", "task,trial,reward\na,0,1\nb,0,1\na,0,0\n",
         "t.csv:4: task='a': trial '0' of this task is also on line 2"),
        ("t.csv", "task,trial,reward\na,0,high\n", "t.csv:2: reward='high': must be a number"),
        ("t.csv", "task,trial,passed\na,0,maybe\n",
         "t.csv:2: passed='maybe': not a verdict (true/false, 1/0, pass/fail)"),
        ("t.csv", "task,trial,reward,passed\na,0,0.2,true\n",
         "t.csv:2: passed='true': passed=True but the reward 0.2 is not within 1e-6 of 1"),
        ("t.csv", "task,trial,reward\na,0,\n",
         "t.csv:2: passed=None: a row needs passed or reward"),
        ("t.csv", "trial,reward\n0,1\n", "t.csv:2: task=None: no task column (task or task_id)"),
        ("t.csv", "task,trial,reward\n,0,1\n",
         "t.csv:2: task='': missing (each row names its task and trial)"),
        ("t.csv", "task,trial,reward\n", "t.csv: no trials in it"),
        ("t.jsonl", '{"task": "a", "trial": 0, "reward": true}\n',
         "t.jsonl:1: reward=True: must be a number"),
        ("t.jsonl", '["a", 0, 1]\n', "t.jsonl:1: each line must be a JSON object"),
        ("t.txt", "task,trial\n", "t.txt: trials are read from a .csv or .jsonl file"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line_naming_file_line_field_and_value(
    tmp_path: Path, name: str, text: str, expected: str
) -> None:
    path = write(tmp_path, name, text)
    with pytest.raises(InputError) as err:
        read_trials(path)
    assert str(err.value) == f"{tmp_path}/{expected}"
    assert "\n" not in str(err.value)


def test_a_non_finite_reward_in_jsonl_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "t.jsonl", '{"task": "a", "trial": 0, "reward": NaN}\n')
    with pytest.raises(InputError) as err:
        read_trials(path)
    assert str(err.value).startswith(f"{path}:1")
    assert "\n" not in str(err.value)


def test_a_missing_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file of trials"):
        read_trials(tmp_path / "none.csv")
