"""Live judges through the real SDKs against a fake LLM server on 127.0.0.1.

Every test passes a dummy key and a loopback base URL: no key, no network. The fake
answers each claim with ``score_of(claim)``, computed here independently of the toolkit.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from conftest import ROOT, SAMPLE_RUNS
from fake_llm import FakeLLM, Reply, anthropic_body, openai_body, score_of

import toolkit as tk
from toolkit.cli import main
from toolkit.errors import InputError
from toolkit.judge import (
    JudgeRequest,
    JudgeResult,
    RecordedJudge,
    RecordingJudge,
    judge_from_spec,
    load_prices,
    run_batches,
)
from toolkit.judge.live import AnthropicJudge, OpenAIJudge

FOLDER = SAMPLE_RUNS / "persona"
RUN = FOLDER / "radio-week1.jsonl"
PROPS = FOLDER / "propositions"

REQ = JudgeRequest(
    proposition_id="p1",
    dimension="adherence",
    subject="rosa",
    claim="Rosa talks about bread",
    trajectory="Rosa acts: Bread!\n--> Rosa: Tomas: Coffee.",
    persona="A baker.",
)


@pytest.fixture
def fake_llm() -> Iterator[FakeLLM]:
    """A fake LLM server (both APIs) on a free port of 127.0.0.1, stopped after the test."""
    server = FakeLLM().start()
    try:
        yield server
    finally:
        server.stop()


def req(i: int) -> JudgeRequest:
    return JudgeRequest(**{**REQ.__dict__, "proposition_id": f"p{i}", "claim": f"claim {i}"})


def anthropic(fake: FakeLLM, **kw: Any) -> AnthropicJudge:
    kw.setdefault("timeout", 5.0)
    return AnthropicJudge("claude-fake", api_key="dummy", base_url=fake.root, **kw)


def openai(fake: FakeLLM, **kw: Any) -> OpenAIJudge:
    kw.setdefault("timeout", 5.0)
    return OpenAIJudge("gpt-fake", api_key="dummy", base_url=fake.openai_url, **kw)


def price_file(tmp_path: Path, model: str, inp: float, out: float) -> Path:
    path = tmp_path / "prices.yaml"
    path.write_text(
        "format: toolkit-judge-prices\nversion: 1\n"
        f"models:\n  {model}: {{input: {inp}, output: {out}}}\n"
    )
    return path


def score(judge: Any, **kw: Any) -> tk.PersonaResult:
    chat = tk.load_chat(RUN)
    props = tk.load_propositions(PROPS)
    return tk.score_persona(chat, props, judge, progress=False, **kw)


# ---------------------------------------------------------------------------
# The two wire formats
# ---------------------------------------------------------------------------


def test_anthropic_judge_speaks_the_messages_api(fake_llm: FakeLLM) -> None:
    results = anthropic(fake_llm).judge([REQ])
    assert [r.value for r in results] == [score_of(REQ.claim)]
    seen = fake_llm.seen[0]
    assert seen.path == "/v1/messages"
    assert "dummy" in (seen.headers.get("x-api-key"), seen.headers.get("authorization", "")[7:])
    assert seen.body["model"] == "claude-fake"
    assert seen.body["system"] == tk.judge.build_prompt([REQ])[0]
    assert seen.body["messages"] == [{"role": "user", "content": tk.judge.build_prompt([REQ])[1]}]
    assert (results[0].input_tokens, results[0].output_tokens) == seen.usage


def test_openai_judge_speaks_chat_completions_and_splits_batch_usage(fake_llm: FakeLLM) -> None:
    batch = [req(1), req(2), req(3)]
    results = openai(fake_llm).judge(batch)
    assert [r.value for r in results] == [score_of(r.claim) for r in batch]
    seen = fake_llm.seen[0]
    assert seen.path == "/v1/chat/completions"
    assert seen.headers["authorization"] == "Bearer dummy"
    assert seen.body["messages"][0]["role"] == "system"
    assert seen.claims == ["claim 1", "claim 2", "claim 3"]
    # the call's usage split evenly over the batch, summing to what the server reported
    assert seen.usage is not None
    assert sum(r.input_tokens for r in results) == seen.usage[0]
    assert sum(r.output_tokens for r in results) == seen.usage[1]
    assert max(r.input_tokens for r in results) - min(r.input_tokens for r in results) <= 1


def test_double_check_sends_the_reply_back_and_counts_both_calls(fake_llm: FakeLLM) -> None:
    fake_llm.scripted += [
        Reply(body=anthropic_body("9 sure", 100, 3)),
        Reply(body=anthropic_body("6 on reflection, less", 120, 5)),
    ]
    (result,) = anthropic(fake_llm).judge([REQ], double_check=True)
    assert (result.value, result.reasoning) == (6, "on reflection, less")
    assert (result.input_tokens, result.output_tokens) == (220, 8)
    turns = fake_llm.seen[1].body["messages"]
    assert [t["role"] for t in turns] == ["user", "assistant", "user"]
    assert turns[1]["content"] == "9 sure"
    assert turns[2]["content"].startswith("Are you sure?")


def test_openai_compatible_server_needs_no_key_with_a_base_url(
    fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("TOOLKIT_JUDGE_BASE_URL", fake_llm.openai_url)
    judge = judge_from_spec("openai:local-llama")
    assert judge.judge([REQ])[0].value == score_of(REQ.claim)
    assert fake_llm.seen[0].body["model"] == "local-llama"
    monkeypatch.delenv("TOOLKIT_JUDGE_BASE_URL")
    with pytest.raises(InputError, match="OPENAI_API_KEY=None: the openai judge needs an API key"):
        judge_from_spec("openai:gpt-fake")


# ---------------------------------------------------------------------------
# Failures: retried by the SDK, then fail open (absent, transient)
# ---------------------------------------------------------------------------


def test_429_is_retried_after_the_servers_retry_after(fake_llm: FakeLLM) -> None:
    # 0.7 s is longer than the SDK's own first backoff (at most 0.5 s): waiting that long
    # shows the retry-after header was honoured.
    fake_llm.scripted.append(Reply(429, {"error": "slow down"}, headers={"retry-after": "0.7"}))
    (result,) = anthropic(fake_llm, max_retries=2).judge([REQ])
    assert result.value == score_of(REQ.claim)
    assert len(fake_llm.seen) == 2
    assert fake_llm.seen[1].at - fake_llm.seen[0].at >= 0.7


def test_500_is_retried_then_fails_open_as_transient(fake_llm: FakeLLM) -> None:
    fast = {"retry-after-ms": "5"}
    fake_llm.scripted += [Reply(500, {"error": "boom"}, headers=fast) for _ in range(3)]
    results = openai(fake_llm, max_retries=2).judge([req(1), req(2)])
    assert len(fake_llm.seen) == 3  # the first try and two retries
    assert all(r.value is None and r.transient for r in results)
    assert results[0].error == "judge unavailable: HTTP 500"
    # the next call works again
    assert openai(fake_llm).judge([REQ])[0].value == score_of(REQ.claim)


def test_client_error_is_not_retried(fake_llm: FakeLLM) -> None:
    fake_llm.scripted.append(Reply(401, {"error": "bad key"}))
    (result,) = anthropic(fake_llm, max_retries=3).judge([REQ])
    assert (result.value, result.error, result.transient) == (
        None,
        "judge unavailable: HTTP 401",
        True,
    )
    assert len(fake_llm.seen) == 1


def test_timeout_fails_open_after_the_retries(fake_llm: FakeLLM) -> None:
    fake_llm.scripted += [Reply(body=anthropic_body("7 late"), delay=1.0) for _ in range(2)]
    (result,) = anthropic(fake_llm, timeout=0.2, max_retries=1).judge([REQ])
    assert result.value is None  # absent: never a 9 or a 0
    assert result.error == (
        "judge unavailable: no answer in time: deadlines read 0.2s (--judge-timeout), "
        "connect 0.2s (TOOLKIT_CONNECT_TIMEOUT), 1 retries (--judge-retries)"
    )
    assert result.transient
    assert len(fake_llm.seen) == 2


def test_unreachable_server_fails_open() -> None:
    judge = OpenAIJudge("m", api_key="k", base_url="http://127.0.0.1:9/v1", max_retries=0)
    (result,) = judge.judge([REQ])
    assert result.value is None and result.transient
    assert result.error is not None and result.error.startswith("judge unavailable: connection")


@pytest.mark.parametrize(
    "reply",
    [
        Reply(raw=b"<html>gateway</html>"),
        Reply(body={"id": "x", "choices": []}),
        Reply(body={"choices": [{"message": {"role": "assistant", "content": None}}]}),
    ],
    ids=["not-json", "no-choices", "null-content"],
)
def test_malformed_reply_bodies_fail_open(fake_llm: FakeLLM, reply: Reply) -> None:
    fake_llm.scripted.append(reply)
    (result,) = openai(fake_llm, max_retries=0).judge([REQ])
    assert result.value is None and result.transient
    assert result.error is not None and result.error.startswith("judge unavailable: unexpected")


def test_reply_text_without_a_score_is_an_error_keeping_the_raw_text(fake_llm: FakeLLM) -> None:
    fake_llm.scripted.append(Reply(body=openai_body("I would rather not say.")))
    (result,) = openai(fake_llm).judge([REQ])
    assert (result.value, result.error, result.raw) == (
        None,
        "reply does not start with an integer",
        "I would rather not say.",
    )
    assert not result.transient  # a real answer: recorded, not asked again
    assert result.input_tokens == 10


def test_failures_reach_the_scores_as_absent_with_the_reason(fake_llm: FakeLLM) -> None:
    fake_llm.scripted += [Reply(503, {"error": "down"}, headers={"retry-after-ms": "1"})] * 1
    result = score(anthropic(fake_llm, max_retries=0), concurrency=1)
    first = fake_llm.seen[0].claims
    failed = result.scores.filter(pl.col("absent_reason").str.starts_with("judge error"))
    assert failed["absent_reason"].unique().to_list() == [
        "judge error: judge unavailable: HTTP 503"
    ]
    assert sorted(failed["claim"].to_list()) == sorted(first)
    assert failed["score"].null_count() == failed.height
    assert result.usage is not None and result.usage.failed == len(first)


# ---------------------------------------------------------------------------
# Concurrency
# ---------------------------------------------------------------------------


def test_concurrent_calls_stay_within_the_bound_and_give_sequential_results(
    fake_llm: FakeLLM,
) -> None:
    fake_llm.delay = 0.25  # long enough for three calls to overlap on a loaded machine
    sequential = score(anthropic(fake_llm), concurrency=1)
    assert fake_llm.max_in_flight == 1
    calls = len(fake_llm.seen)
    assert calls >= 6
    fake_llm.max_in_flight = 0
    concurrent = score(anthropic(fake_llm), concurrency=3)
    assert fake_llm.max_in_flight == 3
    assert len(fake_llm.seen) == 2 * calls
    assert concurrent.scores.equals(sequential.scores)
    assert concurrent.dimensions.equals(sequential.dimensions)
    # and each judged row holds the fake's answer to its own claim
    judged = concurrent.scores.filter(pl.col("source") == "judge")
    assert judged.height > 0
    assert judged["raw"].to_list() == [score_of(c) for c in judged["claim"].to_list()]


class SlowFirstJudge:
    """Earlier batches take longer, so answers arrive in reverse order."""

    name = "slow-first"

    def judge(self, requests: Sequence[JudgeRequest], *, double_check: bool = False) -> Any:
        n = int(requests[0].proposition_id[1:])
        time.sleep(0.02 * (10 - n))
        return [JudgeResult(int(r.proposition_id[1:]) % 10, r.claim) for r in requests]


def test_run_batches_returns_results_in_batch_order() -> None:
    batches = [[req(i)] for i in range(10)]
    outcome = run_batches(SlowFirstJudge(), batches, concurrency=4, progress=False)
    assert [b[0].value for b in outcome.results] == list(range(10))
    with pytest.raises(InputError, match="--judge-concurrency=0"):
        run_batches(SlowFirstJudge(), batches, concurrency=0)


def test_progress_bar_over_calls_when_asked_never_for_a_replay(
    capsys: pytest.CaptureFixture[str],
) -> None:
    batches = [[req(i)] for i in range(3)]
    run_batches(SlowFirstJudge(), batches, progress=True)
    assert "judge calls" in capsys.readouterr().err
    run_batches(SlowFirstJudge(), batches)  # auto: a judge without `estimate` is a replay
    assert capsys.readouterr().err == ""


# ---------------------------------------------------------------------------
# Accounting and the cost cap
# ---------------------------------------------------------------------------


def test_usage_totals_match_the_server_and_split_by_dimension_and_agent(
    fake_llm: FakeLLM, tmp_path: Path
) -> None:
    prices = price_file(tmp_path, "claude-fake", 3.0, 15.0)
    result = score(anthropic(fake_llm), prices=prices)
    usage = result.usage
    assert usage is not None
    sent_in, sent_out = fake_llm.usage_reported()
    assert (usage.total.input_tokens, usage.total.output_tokens) == (sent_in, sent_out)
    assert usage.total.cost == pytest.approx((sent_in * 3.0 + sent_out * 15.0) / 1e6)
    assert usage.calls == len(fake_llm.seen)
    assert usage.answered_live == len(fake_llm.claims_asked())
    for part in (usage.by_dimension, usage.by_agent):
        assert sum(t.input_tokens for t in part.values()) == sent_in
        assert sum(t.output_tokens for t in part.values()) == sent_out
    assert set(usage.by_agent) == {"mags", "otis", "priya", "lenny", "environment"}
    assert repr(usage) == (
        f"JudgeUsage(anthropic:claude-fake: {usage.calls} call(s), {sent_in:,} tokens in, "
        f"{sent_out:,} out)"
    )
    html = usage._repr_html_()
    num = '<td style="text-align:right">'
    assert f"<tr><td>total</td>{num}{sent_in:,}</td>{num}{sent_out:,}</td>" in html
    assert "<td>agent lenny</td>" in html and "<td>dimension fluency</td>" in html
    assert set(usage.by_dimension) == set(result.dimensions["dimension"].to_list())


def test_builtin_prices_match_dated_models_and_user_files_override(tmp_path: Path) -> None:
    table = load_prices()
    assert table.price_for("claude-3-5-haiku-20241022") == table.price_for("claude-3-5-haiku")
    assert table.price_for("gpt-4o-mini") != table.price_for("gpt-4o")
    assert table.price_for("gpt-4o-mini-2024-07-18") == table.price_for("gpt-4o-mini")
    assert table.price_for("nobody-knows") is None
    mine = load_prices(price_file(tmp_path, "gpt-4o", 1.0, 2.0))
    price = mine.price_for("gpt-4o")
    assert price is not None and (price.input, price.output) == (1.0, 2.0)
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "format: toolkit-judge-prices\nversion: 1\nmodels:\n  m: {input: -1, output: 2}\n"
    )
    with pytest.raises(InputError, match=r"bad.yaml: models.m.input=-1: a price is a finite"):
        load_prices(bad)


def test_cost_cap_stops_before_the_budget_and_reports_what_was_not_judged(
    fake_llm: FakeLLM, tmp_path: Path
) -> None:
    # $1000 per million tokens each way: one call's conservative estimate (prompt bytes
    # + 1024 output tokens) is roughly $2-6 and the whole run costs about $14, so a $10
    # cap stops it early.
    prices = price_file(tmp_path, "claude-fake", 1000.0, 1000.0)
    result = score(anthropic(fake_llm), prices=prices, max_cost=10.0, concurrency=2)
    usage = result.usage
    assert usage is not None and usage.cap_reason is not None
    assert usage.total.cost is not None and usage.total.cost <= 10.0
    assert 0 < usage.calls == len(fake_llm.seen)
    assert usage.not_judged > 0
    skipped = result.scores.filter(pl.col("absent_reason").str.starts_with("not judged"))
    assert skipped.height == usage.not_judged
    assert skipped["absent_reason"][0].startswith("not judged: the cost cap of $10.0000 would be")
    judged = result.scores.filter(pl.col("source") == "judge")
    assert judged.height == usage.answered_live == len(fake_llm.claims_asked())
    assert any(
        w.startswith(f"{usage.not_judged} proposition(s) not judged") for w in result.warnings
    )


def test_cost_cap_needs_a_price_for_the_model_and_a_sane_number(
    fake_llm: FakeLLM, tmp_path: Path
) -> None:
    with pytest.raises(InputError, match="model='claude-fake': no price for this judge model"):
        score(anthropic(fake_llm), max_cost=1.0)
    prices = price_file(tmp_path, "claude-fake", 1.0, 1.0)
    with pytest.raises(InputError, match=r"--max-cost=-1\.0: the cost cap is a number"):
        score(anthropic(fake_llm), max_cost=-1.0, prices=prices)
    assert fake_llm.seen == []


# ---------------------------------------------------------------------------
# Resume
# ---------------------------------------------------------------------------


def test_recording_judge_asks_only_what_the_cassette_lacks(
    fake_llm: FakeLLM, tmp_path: Path
) -> None:
    cassette = tmp_path / "c.json"
    RecordingJudge(anthropic(fake_llm), cassette).judge([req(1), req(2)])
    assert len(fake_llm.seen) == 1
    fake_llm.scripted.append(Reply(503, {}, headers={"retry-after-ms": "1"}))
    judge = RecordingJudge(anthropic(fake_llm, max_retries=0), cassette)
    results = judge.judge([req(1), req(3), req(2), req(4)])
    assert fake_llm.seen[1].claims == ["claim 3", "claim 4"]
    assert [r.value for r in results] == [score_of("claim 1"), None, score_of("claim 2"), None]
    # the failed ones were not recorded: the next run asks for them again
    assert len(RecordedJudge(cassette)) == 2
    again = RecordingJudge(anthropic(fake_llm), cassette).judge([req(3), req(1), req(4)])
    assert fake_llm.seen[2].claims == ["claim 3", "claim 4"]
    assert [r.value for r in again] == [score_of(f"claim {i}") for i in (3, 1, 4)]
    assert len(RecordedJudge(cassette)) == 4


class EchoJudge:
    """Answers each claim with its number, after a short pause (thread-safe)."""

    name = "echo"

    def judge(self, requests: Sequence[JudgeRequest], *, double_check: bool = False) -> Any:
        time.sleep(0.001)
        return [JudgeResult(int(r.claim.split()[1]) % 10, "") for r in requests]


def test_recording_from_many_threads_loses_no_answer(tmp_path: Path) -> None:
    cassette = tmp_path / "c.json"
    batches = [[req(i), req(i + 1000)] for i in range(200)]
    outcome = run_batches(
        RecordingJudge(EchoJudge(), cassette), batches, concurrency=8, progress=False
    )
    assert [b[0].value for b in outcome.results] == [i % 10 for i in range(200)]
    replay = RecordedJudge(cassette)
    assert len(replay) == 400
    assert [r.value for r in replay.judge([req(7), req(1199)])] == [7, 9]


def persona_cli(fake: FakeLLM, cassette: Path, *extra: str) -> list[str]:
    return [
        "persona",
        str(RUN),
        "--propositions",
        str(PROPS),
        "--judge",
        "anthropic:claude-fake",
        "--judge-base-url",
        fake.root,
        "--record",
        str(cassette),
        "--no-progress",
        *extra,
    ]


def test_resume_after_a_kill_asks_only_the_missing_calls(fake_llm: FakeLLM, tmp_path: Path) -> None:
    # the uninterrupted run, for reference
    whole = tmp_path / "whole.json"
    assert main([*persona_cli(fake_llm, whole), "--format", "json"]) == 0
    every = sorted(fake_llm.claims_asked())
    fake_llm.seen.clear()

    # a run killed half-way
    fake_llm.delay = 0.3
    cassette = tmp_path / "c.json"
    code = (
        "import sys; from toolkit.cli import main; "
        f"sys.exit(main({persona_cli(fake_llm, cassette, '--judge-concurrency', '2')!r}))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ANTHROPIC_API_KEY": "dummy"}
    proc = subprocess.Popen([sys.executable, "-c", code], env=env)
    try:
        # generous: starting Python and the toolkit is slow on a loaded machine
        deadline = time.monotonic() + 300
        while not (cassette.exists() and len(RecordedJudge(cassette)) >= 4):
            assert proc.poll() is None, "the run ended before it could be killed"
            assert time.monotonic() < deadline, "the run recorded nothing in 300 s"
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    recorded = len(RecordedJudge(cassette))
    recorded_claims = _recorded_claims(cassette)
    asked_before = len(fake_llm.claims_asked())
    assert 4 <= recorded < len(every)
    assert asked_before < len(every)

    # the rerun asks exactly for what the cassette lacks
    fake_llm.seen.clear()
    fake_llm.delay = 0.0
    assert main([*persona_cli(fake_llm, cassette), "--format", "json"]) == 0
    assert len(fake_llm.claims_asked()) == len(every) - recorded
    assert sorted(fake_llm.claims_asked() + recorded_claims) == every
    assert len(RecordedJudge(cassette)) == len(every)
    # and replaying either cassette gives the same scores
    chat, props = tk.load_chat(RUN), tk.load_propositions(PROPS)
    a = tk.score_persona(chat, props, RecordedJudge(cassette), progress=False)
    b = tk.score_persona(chat, props, RecordedJudge(whole), progress=False)
    assert a.scores.equals(b.scores)


class Capture:
    """A judge that only notes the requests it is asked (to name a cassette's keys)."""

    name = "capture"

    def __init__(self) -> None:
        self.requests: list[JudgeRequest] = []

    def judge(self, requests: Sequence[JudgeRequest], *, double_check: bool = False) -> Any:
        self.requests += requests
        return [JudgeResult(0, "") for _ in requests]


def _recorded_claims(cassette: Path) -> list[str]:
    """The claims a partial cassette answers, found through every request of the run."""
    capture = Capture()
    score(capture)
    claim_of = {r.key(): r.claim for r in capture.requests}
    keys = json.loads(cassette.read_text())["recordings"]
    return [claim_of[key] for key in keys]


# ---------------------------------------------------------------------------
# Optional SDKs and the CLI
# ---------------------------------------------------------------------------


def test_missing_sdk_is_one_line_naming_the_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "anthropic", None)  # `import anthropic` now fails
    monkeypatch.setenv("ANTHROPIC_API_KEY", "dummy")
    with pytest.raises(InputError, match=r"pip install 'toolkit\[anthropic\]'"):
        judge_from_spec("anthropic:claude-x")
    code = main(["persona", str(RUN), "--propositions", str(PROPS), "--judge", "anthropic:x"])
    _, err = capsys.readouterr()
    assert code == 2
    assert err == (
        "toolkit persona: error: --judge='anthropic:x': the anthropic judge needs the "
        "'anthropic' package: pip install 'toolkit[anthropic]'\n"
    )


