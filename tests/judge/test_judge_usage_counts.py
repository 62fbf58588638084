"""The judge's account counts what happened to each proposition (issue 37).

Every reply of a live judge unparseable: no proposition was answered, all are absent
with a judge error, and the summary says so (it used to say "N answered live, 0 failed").
Through the real Anthropic SDK against the fake LLM server on 127.0.0.1.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import SAMPLE_RUNS
from fake_llm import FakeLLM, Reply, anthropic_body

from toolkit.cli import main
from toolkit.judge import JudgeResult, JudgeUsage, Tokens

FOLDER = SAMPLE_RUNS / "persona"


@pytest.fixture
def fake_llm() -> Iterator[FakeLLM]:
    server = FakeLLM().start()
    try:
        yield server
    finally:
        server.stop()


def persona_args(fake: FakeLLM, cassette: Path, *extra: str) -> list[str]:
    return [
        "persona", str(FOLDER / "radio-week1.jsonl"),
        "--propositions", str(FOLDER / "propositions"),
        "--judge", "anthropic:claude-fake", "--judge-base-url", fake.root,
        "--record", str(cassette), "--no-progress", "--gate", "none", *extra,
    ]  # fmt: skip


def test_every_reply_unparseable_is_counted_unusable_and_absent(
    fake_llm: FakeLLM, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_llm.scripted += [Reply(body=anthropic_body("I cannot say.")) for _ in range(500)]
    assert main([*persona_args(fake_llm, tmp_path / "c.json"), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    usage = doc["judge_usage"]
    asked = len(fake_llm.claims_asked())
    assert asked > 0 and usage["calls"] == len(fake_llm.seen)
    assert usage["answered_live"] == 0 and usage["replayed"] == 0
    assert usage["unusable"] == asked and usage["failed"] == 0 and usage["not_judged"] == 0
    assert usage["absent"] == asked
    dims = [d for card in doc["scorecards"] for d in card["dimensions"]]
    assert dims and all(d["status"] == "N/A" for d in dims)
    assert all(d["detail"].startswith("absent: judge error") for d in dims)


def test_the_printed_summary_names_unusable_and_absent(
    fake_llm: FakeLLM, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_llm.scripted += [Reply(body=anthropic_body("no idea")) for _ in range(500)]
    assert main(persona_args(fake_llm, tmp_path / "c.json")) == 0
    out = capsys.readouterr().out
    asked = len(fake_llm.claims_asked())
    text = " ".join(out[out.index("propositions: ") :].split())
    assert text.startswith(
        f"propositions: 0 answered live, 0 replayed from the cassette, {asked} unusable "
        f"replies, 0 failed, 0 not judged; {asked} absent"
    )


def test_usage_counts_partition_the_entries() -> None:
    zero = Tokens(0, 0, None)
    usage = JudgeUsage("j", None, None, calls=1, answered_live=2, replayed=1, failed=1,
                       not_judged=3, total=zero, unusable=4)  # fmt: skip
    assert usage.absent == 4 + 1 + 3
    assert usage.to_dict()["absent"] == 8 and usage.to_dict()["unusable"] == 4
    assert JudgeResult(None, "", error="unparseable").value is None
