"""``toolkit discussion --gate`` / ``--write`` and the advice lines of a single game."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from toolkit.cli import main
from toolkit.rubrics.discussion import DEFAULT_DISCUSSION_SPEC


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["discussion", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def games(sample_runs: Path, tmp_path: Path) -> Path:
    """A private copy of the sample games (``--write`` writes beside them)."""
    return Path(shutil.copytree(sample_runs / "discussions", tmp_path / "games"))


# --- the gate ---------------------------------------------------------------


def test_gate_exits_1_when_a_game_fails(games: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run([str(games / "game-role-repetition.json"), "--gate"], capsys)
    assert "Verdict: FAIL" in out
    assert code == 1


def test_without_gate_a_failed_game_exits_0(
    games: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run([str(games / "game-role-repetition.json")], capsys)
    assert "Verdict: FAIL" in out
    assert code == 0


def test_gate_passes_a_rated_passing_game(games: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = [str(games / "game-pass.json"), "--ratings", str(games / "ratings.csv"), "--gate"]
    code, out, err = run(args, capsys)
    assert "Verdict: PASS" in out
    assert (code, err) == (0, "")


def test_gate_lets_a_pending_rating_pass_with_a_warning(
    games: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run([str(games / "game-pass.json"), "--gate"], capsys)
    assert "Verdict: PENDING_RATING" in out
    assert code == 0
    assert err.startswith("toolkit discussion: warning: 1 game(s) wait for an engagement rating")
    assert "--gate strict" in err


def test_strict_gate_fails_a_pending_rating(
    games: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run([str(games / "game-pass.json"), "--gate", "strict"], capsys)
    assert "Verdict: PENDING_RATING" in out
    assert code == 1


def test_gate_over_several_games_fails_when_any_fails(
    games: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # game-pass passes with its ratings; game-over-budget fails on cost.
    args = [
        str(games / "game-pass.json"),
        str(games / "game-over-budget.json"),
        "--ratings",
        str(games / "ratings.csv"),
        "--gate",
        "--format",
        "json",
    ]
    code, out, _ = run(args, capsys)
    verdicts = {g["game_id"]: g["verdict"] for g in json.loads(out)["games"]}
    assert verdicts["game-pass"] == "PASS"
    assert verdicts["game-over-budget"] == "FAIL"
    assert code == 1


def test_bad_gate_mode_exits_2_naming_the_value(
    games: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["discussion", str(games / "game-pass.json"), "--gate", "sometimes"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1  # one line, no usage block
    assert "--gate='sometimes': must be one of strict, fail-only, regression, none" in err


# --- writing scorecards -----------------------------------------------------


def test_write_saves_the_scorecard_beside_the_transcript(
    games: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = games / "game-role-repetition.json"
    code, printed, _ = run([str(source), "--format", "json"], capsys)
    assert code == 0
    code, _, err = run([str(source), "--write"], capsys)
    assert code == 0
    saved = games / "evaluations" / "game-role-repetition.score.json"
    assert f"wrote {saved}" in err
    doc = json.loads(saved.read_text(encoding="utf-8"))
    (game,) = json.loads(printed)["games"]
    assert doc == {
        "rubric": "discussion",
        "rubric_version": "1.2.0",
        "source_file": str(source),
        **game,
    }
    # Atomic: no temporary file is left in the folder.
    assert sorted(p.name for p in saved.parent.iterdir()) == [saved.name]


def test_write_then_gate_still_writes_a_failed_game(
    games: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, _ = run([str(games / "game-role-repetition.json"), "--write", "--gate"], capsys)
    assert code == 1
    saved = games / "evaluations" / "game-role-repetition.score.json"
    assert json.loads(saved.read_text(encoding="utf-8"))["verdict"] == "FAIL"


def test_write_replaces_an_earlier_scorecard(
    games: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = games / "evaluations" / "game-pass.score.json"
    saved.parent.mkdir()
    saved.write_text("{}", encoding="utf-8")
    args = [str(games / "game-pass.json"), "--ratings", str(games / "ratings.csv"), "--write"]
    assert run(args, capsys)[0] == 0
    assert json.loads(saved.read_text(encoding="utf-8"))["verdict"] == "PASS"


def test_write_saves_one_file_per_game_of_a_database(
    games: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = games / "baseline" / "games.db"
    code, _, _ = run([str(db), "--write"], capsys)
    assert code == 0
    written = sorted(p.name for p in (db.parent / "evaluations").iterdir())
    assert written == [f"games.base-7-{i}.score.json" for i in (1, 2, 3)]
    doc = json.loads((db.parent / "evaluations" / written[0]).read_text(encoding="utf-8"))
    assert (doc["game_id"], doc["source_file"]) == ("base-7-1", str(db))


def _export(game_ids: list[str]) -> dict[str, object]:
    players = [
        {"id": "p1", "name": "Ada", "role": "MAFIA", "personality": "x"},
        {"id": "p2", "name": "Bo", "role": "VILLAGER", "personality": "y"},
    ]
    message = {"id": "m1", "roundNumber": 1, "playerId": "p1", "message": "Hi.", "turn": 1}
    return {
        "games": [
            {"id": gid, "players": players, "discussionMessages": [message], "votes": []}
            for gid in game_ids
        ]
    }


def test_game_ids_from_data_never_choose_a_path_outside_the_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    hostile = ["../../escape", "/etc/passwd", ".hidden", "a/b"]
    export = folder / "data-backup.json"
    export.write_text(json.dumps(_export(hostile)), encoding="utf-8")
    code, _, _ = run([str(export), "--write"], capsys)
    assert code == 0
    written = sorted((folder / "evaluations").iterdir())
    assert len(written) == len(hostile)  # four ids, four distinct files
    assert all(p.parent == folder / "evaluations" for p in written)
    assert all(p.name.startswith("data-backup.") and "/" not in p.name for p in written)
    # Nothing anywhere else under tmp_path but the input and its evaluations folder.
    everything = {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")}
    assert everything == {"in", "in/data-backup.json", "in/evaluations"} | {
        f"in/evaluations/{p.name}" for p in written
    }
    ids = {json.loads(p.read_text(encoding="utf-8"))["game_id"] for p in written}
    assert ids == set(hostile)


def test_a_linked_evaluations_folder_is_refused(
    games: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (games / "evaluations").symlink_to(elsewhere, target_is_directory=True)
    code, _, err = run([str(games / "game-pass.json"), "--write"], capsys)
    assert code == 2
    assert err == (
        f"toolkit discussion: error: {games / 'evaluations'}: refusing to write "
        "scorecards here: not a plain folder\n"
    )
    assert list(elsewhere.iterdir()) == []


def test_an_evaluations_file_in_the_way_is_a_one_line_error(
    games: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (games / "evaluations").write_text("not a folder", encoding="utf-8")
    code, _, err = run([str(games / "game-pass.json"), "--write"], capsys)
    assert code == 2
    assert err.count("\n") == 1 and "not a plain folder" in err


# --- advice -----------------------------------------------------------------


def test_single_game_text_ends_with_advice_for_each_failed_metric(
    games: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = str(games / "game-role-repetition.json")
    _, printed, _ = run([source, "--format", "json"], capsys)
    (game,) = json.loads(printed)["games"]
    # FAIL = scored and below threshold (PENDING and N/A have no score).
    failed = [m["name"] for m in game["metrics"] if m["score"] is not None and not m["passed"]]
    assert len(failed) >= 2  # this sample fails several metrics
    code, out, _ = run([source], capsys)
    assert code == 0
    by_name = {m.name: m for m in DEFAULT_DISCUSSION_SPEC.metrics.values()}
    expected = [
        f"Advice: {name}: {by_name[name].advice} Fixes to try: {'; '.join(by_name[name].fixes)}."
        for name in failed
    ]
    assert out.rstrip("\n").splitlines()[-len(expected) :] == expected
    assert out.count("Advice: ") == len(expected)


def test_advice_names_the_troubleshooting_guides_fixes(
    games: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 23 item 13: the guide's specific fixes (how much context, the temperature,
    # how far to prune, shuffling turns) are in the advice lines, as rubric data.
    _, out, _ = run([str(games / "game-role-repetition.json")], capsys)
    line = next(x for x in out.splitlines() if x.startswith("Advice: Anti-repetition:"))
    assert "prune the context to the last 20-30 messages" in line
    assert "shuffle the speaking order between rounds" in line


def test_fixes_are_rubric_data_a_team_can_edit(
    games: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rubric = tmp_path / "rubric.yaml"
    rubric.write_text(
        'version: "1.1.1-team"\n'
        "metrics:\n  anti_repetition:\n    fixes: [use a repetition penalty of 1.2]\n",
        encoding="utf-8",
    )
    _, out, _ = run([str(games / "game-role-repetition.json"), "--rubric", str(rubric)], capsys)
    line = next(x for x in out.splitlines() if x.startswith("Advice: Anti-repetition:"))
    assert line.endswith("Fixes to try: use a repetition penalty of 1.2.")


def test_no_advice_when_nothing_failed(games: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = [str(games / "game-pass.json"), "--ratings", str(games / "ratings.csv")]
    _, out, _ = run(args, capsys)
    assert "[FAIL]" not in out
    assert "Advice: " not in out


def test_several_games_print_no_advice(games: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run([str(games)], capsys)
    assert "[FAIL]" in out
    assert "Advice: " not in out


def test_advice_text_is_rubric_data(
    games: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rubric = tmp_path / "rubric.yaml"
    rubric.write_text(
        'version: "1.0.1-team"\n'
        "metrics:\n  strategic_depth:\n    advice: Give every turn a reason.\n",
        encoding="utf-8",
    )
    _, out, _ = run([str(games / "game-role-repetition.json"), "--rubric", str(rubric)], capsys)
    assert "Advice: Strategic depth: Give every turn a reason." in out


def test_changed_advice_without_a_new_version_is_refused(
    games: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rubric = tmp_path / "rubric.yaml"
    rubric.write_text(
        "metrics:\n  strategic_depth:\n    advice: Give every turn a reason.\n", encoding="utf-8"
    )
    code, _, err = run([str(games / "game-pass.json"), "--rubric", str(rubric)], capsys)
    assert code == 2
    assert err.count("\n") == 1 and str(rubric) in err