def test_a_recorded_run_imports_neither_sdk(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # With both SDKs unimportable, any import of either would fail the run.
    monkeypatch.setitem(sys.modules, "anthropic", None)
    monkeypatch.setitem(sys.modules, "openai", None)
    args = ["persona", str(RUN), "--propositions", str(PROPS), "--format", "json"]
    assert main([*args, "--judge", f"recorded:{FOLDER / 'cassette.json'}"]) == 0
    usage = json.loads(capsys.readouterr().out)["judge_usage"]
    assert (usage["calls"], usage["model"], usage["answered_live"]) == (0, None, 0)
    assert usage["replayed"] > 0


def test_record_needs_a_live_judge(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    args = ["persona", str(RUN), "--propositions", str(PROPS)]
    code = main([*args, "--judge", "recorded:x.json", "--record", str(tmp_path / "c.json")])
    assert code == 2
    assert "--record needs a live judge" in capsys.readouterr().err


def test_cli_prints_the_account_and_json_carries_it(
    fake_llm: FakeLLM, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prices = price_file(tmp_path, "claude-fake", 3.0, 15.0)
    cassette = tmp_path / "c.json"
    args = [*persona_cli(fake_llm, cassette), "--prices", str(prices)]
    assert main(args) == 0
    out = capsys.readouterr().out
    sent_in, sent_out = fake_llm.usage_reported()
    calls, asked = len(fake_llm.seen), len(fake_llm.claims_asked())
    cost = (sent_in * 3 + sent_out * 15) / 1e6
    account = out[out.index("judge recording:anthropic:claude-fake: ") :].splitlines()
    assert account[0] == f"judge recording:anthropic:claude-fake: {calls} call(s)"
    text = " ".join(" ".join(account[1:]).split())  # the lines are wrapped at 80
    assert (
        f"propositions: {asked} answered live, 0 replayed from the cassette, 0 unusable "
        "replies, 0 failed, 0 not judged; 0 absent tokens: "
    ) in text
    assert (
        f"tokens: {sent_in:,} in, {sent_out:,} out; est. cost ${cost:.4f} "
        "($3/$15 per M tokens in/out) tokens by agent: mags "
    ) in text
    assert max(len(line) for line in account) <= 80
    # the rerun replays everything from the cassette: no call, no cost
    assert main([*args, "--format", "json"]) == 0
    usage = json.loads(capsys.readouterr().out)["judge_usage"]
    assert len(fake_llm.seen) == calls
    assert (usage["calls"], usage["replayed"], usage["total"]["cost_usd"]) == (0, asked, 0.0)


def test_cli_cost_cap_names_what_was_not_judged(
    fake_llm: FakeLLM, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prices = price_file(tmp_path, "claude-fake", 1000.0, 1000.0)
    cassette = tmp_path / "c.json"
    args = [*persona_cli(fake_llm, cassette), "--prices", str(prices), "--max-cost", "10"]
    assert main(args) == 0
    out = capsys.readouterr().out
    cap = " ".join(out[out.index("  cost cap reached: ") :].split())
    assert cap.startswith("cost cap reached: ")
    assert "proposition(s) not judged: the cost cap of $10.0000 would be exceeded" in cap
