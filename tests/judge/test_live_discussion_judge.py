"""A live judge (the fake server) rates a game's engagement on 1-5 and records it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_llm import FakeLLM, Reply, openai_body

from toolkit.cli import main
from toolkit.judge import JudgeRequest
from toolkit.judge.live import OpenAIJudge


@pytest.fixture
def fake_llm() -> Iterator[FakeLLM]:
    server = FakeLLM().start()
    try:
        yield server
    finally:
        server.stop()


def _rating() -> JudgeRequest:
    return JudgeRequest(
        "discussion.engagement", "engagement", "g1", "How engaging?", "[turn 1] A: hi",
        scale=(1, 5), bands=("1 (Boring): dull.", "5 (Fascinating): gripping."),
    )  # fmt: skip


def test_a_live_reply_is_read_on_the_requests_scale(fake_llm: FakeLLM) -> None:
    judge = OpenAIJudge("gpt-fake", base_url=fake_llm.openai_url, max_retries=0)
    fake_llm.scripted += [
        Reply(body=openai_body("4 It held me throughout.", 50, 6)),
        Reply(body=openai_body("7 Wonderful.", 50, 3)),
    ]
    (good,) = judge.judge([_rating()])
    (off,) = judge.judge([_rating()])
    assert (good.value, good.reasoning) == (4, "It held me throughout.")
    assert off.value is None and off.error == "score 7 is outside 1-5"
    system = fake_llm.seen[0].body["messages"][0]["content"]
    assert "1 (Boring): dull." in system and "from 1 to 5" in system


def test_discussion_records_a_live_judge_then_replays_it_with_no_call(
    fake_llm: FakeLLM, sample_runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = sample_runs / "discussions" / "game-over-budget.json"
    cassette = tmp_path / "judge.json"
    live = ["discussion", str(game), "--judge", "openai:gpt-fake", "--judge-base-url",
            fake_llm.openai_url, "--record", str(cassette), "--no-progress",
            "--format", "json"]  # fmt: skip
    fake_llm.scripted.append(Reply(body=openai_body("4 Sharp accusations.", 900, 8)))
    assert main([*live, "--judge-concurrency", "1"]) == 0
    first = json.loads(capsys.readouterr().out)
    asked = len(fake_llm.seen)
    assert asked >= 2  # the engagement rating, then the claims in batches of 10
    assert first["judge"]["usage"]["answered_live"] > 0
    engagement = next(m for m in first["games"][0]["metrics"] if m["key"] == "engagement_judge")
    assert engagement["score"] == 4  # the first call is the game's engagement rating
    replay = ["discussion", str(game), "--judge", f"recorded:{cassette}", "--format", "json"]
    assert main(replay) == 0
    again = json.loads(capsys.readouterr().out)
    assert len(fake_llm.seen) == asked  # no call
    assert again["judge"]["usage"]["answered_live"] == 0
    assert again["games"][0]["metrics"] == first["games"][0]["metrics"]


def test_the_cost_cap_leaves_the_rest_absent_and_says_so(
    fake_llm: FakeLLM, sample_runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prices = tmp_path / "prices.yaml"
    prices.write_text(
        "format: toolkit-judge-prices\nversion: 1\nmodels:\n"
        "  gpt-fake: {input: 1000000, output: 1000000}\n"
    )
    game = sample_runs / "discussions" / "game-over-budget.json"
    args = ["discussion", str(game), "--judge", "openai:gpt-fake", "--judge-base-url",
            fake_llm.openai_url, "--no-progress", "--prices", str(prices),
            "--max-cost", "0.5", "--format", "json"]  # fmt: skip
    assert main(args) == 0
    doc = json.loads(capsys.readouterr().out)
    assert fake_llm.seen == []  # even the first call would pass $0.50
    usage = doc["judge"]["usage"]
    assert usage["not_judged"] > 0 and usage["answered_live"] == 0
    judged = [m for m in doc["games"][0]["metrics"] if m.get("source") == "judge"]
    assert all(m["score"] is None and "cost cap" in m["detail"] for m in judged)
