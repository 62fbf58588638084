"""``toolkit discussion``: the JSON shape, the table, the comparison and the exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from toolkit.cli import main


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["discussion", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_follows_the_issue_shape(
    sample_runs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = sample_runs / "discussions"
    code, out, _ = run(
        [
            str(folder / "game-pass.json"),
            "--ratings",
            str(folder / "ratings.csv"),
            "--format",
            "json",
        ],
        capsys,
    )
    assert code == 0
    doc = json.loads(out)
    assert list(doc) == ["rubric", "rubric_version", "epoch", "games", "comparison"]
    assert doc["rubric_version"] == "1.2.0"
    assert doc["comparison"] is None
    (game,) = doc["games"]
    assert list(game) == [
        "game_id", "verdict", "reasons", "passed_count", "cost", "metrics", "epoch",
        "input_digest",
    ]  # fmt: skip
    assert (game["game_id"], game["verdict"], game["passed_count"], game["cost"]) == (
        "game-pass",
        "PASS",
        7,
        1.18,
    )
    assert [list(m) for m in game["metrics"]] == [
        ["key", "name", "score", "threshold", "passed", "detail"]
    ] * 7
    eng = game["metrics"][6]
    assert (eng["key"], eng["threshold"], eng["passed"]) == ("engagement", 3.0, True)
    assert eng["score"] == pytest.approx(11 / 3)  # ratings 4, 3, 4


def test_baseline_adds_the_comparison(
    sample_runs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = sample_runs / "discussions"
    code, out, _ = run(
        [
            str(folder),
            "--baseline",
            str(folder / "baseline"),
            "--ratings",
            str(folder / "ratings.csv"),
            "--format",
            "json",
        ],
        capsys,
    )
    assert code == 0
    comp = json.loads(out)["comparison"]
    assert comp["baseline_games"] == ["base-7-1", "base-7-2", "base-7-3"]
    assert comp["recommendation"] in {"keep", "review", "revert"}
    assert len(comp["metrics"]) == 7
    assert comp["success"]["met"] is False
    # the three sample games are one test (a batch of 3), judged on its averages
    assert [b["games"] for b in comp["success"]["batches"]] == [
        ["game-over-budget", "game-pass", "game-role-repetition"]
    ]
    assert comp["success"]["proceed"] is False
    assert comp["success"]["proceed_reason"] == (
        "do not proceed: no 3 consecutive passing tests yet"
    )
    code, out, _ = run(
        [
            str(folder),
            "--baseline",
            str(folder / "baseline"),
            "--ratings",
            str(folder / "ratings.csv"),
        ],
        capsys,
    )
    assert "Next iteration: do not proceed: no 3 consecutive passing tests yet" in out


def test_table_prints_every_scorecard(
    sample_runs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run([str(sample_runs / "discussions")], capsys)
    assert code == 0
    assert out.count("Verdict: ") == 3
    assert "[PENDING]" in out  # no ratings given
    assert "caching broken" in out


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda p: p / "absent.json", "no such file or folder"),
        (lambda p: (p / "bad.json").write_text("{oops") and p / "bad.json", "not valid JSON"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    make,
    expected: str,  # type: ignore[no-untyped-def]
) -> None:
    code, out, err = run([str(make(tmp_path))], capsys)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith("toolkit discussion: error: ")
    assert expected in err


def test_bad_ratings_file_exits_2(
    sample_runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ratings = tmp_path / "r.csv"
    ratings.write_text("game_id,rater,score\ngame-pass,ana,9\n")
    code, _, err = run([str(sample_runs / "discussions"), "--ratings", str(ratings)], capsys)
    assert code == 2
    assert "score='9'" in err


def test_console_script_exit_code(sample_runs: Path, tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from toolkit.cli import main; sys.exit(main())",
            "discussion",
            str(tmp_path / "none.json"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip().endswith("none.json: no such file or folder")


def test_json_mode_sends_lenient_reading_warnings_to_stderr(
    sample_runs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        [str(sample_runs / "discussions" / "baseline"), "--format", "json"], capsys
    )
    assert code == 0
    assert json.loads(out)["games"][0]["game_id"] == "base-7-1"
    assert err.startswith("toolkit discussion: warning: ")
    assert "holds no cost" in err
    assert err.count("\n") == 1  # said once, not once per game


def test_unknown_cost_is_shown_and_fails_only_with_require_cost(
    real_runs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 23 item 6: the real 2L export records no cost; the big game waits for its
    # rating instead of failing on a budget it cannot be over.
    export = str(real_runs / "discussions" / "2l-ai-mafia" / "data-backup.json")
    code, out, _ = run([export, "--format", "json"], capsys)
    assert code == 0
    games = {g["game_id"]: g for g in json.loads(out)["games"]}
    big = games["cmgo31art0000d036btjje97q"]
    assert big["cost"] is None
    assert big["verdict"] == "PENDING_RATING"
    assert "cost unknown: the $3.00 budget not checked" in big["reasons"]
    code, out, _ = run([export, "--format", "json", "--require-cost"], capsys)
    assert code == 0
    verdicts = {g["game_id"]: g["verdict"] for g in json.loads(out)["games"]}
    assert set(verdicts.values()) == {"FAIL"}
    assert len(verdicts) == 9
