"""``toolkit discussion --judge``: labelled judged readings, the --engagement judge stamp."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolkit.cli import main


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["discussion", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def folder(sample_runs: Path) -> Path:
    return sample_runs / "discussions"


def judge_args(folder: Path) -> list[str]:
    return ["--judge", f"recorded:{folder / 'judge' / 'cassette.json'}"]


def test_json_carries_the_judges_readings_and_reasoning(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        [str(folder / "game-pass.json"), "--ratings", str(folder / "ratings.csv"), "--format",
         "json", *judge_args(folder)],
        capsys,
    )  # fmt: skip
    assert code == 0
    doc = json.loads(out)
    (game,) = doc["games"]
    judged = [m for m in game["metrics"] if m.get("source") == "judge"]
    assert [m["key"] for m in judged] == [
        "memory_accuracy_judge",
        "strategic_depth_judge",
        "engagement_judge",
    ]
    assert all(m["name"].endswith("(judge)") for m in judged)
    assert game["engagement_source"] == "humans" and game["verdict"] == "PASS"
    items = game["judge"]["items"]
    assert items and all(i["reasoning"] for i in items)
    assert {i["metric"] for i in items} == {"engagement", "strategic_depth", "memory_accuracy"}
    assert doc["judge"]["engagement"] == "humans"
    assert doc["judge"]["usage"]["answered_live"] == 0


def test_without_a_judge_the_json_has_no_judge_keys(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run([str(folder / "game-pass.json"), "--format", "json"], capsys)
    assert code == 0
    doc = json.loads(out)
    assert "judge" not in doc and "judge" not in doc["games"][0]
    assert len(doc["games"][0]["metrics"]) == 7


def test_engagement_judge_is_stamped_in_text_json_markdown_and_junit(
    folder: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    game = str(folder / "game-pass.json")  # no --ratings: nobody rated it
    common = [game, *judge_args(folder), "--engagement", "judge"]
    code, text, _ = run(common, capsys)
    assert code == 0
    assert "engagement: judge" in text  # the title
    assert "PASS           7/7  game-pass  (engagement by the judge)" in text
    assert "--engagement judge: 1 game(s) without a human rating" in text
    _, out, _ = run([*common, "--format", "json"], capsys)
    doc = json.loads(out)
    assert doc["games"][0]["engagement_source"] == "judge"
    assert doc["judge"]["engagement"] == "judge"
    _, markdown, _ = run([*common, "--format", "markdown"], capsys)
    assert "engagement: judge" in markdown and "engagement by the judge" in markdown
    junit = tmp_path / "junit.xml"
    code, _, _ = run([*common, "--gate", "--junit", str(junit)], capsys)
    assert code == 0
    xml = junit.read_text()
    assert "--engagement judge" in xml


def test_without_engagement_judge_the_game_waits_for_people(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        [str(folder / "game-pass.json"), *judge_args(folder), "--format", "json"], capsys
    )
    assert code == 0
    (game,) = json.loads(out)["games"]
    assert game["verdict"] == "PENDING_RATING"
    assert game["engagement_source"] is None
    judge_row = next(m for m in game["metrics"] if m["key"] == "engagement_judge")
    assert judge_row["score"] is not None  # shown beside, not deciding


def test_engagement_judge_without_a_judge_is_refused(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run([str(folder / "game-pass.json"), "--engagement", "judge"], capsys)
    assert code == 2
    assert "--engagement" in err and "needs --judge" in err and len(err.splitlines()) == 1


def test_a_changed_game_misses_the_cassette_in_one_line(
    folder: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = json.loads((folder / "game-pass.json").read_text())
    data["messages"][0]["message"] += " Also, nice weather."
    changed = tmp_path / "game-pass.json"
    changed.write_text(json.dumps(data))
    code, _, err = run([str(changed), *judge_args(folder)], capsys)
    assert code == 2
    assert len(err.splitlines()) == 1
    assert "cassette.json" in err and "no recording for proposition" in err and "game-pass" in err


def test_double_check_asks_the_revised_answers_the_cassette_lacks(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(
        [str(folder / "game-pass.json"), *judge_args(folder), "--double-check"], capsys
    )
    assert code == 2  # the sample cassette holds first answers only
    assert "double-check" in err and len(err.splitlines()) == 1


def test_live_judge_options_without_a_judge_are_refused(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run([str(folder / "game-pass.json"), "--max-cost", "1"], capsys)
    assert code == 2 and "--max-cost" in err and "needs --judge" in err
