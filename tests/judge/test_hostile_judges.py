"""Judge endpoints that lie about usage, answer absurdly, or never answer.

The usage a server reports is believed only when it is a whole number between 0 and the
request's maximum (the prompt's bytes plus framing in, ``max_tokens`` out); otherwise the
call counts at that maximum, so ``--max-cost`` holds whatever the server says, and the
account says how many calls were counted so.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import SAMPLE_RUNS
from fake_llm import FakeLLM, Seen

import toolkit as tk
from toolkit.judge import Estimate
from toolkit.judge.live import AnthropicJudge, OpenAIJudge, believable_usage

FOLDER = SAMPLE_RUNS / "persona"


class LyingLLM(FakeLLM):
    """The fake server, reporting the usage it is told to instead of its own count."""

    def __init__(self, used_in: Any, used_out: Any) -> None:
        super().__init__()
        self.lie = (used_in, used_out)

    def _answer(self, seen: Seen, system: str, texts: list[str]) -> tuple[str, int, int]:
        reply, _, _ = super()._answer(seen, system, texts)
        return reply, self.lie[0], self.lie[1]


@pytest.fixture
def prices(tmp_path: Path) -> Path:
    path = tmp_path / "prices.yaml"
    path.write_text(
        "format: toolkit-judge-prices\nversion: 1\nmodels:\n"
        "  claude-fake: {input: 1000, output: 1000}\n  gpt-fake: {input: 1000, output: 1000}\n"
    )
    return path


def serve(used_in: Any, used_out: Any) -> Iterator[LyingLLM]:
    server = LyingLLM(used_in, used_out).start()
    try:
        yield server
    finally:
        server.stop()


def score(judge: Any, **kw: Any) -> tk.PersonaResult:
    chat = tk.load_chat(FOLDER / "radio-week1.jsonl")
    props = tk.load_propositions(FOLDER / "propositions")
    return tk.score_persona(chat, props, judge, progress=False, **kw)


LIES = [(-1_000_000_000, -5), (10**30, 10**30), (5, -1), (1.5, 2)]


@pytest.mark.parametrize("lie", LIES, ids=[str(lie) for lie in LIES])
@pytest.mark.parametrize("api", ["anthropic", "openai"])
def test_a_lying_usage_report_never_defeats_the_cost_cap(
    lie: tuple[Any, Any], api: str, prices: Path
) -> None:
    for server in serve(*lie):
        if api == "anthropic":
            judge: Any = AnthropicJudge("claude-fake", api_key="k", base_url=server.root,
                                        timeout=5.0)  # fmt: skip
        else:
            judge = OpenAIJudge("gpt-fake", api_key="k", base_url=server.openai_url, timeout=5.0)
        result = score(judge, prices=prices, max_cost=10.0, concurrency=2)
        usage = result.usage
        assert usage is not None
        assert usage.total.cost is not None and 0 <= usage.total.cost <= 10.0
        assert usage.total.input_tokens >= 0 and usage.total.output_tokens >= 0
        assert usage.not_judged > 0 and usage.cap_reason is not None  # the cap stopped it
        assert usage.calls == len(server.seen)
        assert usage.estimated_calls == usage.calls  # every lie counted at the maximum
        text = " ".join(" ".join(usage.lines()).split())
        assert "counted at the request's maximum" in text
        assert usage.to_dict()["estimated_calls"] == usage.calls


def test_believable_usage_is_taken_as_reported(prices: Path) -> None:
    for server in serve(7, 3):
        judge = AnthropicJudge("claude-fake", api_key="k", base_url=server.root, timeout=5.0)
        result = score(judge, prices=prices)
        usage = result.usage
        assert usage is not None and usage.estimated_calls == 0
        assert usage.total.input_tokens == 7 * usage.calls
        assert usage.total.output_tokens == 3 * usage.calls


@pytest.mark.parametrize(
    ("reported", "believed"),
    [((0, 0), True), ((10, 20), True), ((11, 1), False), ((1, 21), False), ((-1, 1), False),
     ((True, 1), False), (("3", 1), False), ((1.0, 1), False), ((None, 1), False)],
)  # fmt: skip
def test_usage_is_believed_only_as_whole_numbers_within_the_request(
    reported: tuple[object, object], believed: bool
) -> None:
    assert believable_usage(reported, Estimate(10, 20)) is believed


@pytest.mark.parametrize("api", ["anthropic", "openai"])
def test_a_deeply_nested_reply_body_fails_open_not_a_traceback(api: str) -> None:
    from fake_llm import Reply

    from toolkit.judge import JudgeRequest

    for server in serve(1, 1):
        server.scripted.append(Reply(raw=b'{"content": ' + b"[" * 200_000 + b"]" * 200_000 + b"}"))
        if api == "anthropic":
            judge: Any = AnthropicJudge("m", api_key="k", base_url=server.root, max_retries=0)
        else:
            judge = OpenAIJudge("m", api_key="k", base_url=server.openai_url, max_retries=0)
        (result,) = judge.judge([JudgeRequest("p", "adherence", "rosa", "c", "t")])
        assert (result.value, result.transient) == (None, True)
        assert result.error is not None and result.error.startswith(
            "judge unavailable: unexpected response"
        )
