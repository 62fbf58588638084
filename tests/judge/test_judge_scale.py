"""A judge request on a scale of its own (1-5): prompt, parsing, range, cassette keys."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import toolkit as tk
from toolkit.judge import (
    SCALE_BANDS,
    JudgeRequest,
    RecordedJudge,
    build_prompt,
    parse_batch_reply,
    parse_reply,
)

BANDS = ("1 (Boring): dull.", "3 (Acceptable): fine.", "5 (Fascinating): gripping.")


def _rating(**kw: object) -> JudgeRequest:
    fields: dict[str, object] = {
        "proposition_id": "discussion.engagement",
        "dimension": "engagement",
        "subject": "g1",
        "claim": "How engaging is it?",
        "trajectory": "[turn 1] A: hi",
        "scale": (1, 5),
        "bands": BANDS,
    }
    fields.update(kw)
    return JudgeRequest(**fields)  # type: ignore[arg-type]


def test_a_claim_request_hashes_as_before_the_scale_existed() -> None:
    request = JudgeRequest("p1", "adherence", "michael", "Michael is kind.", "--> Michael: hi")
    # the key as it was computed before ``scale`` and ``bands`` were fields
    old = {
        "proposition_id": "p1",
        "dimension": "adherence",
        "subject": "michael",
        "claim": "Michael is kind.",
        "trajectory": "--> Michael: hi",
        "persona": None,
        "kind": "score",
        "double_check": False,
    }
    blob = json.dumps(old, sort_keys=True, ensure_ascii=False).encode("utf-8")
    assert request.key() == hashlib.sha256(blob).hexdigest()[:32]


def test_the_scale_and_its_bands_are_part_of_the_key() -> None:
    base = _rating()
    assert base.key() != _rating(scale=None, bands=None).key()
    assert (
        base.key() != _rating(bands=(*BANDS[:2], "5 (Fascinating): I could not look away.")).key()
    )


def test_the_persona_sample_cassette_still_replays_every_request(sample_runs: Path) -> None:
    folder = sample_runs / "persona"
    judge = RecordedJudge(folder / "cassette.json")
    result = tk.score_persona(
        tk.load_chat(folder / "radio-week1.jsonl"),
        tk.load_propositions(folder / "propositions"),
        judge,
    )
    assert result.usage is not None
    assert result.usage.replayed > 0 and result.usage.answered_live == 0


def test_a_rating_prompt_shows_its_own_scale_and_asks_for_it() -> None:
    system, user = build_prompt([_rating()])
    assert all(band in system for band in BANDS)
    assert "from 1 to 5" in system
    assert not any(band in system for band in SCALE_BANDS)  # not the 0-9 claim scale
    assert user.startswith("QUESTION: How engaging is it?")
    assert "integer score 1-5 first" in user


def test_a_claim_prompt_is_unchanged() -> None:
    system, user = build_prompt([JudgeRequest("p", "d", "s", "A claim.", "T")])
    assert all(band in system for band in SCALE_BANDS)
    assert user == (
        "CLAIM: A claim.\n\nTRAJECTORY:\nT\n\n"
        "Reply with the integer score 0-9 first, then your reasoning."
    )
    _, batch = build_prompt([JudgeRequest("p", "d", "s", "A.", "T")] * 2)
    assert "the integer score 0-9, then your reasoning, e.g. `[1] 7 The agent ...`." in batch


def test_a_reply_outside_the_requests_scale_is_an_error() -> None:
    assert parse_reply("4 It held me.", scale=(1, 5)).value == 4
    for text in ("0 dull", "6 wow", "9 certainly"):
        result = parse_reply(text, scale=(1, 5))
        assert result.value is None
        assert result.error is not None and "outside 1-5" in result.error
    assert parse_reply("9 certainly").value == 9  # the 0-9 default


def test_a_batch_reply_is_range_checked_per_block() -> None:
    results = parse_batch_reply("[1] 3 fine\n[2] 7 too high", 2, "score", (1, 5))
    assert results[0].value == 3
    assert results[1].value is None and results[1].error == "score 7 is outside 1-5"
