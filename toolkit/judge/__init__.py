"""LLM judges: the protocol, recorded replay (for CI), and live API judges.

A judge answers :class:`JudgeRequest` objects (a proposition's rendered claim, the
windowed trajectory, the persona spec when asked for) with :class:`JudgeResult` objects
(an integer 0-9, or a count, and the reasoning). CI replays cassettes with
:class:`RecordedJudge`; :class:`RecordingJudge` writes them from any judge.
"""

from __future__ import annotations

from toolkit.errors import InputError
from toolkit.judge._protocol import (
    MAX_BATCH,
    MISSING_DATA_RULE,
    SCALE_BANDS,
    Judge,
    JudgeRequest,
    JudgeResult,
    build_prompt,
    parse_batch_reply,
    parse_reply,
)
from toolkit.judge.recorded import CassetteMiss, RecordedJudge, RecordingJudge


def judge_from_spec(spec: str) -> Judge:
    """Build a judge from ``recorded:PATH``, ``anthropic:MODEL`` or ``openai:MODEL``.

    Raises:
        InputError: for an unknown kind, or a live judge without an API key.
    """
    kind, _, arg = spec.partition(":")
    if not arg:
        raise InputError(
            None, "expected KIND:ARG, e.g. recorded:cassette.json", field="--judge", value=spec
        )
    if kind == "recorded":
        return RecordedJudge(arg)
    if kind in {"anthropic", "openai"}:
        from toolkit.judge.live import AnthropicJudge, OpenAIJudge

        return AnthropicJudge(arg) if kind == "anthropic" else OpenAIJudge(arg)
    raise InputError(
        None,
        "unknown judge kind; use recorded:, anthropic: or openai:",
        field="--judge",
        value=spec,
    )


__all__ = [
    "MAX_BATCH",
    "MISSING_DATA_RULE",
    "SCALE_BANDS",
    "CassetteMiss",
    "Judge",
    "JudgeRequest",
    "JudgeResult",
    "RecordedJudge",
    "RecordingJudge",
    "build_prompt",
    "judge_from_spec",
    "parse_batch_reply",
    "parse_reply",
]
