"""The judge: prompts, reply parsing, cassette replay and recording (live judges:
test_live_judges.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolkit.errors import InputError
from toolkit.judge import (
    MISSING_DATA_RULE,
    CassetteMiss,
    JudgeRequest,
    JudgeResult,
    RecordedJudge,
    RecordingJudge,
    build_prompt,
    judge_from_spec,
    parse_batch_reply,
    parse_reply,
)

REQ = JudgeRequest(
    proposition_id="p1",
    dimension="adherence",
    subject="rosa",
    claim="Rosa talks about bread",
    trajectory="Rosa acts: Bread!\n--> Rosa: Tomas: Coffee.",
    persona="A baker.",
)


class ListJudge:
    """A judge answering from a list of values, recording what it was asked."""

    name = "list-judge"

    def __init__(self, values: list[int | None]) -> None:
        self.values = values
        self.calls: list[tuple[list[JudgeRequest], bool]] = []

    def judge(self, requests: Any, *, double_check: bool = False) -> list[JudgeResult]:
        self.calls.append((list(requests), double_check))
        return [JudgeResult(self.values.pop(0), f"because {r.proposition_id}") for r in requests]


# ---------------------------------------------------------------------------
# Requests, prompts, replies
# ---------------------------------------------------------------------------


def test_request_key_is_stable_and_covers_every_input() -> None:
    key = REQ.key()
    assert len(key) == 32
    assert key == JudgeRequest(**{**REQ.__dict__}).key()
    changed = [
        JudgeRequest(**{**REQ.__dict__, "claim": "Rosa talks about cake"}),
        JudgeRequest(**{**REQ.__dict__, "trajectory": "Rosa acts: Cake!"}),
        JudgeRequest(**{**REQ.__dict__, "persona": None}),
        JudgeRequest(**{**REQ.__dict__, "subject": "tomas"}),
        JudgeRequest(**{**REQ.__dict__, "kind": "count"}),
    ]
    assert all(c.key() != key for c in changed)
    assert REQ.key(double_check=True) != key


def test_evidence_is_in_the_key_and_a_request_without_it_keeps_its_old_key() -> None:
    # Recorded cassettes stay valid for requests without evidence: the key of such a
    # request is the hash of the fields it had before evidence existed.
    import hashlib

    new = {"evidence", "scale", "bands"}  # fields added after the first cassettes
    old = {k: v for k, v in REQ.__dict__.items() if k not in new} | {"double_check": False}
    blob = json.dumps(old, sort_keys=True, ensure_ascii=False).encode("utf-8")
    assert REQ.key() == hashlib.sha256(blob).hexdigest()[:32]
    with_evidence = JudgeRequest(**{**REQ.__dict__, "evidence": "3-gram repetition 0.25"})
    assert with_evidence.key() != REQ.key()


def test_prompt_gives_the_supplementary_evidence_after_the_trajectory() -> None:
    req = JudgeRequest(**{**REQ.__dict__, "evidence": "3-gram repetition 0.25"})
    _, user = build_prompt([req])
    assert (
        "TRAJECTORY:\nRosa acts: Bread!\n--> Rosa: Tomas: Coffee.\n\n"
        "SUPPLEMENTARY EVIDENCE (computed from the messages, not a judgement):\n"
        "3-gram repetition 0.25\n\nReply with"
    ) in user
    second = JudgeRequest(**{**req.__dict__, "proposition_id": "p2", "claim": "Rosa is calm"})
    _, batch = build_prompt([req, second])
    assert batch.count("3-gram repetition 0.25") == 1
    assert "SUPPLEMENTARY" not in build_prompt([REQ])[1]


def test_prompt_carries_bands_missing_data_rule_and_persona() -> None:
    system, user = build_prompt([REQ])
    assert "0: the claim is certainly false" in system
    assert "9: the claim is certainly true" in system
    assert MISSING_DATA_RULE in system
    assert system.endswith("persona specification:\nA baker.")
    assert user.startswith("CLAIM: Rosa talks about bread\n\nTRAJECTORY:\nRosa acts: Bread!")
    assert "integer score 0-9 first" in user
    no_persona, _ = build_prompt([JudgeRequest(**{**REQ.__dict__, "persona": None})])
    assert "persona" not in no_persona


def test_batch_prompt_numbers_claims_once_with_one_trajectory() -> None:
    second = JudgeRequest(**{**REQ.__dict__, "proposition_id": "p2", "claim": "Rosa is calm"})
    _, user = build_prompt([REQ, second])
    assert "[1] Rosa talks about bread\n[2] Rosa is calm" in user
    assert user.count("Rosa acts: Bread!") == 1


@pytest.mark.parametrize(
    ("reply", "value", "reasoning"),
    [
        ("7 She mentions bread twice.", 7, "She mentions bread twice."),
        ("0", 0, ""),
        ("9: all of it", 9, "all of it"),
        ("**8** mostly", 8, "mostly"),
    ],
)
def test_reply_starting_with_an_integer_parses(reply: str, value: int, reasoning: str) -> None:
    result = parse_reply(reply)
    assert (result.value, result.reasoning, result.error) == (value, reasoning, None)


@pytest.mark.parametrize("reply", ["The score is 7.", "", "seven", "10 too high", "-1 low"])
def test_reply_not_starting_with_0_to_9_is_an_error_with_raw_text(reply: str) -> None:
    result = parse_reply(reply)
    assert result.value is None
    assert result.error is not None
    assert result.raw == reply


def test_count_replies_may_exceed_nine() -> None:
    assert parse_reply("12 ideas: ...", "count").value == 12


def test_batch_reply_missing_block_fails_only_that_proposition() -> None:
    results = parse_batch_reply("[1] 6 fine\n[3] 2 bad\n", 3)
    assert [r.value for r in results] == [6, None, 2]
    assert results[1].error == "no block [2] in the reply"
    garbage = parse_batch_reply("[1] six\n[2] 4 ok", 2)
    assert garbage[0].value is None and garbage[0].raw == " six\n"
    assert garbage[1].value == 4


# ---------------------------------------------------------------------------
# Cassettes
# ---------------------------------------------------------------------------


def test_recording_then_replay_gives_the_same_results(tmp_path: Path) -> None:
    cassette = tmp_path / "c.json"
    second = JudgeRequest(**{**REQ.__dict__, "proposition_id": "p2"})
    recorder = RecordingJudge(ListJudge([7, 3]), cassette)
    recorded = recorder.judge([REQ, second])
    replay = RecordedJudge(cassette)
    assert len(replay) == 2
    assert replay.judge([second, REQ]) == [recorded[1], recorded[0]]
    assert replay.recorded_by == "list-judge"
    data = json.loads(cassette.read_text())
    assert data["recordings"][REQ.key()]["value"] == 7


def test_recording_keeps_earlier_recordings(tmp_path: Path) -> None:
    cassette = tmp_path / "c.json"
    RecordingJudge(ListJudge([7]), cassette).judge([REQ])
    second = JudgeRequest(**{**REQ.__dict__, "proposition_id": "p2"})
    RecordingJudge(ListJudge([4]), cassette).judge([second])
    assert [r.value for r in RecordedJudge(cassette).judge([REQ, second])] == [7, 4]


def test_cassette_miss_fails_loudly_naming_the_proposition(tmp_path: Path) -> None:
    cassette = tmp_path / "c.json"
    RecordingJudge(ListJudge([7]), cassette).judge([REQ])
    changed = JudgeRequest(**{**REQ.__dict__, "trajectory": "Rosa acts: Cake!"})
    with pytest.raises(CassetteMiss, match=r"no recording for proposition 'p1' about 'rosa'"):
        RecordedJudge(cassette).judge([changed])
    # the double-check answer is a separate recording
    with pytest.raises(CassetteMiss, match="double-check"):
        RecordedJudge(cassette).judge([REQ], double_check=True)


def test_double_check_is_recorded_under_its_own_key(tmp_path: Path) -> None:
    cassette = tmp_path / "c.json"
    inner = ListJudge([5, 8])
    recorder = RecordingJudge(inner, cassette)
    recorder.judge([REQ])
    recorder.judge([REQ], double_check=True)
    assert inner.calls[1][1] is True
    replay = RecordedJudge(cassette)
    assert replay.judge([REQ])[0].value == 5
    assert replay.judge([REQ], double_check=True)[0].value == 8


@pytest.mark.parametrize(
    ("content", "match"),
    [
        ("{", "not valid JSON"),
        ('{"format": "other"}', "format='other': not a judge cassette"),
        ('{"format": "toolkit-judge-cassette", "version": 9}', "version=9"),
        (
            json.dumps(
                {
                    "format": "toolkit-judge-cassette",
                    "version": 1,
                    "recordings": {"k": {"value": 7.5}},
                }
            ),
            r"recordings\.k\.value=7\.5",
        ),
    ],
)
def test_bad_cassettes_are_input_errors(tmp_path: Path, content: str, match: str) -> None:
    path = tmp_path / "c.json"
    path.write_text(content)
    with pytest.raises(InputError, match=match):
        RecordedJudge(path)


def test_judge_from_spec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cassette = tmp_path / "c.json"
    RecordingJudge(ListJudge([1]), cassette).judge([REQ])
    assert isinstance(judge_from_spec(f"recorded:{cassette}"), RecordedJudge)
    with pytest.raises(InputError, match="unknown judge kind"):
        judge_from_spec("magic:8ball")
    with pytest.raises(InputError, match="expected KIND:ARG"):
        judge_from_spec("recorded")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(InputError, match="ANTHROPIC_API_KEY=None: the anthropic judge needs"):
        judge_from_spec("anthropic:some-model")
