"""``toolkit outcome``: output shapes, sidecars and every exit code."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
import yaml

from toolkit import InputError, collect_outcome_evidence, load_iteration_log, score_outcome
from toolkit.cli import main
from toolkit.io.atomic import is_temp_file
from toolkit.sidecars import session_sidecar_path, write_score_sidecars


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["outcome", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def log_copy(tmp_path: Path, tally_log: Path) -> Path:
    """A writable copy of the sample log."""
    return Path(shutil.copytree(tally_log, tmp_path / "tally-loop"))


def test_json_follows_the_documented_shape(
    capsys: pytest.CaptureFixture[str], tally_log: Path, tally_repo: Path, tally_transcripts: Path
) -> None:
    code, out, _ = run(
        capsys,
        str(tally_log),
        "--repo",
        str(tally_repo),
        "--transcripts",
        str(tally_transcripts),
        "--format",
        "json",
    )
    assert code == 0
    doc = json.loads(out)
    assert list(doc) == [
        "rubric",
        "rubric_version",
        "epoch",
        "iterations",
        "sessions",
        "integrity",
        "warnings",
    ]
    assert doc["rubric_version"] == "2.1.0"
    assert [i["iteration"] for i in doc["iterations"]] == [1, 2, 3, 4, 5, 6]
    it5 = doc["iterations"][4]
    assert list(it5) == [
        "iteration",
        "scored",
        "value",
        "band",
        "breakdown",
        "objectives",
        "linked_traces_to_outcomes",
        "input_digest",
        "labels",
    ]
    # Iteration 5 in the sample transcript: `git checkout -b spike/streaming`, then
    # `pytest -q`, and no Read of loop-state.md; its verifier lists no linked traces.
    assert [(o["objective"], o["value"]) for o in it5["objectives"]] == [
        ("ran_cli_command", 1),
        ("ran_tests_before_commit", 1),
        ("read_loop_state", 0),
        ("tests_added_by_kind_in_diff", None),
    ]
    assert it5["linked_traces_to_outcomes"] is False
    assert (it5["scored"], it5["value"], it5["band"]) == (True, 0.3723, "poor")
    assert list(it5["breakdown"][0]) == [
        "signal",
        "label",
        "present",
        "sub_score",
        "detail",
        "nominal_weight",
        "effective_weight",
        "contribution",
    ]
    assert [b["signal"] for b in it5["breakdown"]] == [
        "landed",
        "verifier",
        "tests",
        "correction_pressure",
        "scope",
        "hook_outcomes",
        "token_efficiency",
    ]  # dot-agents 2.1.0's order
    assert list(doc["integrity"][0]) == [
        "iteration",
        "signal",
        "role",
        "claimed",
        "observed",
        "delta",
    ]
    assert {s["session_id"] for s in doc["sessions"]} == {
        "4c1d7e2a-5b8f-4e0c-9a61-2f3b7d9e8a10",
        "9e0b5c37-1a2d-4f6e-8b90-c4d5e6f7a8b9",
    }
    assert len(doc["warnings"]) == 2 and "iter-7.yaml:2" in doc["warnings"][0]
    # The sample holds reviewers' labels: the 2.1.0 output says how 3.0.0 would score them.
    assert doc["warnings"][1].endswith(
        "this log's reviewers' labels (iter-N.labels.yaml) on 4 iteration(s) are shown beside "
        "the score but not in it under rubric 2.1.0: --rubric dot-agents-3.0.0 scores them as "
        "human_label"
    )


def test_table_output(capsys: pytest.CaptureFixture[str], tally_log: Path) -> None:
    code, out, err = run(capsys, str(tally_log))
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[1].split()[:4] == ["iter", "session", "value", "band"]
    assert lines[2].split()[:4] == ["1", "-", "1.0000", "excellent"]
    assert "Warnings" in lines


def test_one_iteration(capsys: pytest.CaptureFixture[str], tally_log: Path) -> None:
    code, out, _ = run(capsys, str(tally_log), "--iteration", "4")
    assert code == 0
    assert out.startswith("Iteration 4 · session 4c1d7e2a-5b8f-4e0c-9a61-2f3b7d9e8a10\n")
    assert "  [absent]    Landed on master" in out
    code, out, _ = run(capsys, str(tally_log), "--iteration", "4", "--format", "json")
    doc = json.loads(out)
    assert [i["iteration"] for i in doc["iterations"]] == [4]
    assert {r["iteration"] for r in doc["integrity"]} == {4}


def test_write_persists_stamped_sidecars(
    capsys: pytest.CaptureFixture[str], log_copy: Path, tally_repo: Path
) -> None:
    code, _, err = run(capsys, str(log_copy), "--repo", str(tally_repo), "--write")
    assert code == 0 and "wrote 8 score sidecar(s)" in err
    it2 = yaml.safe_load((log_copy / "iter-2.score.yaml").read_text())
    assert (it2["rubric"], it2["rubric_version"], it2["iteration"]) == ("outcome", "2.1.0", 2)
    assert (it2["value"], it2["band"]) == (0.7531, "good")
    assert [b["signal"] for b in it2["breakdown"]][:2] == ["landed", "verifier"]
    assert it2["toolkit"]["integrity"][0] == {
        "signal": "landed",
        "role": "impl",
        "claimed": 1.0,
        "observed": 0.0,
        "delta": -1.0,
    }
    session = yaml.safe_load(
        session_sidecar_path(log_copy, "9e0b5c37-1a2d-4f6e-8b90-c4d5e6f7a8b9").read_text()
    )
    assert (session["rubric_version"], session["iterations"], session["value"]) == (
        "2.1.0",
        [6],
        0.8901,
    )
    # The sidecars are not read back as iterations.
    code, out, _ = run(capsys, str(log_copy), "--format", "json")
    assert len(json.loads(out)["iterations"]) == 6


def test_rescoring_one_iteration_rewrites_only_its_sidecar(
    capsys: pytest.CaptureFixture[str], log_copy: Path
) -> None:
    assert run(capsys, str(log_copy), "--write")[0] == 0
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in log_copy.glob("*.score.yaml")}
    (log_copy / "iter-3.score.yaml").write_text("stale\n")
    assert run(capsys, str(log_copy), "--write", "--iteration", "3")[0] == 0
    after = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in log_copy.glob("*.score.yaml")}
    assert set(after) == set(before)
    assert after["iter-3.score.yaml"][0] == before["iter-3.score.yaml"][0]
    for name in set(before) - {"iter-3.score.yaml"}:
        assert after[name] == before[name]


def test_a_crash_mid_write_leaves_the_old_sidecar_whole(
    log_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = load_iteration_log(log_copy)
    result = score_outcome(log, collect_outcome_evidence(log))
    target = log_copy / "iter-1.score.yaml"
    target.write_text("old: whole\n")

    def crash(*_: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(InputError, match="cannot write the score sidecar"):
        write_score_sidecars(result, log_copy, iterations=[1], sessions=False)
    assert target.read_text() == "old: whole\n"
    assert [p.name for p in log_copy.iterdir() if is_temp_file(p.name)] == []


def test_session_ids_cannot_leave_the_folder(tmp_path: Path) -> None:
    assert session_sidecar_path(tmp_path, "../../etc/x").parent == tmp_path
    assert session_sidecar_path(tmp_path, "a/b c").name == "session-a_b_c.score.yaml"


def one_line_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    return err.strip()


def test_exit_2_on_a_missing_or_empty_log(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert one_line_error(capsys, str(tmp_path / "nope")).endswith("nope: no such folder")
    err = one_line_error(capsys, str(tmp_path))
    assert "no iteration could be loaded" in err
    (tmp_path / "iter-1.yaml").write_text("schema_version: 9\n")
    err = one_line_error(capsys, str(tmp_path))
    assert "first problem:" in err and "iter-1.yaml:1: schema_version=9" in err


def test_exit_2_on_bad_options(
    capsys: pytest.CaptureFixture[str], tally_log: Path, tmp_path: Path
) -> None:
    err = one_line_error(capsys, str(tally_log), "--repo", str(tmp_path))
    assert err.endswith("not a git repository (--repo)")
    err = one_line_error(capsys, str(tally_log), "--transcripts", str(tmp_path / "none"))
    assert err.endswith("no such folder (--transcripts)")
    err = one_line_error(capsys, str(tally_log), "--iteration", "9")
    assert "--iteration=9: no such iteration in the log (it has 1..6)" in err
    bad = tmp_path / "rubric.yaml"
    bad.write_text("version: 2.1.0\ntool_error_weight: 5\n")
    err = one_line_error(capsys, str(tally_log), "--rubric", str(bad))
    assert "bump its version" in err
    bad.write_text("version: 2.2.0\n")
    err = one_line_error(capsys, str(tally_log), "--rubric", str(bad))
    assert "never published outcome rubric 2.2.0" in err
    err = one_line_error(capsys, str(tally_log), "--rubric", "dot-agents-9.9.9")
    assert "no such published rubric" in err


def test_exit_2_when_a_sidecar_cannot_be_written(
    capsys: pytest.CaptureFixture[str], log_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*_: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)
    err = one_line_error(capsys, str(log_copy), "--write")
    assert "cannot write the score sidecar (Permission denied)" in err


def test_exit_2_on_a_usage_error(capsys: pytest.CaptureFixture[str], tally_log: Path) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["outcome", str(tally_log), "--format", "xml"])
    assert stop.value.code == 2
    assert "invalid choice: 'xml'" in capsys.readouterr().err
