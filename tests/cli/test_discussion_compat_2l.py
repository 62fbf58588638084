"""``toolkit discussion --write --compat 2l``: 2L's own evaluation file beside each game.

2L's evaluate script (``src/cli/evaluate-transcript.ts``) saves
``evaluations/<transcript stem>-evaluation.json`` with ``JSON.stringify(result, null, 2)``
(``fs.writeFileSync``: the usual mode, 0644 under umask 022): ``{metrics: {memoryAccuracy:
{score, threshold, pass}, ...}, passCount, totalMetrics, overallPass, timestamp}``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolkit.cli import main

TWO_L_KEYS = [
    "memoryAccuracy",
    "strategicDepth",
    "coherence",
    "roleConsistency",
    "personalityDiversity",
    "antiRepetition",
    "engagement",
]


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["discussion", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def games(sample_runs: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(sample_runs / "discussions", tmp_path / "games"))


@pytest.fixture
def umask_022() -> Iterator[None]:
    before = os.umask(0o022)
    yield
    os.umask(before)


def test_write_compat_2l_saves_2ls_file_name_shape_and_mode(
    games: Path, capsys: pytest.CaptureFixture[str], umask_022: None
) -> None:
    source = games / "game-pass.json"
    code, _, err = run([str(source), "--ratings", str(games / "ratings.csv"), "--write",
                        "--compat", "2l"], capsys)  # fmt: skip
    assert code == 0
    saved = games / "evaluations" / "game-pass-evaluation.json"
    assert f"wrote {saved}" in err
    assert sorted(p.name for p in saved.parent.iterdir()) == ["game-pass-evaluation.json"]
    text = saved.read_text(encoding="utf-8")
    doc = json.loads(text)
    assert list(doc) == [
        "metrics", "passCount", "totalMetrics", "overallPass", "timestamp", "toolkit"
    ]  # fmt: skip
    assert list(doc["metrics"]) == TWO_L_KEYS
    for metric in doc["metrics"].values():
        assert list(metric) == ["score", "threshold", "pass"]
    assert doc["metrics"]["memoryAccuracy"] == {"score": 1.0, "threshold": 0.8, "pass": True}
    assert doc["metrics"]["engagement"]["threshold"] == 3.0
    assert doc["passCount"] == 7 and doc["totalMetrics"] == 7 and doc["overallPass"] is True
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", doc["timestamp"])
    assert text.startswith('{\n  "metrics": {\n    "memoryAccuracy": {\n      "score": 1,\n')
    assert '"threshold": 3,' in text  # JSON.stringify writes 3.0 as 3, never 3.0
    assert not text.endswith("\n")  # JSON.stringify(result, null, 2) writes none
    assert stat.S_IMODE(saved.stat().st_mode) == 0o644  # not a temporary file's 0600


def test_a_failed_or_unrated_game_is_not_an_overall_pass(
    games: Path, capsys: pytest.CaptureFixture[str], umask_022: None
) -> None:
    code, _, _ = run([str(games / "game-role-repetition.json"), "--write", "--compat", "2l"],
                     capsys)  # fmt: skip
    assert code == 0
    doc = json.loads(
        (games / "evaluations" / "game-role-repetition-evaluation.json").read_text("utf-8")
    )
    assert doc["overallPass"] is False
    assert doc["metrics"]["roleConsistency"]["pass"] is False
    # no rating given: 2L's own placeholder 3 (a number, as 2L always writes), not a pass;
    # the toolkit's own state says why
    assert doc["metrics"]["engagement"] == {"score": 3, "threshold": 3, "pass": False}
    assert doc["toolkit"]["placeholders"] == {"engagement": "pending: no rating yet"}
    assert doc["toolkit"]["verdict"] == "FAIL"
    assert doc["passCount"] == sum(m["pass"] for m in doc["metrics"].values())


def test_a_rewrite_replaces_the_file_whole_and_leaves_no_temporary_file(
    games: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = games / "evaluations" / "game-pass-evaluation.json"
    saved.parent.mkdir()
    saved.write_text("{half a fi", encoding="utf-8")
    args = [str(games / "game-pass.json"), "--write", "--compat", "2l"]
    assert run(args, capsys)[0] == 0
    assert json.loads(saved.read_text(encoding="utf-8"))["totalMetrics"] == 7
    assert [p.name for p in saved.parent.iterdir()] == [saved.name]


EMPTY_GAME = {
    "gameId": "empty", "timestamp": "2026-03-14T19:00:00.000Z",
    "metadata": {"playerCount": 2, "totalTurns": 0,
                 "cost": {"totalCost": 0.0, "cacheHitRate": 0.0}},
    "players": [{"name": "Ada", "role": "MAFIA", "personality": "x"},
                {"name": "Bo", "role": "VILLAGER", "personality": "y"}],
    "messages": [], "votes": [],
}  # fmt: skip


def test_a_game_without_messages_is_na_here_and_carries_2ls_placeholders(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """2L's script scores an empty game: strategic depth, role consistency and diversity 0,
    coherence, anti-repetition and memory 1.0, engagement its placeholder 3.0: 4/7, FAIL.
    Here a metric with nothing to measure is N/A (not a pass); 2L's file still gets 2L's
    numbers, and the toolkit's key names each one as a placeholder."""
    source = tmp_path / "discussion-empty.json"
    source.write_text(json.dumps(EMPTY_GAME), encoding="utf-8")
    code, out, _ = run([str(source), "--write", "--compat", "2l"], capsys)
    assert code == 0
    doc = json.loads(
        (tmp_path / "evaluations" / "discussion-empty-evaluation.json").read_text("utf-8")
    )
    scores = {k: m["score"] for k, m in doc["metrics"].items()}
    assert scores == {"memoryAccuracy": 1, "strategicDepth": 0, "coherence": 1,
                      "roleConsistency": 0, "personalityDiversity": 0, "antiRepetition": 1,
                      "engagement": 3}  # fmt: skip
    assert sorted(doc["toolkit"]["placeholders"]) == sorted(
        ["strategicDepth", "coherence", "roleConsistency", "personalityDiversity",
         "antiRepetition", "engagement"]
    )  # fmt: skip
    assert not any(m["pass"] for k, m in doc["metrics"].items() if k != "memoryAccuracy")
    assert doc["overallPass"] is False
    assert "N/A" in out


def test_compat_without_write_is_a_usage_error(
    games: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run([str(games / "game-pass.json"), "--compat", "2l"], capsys)
    assert code == 2
    assert "--compat" in err and "needs --write" in err
    assert not (games / "evaluations").exists()


def test_a_rewrite_keeps_the_existing_files_mode_as_write_file_sync_does(
    games: Path, capsys: pytest.CaptureFixture[str], umask_022: None
) -> None:
    """2L's ``fs.writeFileSync`` truncates an existing file in place: its mode stays (the
    mode argument applies only to a new file). A user who made the file 0600 keeps 0600."""
    saved = games / "evaluations" / "game-pass-evaluation.json"
    saved.parent.mkdir()
    saved.write_text("{}", encoding="utf-8")
    saved.chmod(0o600)
    assert run([str(games / "game-pass.json"), "--write", "--compat", "2l"], capsys)[0] == 0
    assert json.loads(saved.read_text(encoding="utf-8"))["totalMetrics"] == 7
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        # path.basename(transcriptPath, '.json') + '-evaluation.json', by hand:
        ("discussion (1).json", "discussion (1)-evaluation.json"),
        ("partie été.json", "partie été-evaluation.json"),
        ("game.JSON", "game.JSON-evaluation.json"),  # the '.json' it strips is lower case
        ("game.v2.json", "game.v2-evaluation.json"),
    ],
)
def test_the_file_is_named_as_2ls_script_names_it(
    name: str, expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / name
    source.write_text(json.dumps(EMPTY_GAME), encoding="utf-8")
    assert run([str(source), "--write", "--compat", "2l"], capsys)[0] == 0
    assert [p.name for p in (tmp_path / "evaluations").iterdir()] == [expected]


def test_a_name_too_long_for_the_atomic_write_is_shortened_not_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / ("g" * 210 + ".json")
    source.write_text(json.dumps(EMPTY_GAME), encoding="utf-8")
    assert run([str(source), "--write", "--compat", "2l"], capsys)[0] == 0
    (saved,) = (tmp_path / "evaluations").iterdir()
    assert saved.name.startswith("g" * 71 + "-") and saved.name.endswith("-evaluation.json")
