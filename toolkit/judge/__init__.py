"""LLM judges: the protocol, recorded replay (for CI), and live API judges.

A judge answers :class:`JudgeRequest` objects (a proposition's rendered claim, the
windowed trajectory, the persona spec when asked for) with :class:`JudgeResult` objects
(an integer 0-9, or a count, and the reasoning). CI replays cassettes with
:class:`RecordedJudge`; :class:`RecordingJudge` writes them from any judge and resumes
from what they hold. Live judges (``anthropic:MODEL``, ``openai:MODEL``) use the vendors'
SDKs, imported only when one is built; :func:`run_batches` runs calls concurrently
under a cost cap and :class:`JudgeUsage` accounts for their tokens and cost.
"""

from __future__ import annotations

import os
from pathlib import Path

from toolkit.errors import InputError
from toolkit.io.network import JUDGE_TIMEOUT
from toolkit.judge._protocol import (
    EVIDENCE_HEADING,
    MAX_BATCH,
    MISSING_DATA_RULE,
    SCALE_BANDS,
    Estimate,
    Judge,
    JudgeRequest,
    JudgeResult,
    build_prompt,
    judged_text,
    parse_batch_reply,
    parse_reply,
)
from toolkit.judge.calls import (
    DEFAULT_CONCURRENCY,
    BatchOutcome,
    Budget,
    JudgeUsage,
    Tokens,
    budget_for,
    judge_usage,
    run_batches,
)
from toolkit.judge.live import AnthropicJudge, OpenAIJudge
from toolkit.judge.prices import Price, PriceTable, load_prices
from toolkit.judge.recorded import CassetteMiss, RecordedJudge, RecordingJudge
from toolkit.judge.stored import StoredJudge

#: The environment variable naming a base URL for live judges (``--judge-base-url``).
BASE_URL_ENV = "TOOLKIT_JUDGE_BASE_URL"


def judge_from_spec(
    spec: str,
    *,
    base_url: str | None = None,
    record: str | Path | None = None,
    timeout: float = JUDGE_TIMEOUT,
    max_retries: int = 2,
) -> Judge:
    """Build a judge from ``recorded:PATH``, ``anthropic:MODEL`` or ``openai:MODEL``.

    Args:
        spec: the judge, ``KIND:ARG``.
        base_url: a live judge's server (default ``$TOOLKIT_JUDGE_BASE_URL``, else the
            vendor's); for ``openai`` it includes the API prefix (``http://host:8000/v1``).
        record: a cassette a live judge records into and resumes from (see
            :class:`RecordingJudge`).
        timeout: seconds a live call waits for its answer before the SDK retries it
            (the network policy of :mod:`toolkit.io.network`).
        max_retries: the SDK's retries on timeouts, connection errors, 429 and 5xx.

    Raises:
        InputError: for an unknown kind, a live judge without an API key or without its
            SDK (naming the extra to install), ``record`` with a recorded judge, a
            timeout or retry count out of range.
    """
    if not 0 < timeout <= 3600:  # also refuses NaN
        raise InputError(None, "a number of seconds above 0 and at most 3600",
                         field="--judge-timeout", value=timeout)  # fmt: skip
    if not 0 <= max_retries <= 10:
        raise InputError(None, "a whole number of retries from 0 to 10",
                         field="--judge-retries", value=max_retries)  # fmt: skip
    kind, _, arg = spec.partition(":")
    if kind == "stored":
        raise InputError(
            None,
            "a stored judge reads the scores the-office stored in its database: give a "
            "postgresql://…/DB run (toolkit persona postgresql://…/DB --channel NAME)",
            field="--judge",
            value=spec,
        )
    if not arg:
        raise InputError(
            None, "expected KIND:ARG, e.g. recorded:cassette.json", field="--judge", value=spec
        )
    if kind == "recorded":
        if record is not None:
            raise InputError(
                None,
                "--record needs a live judge (anthropic:MODEL or openai:MODEL)",
                field="--judge",
                value=spec,
            )
        return RecordedJudge(arg)
    if kind in {"anthropic", "openai"}:
        url = base_url or os.environ.get(BASE_URL_ENV) or None
        cls = AnthropicJudge if kind == "anthropic" else OpenAIJudge
        live: Judge = cls(arg, base_url=url, timeout=timeout, max_retries=max_retries)
        return RecordingJudge(live, record) if record is not None else live
    raise InputError(
        None,
        "unknown judge kind; use recorded:, anthropic: or openai:",
        field="--judge",
        value=spec,
    )


__all__ = [
    "BASE_URL_ENV",
    "DEFAULT_CONCURRENCY",
    "EVIDENCE_HEADING",
    "MAX_BATCH",
    "MISSING_DATA_RULE",
    "SCALE_BANDS",
    "BatchOutcome",
    "Budget",
    "CassetteMiss",
    "Estimate",
    "Judge",
    "JudgeRequest",
    "JudgeResult",
    "JudgeUsage",
    "Price",
    "PriceTable",
    "RecordedJudge",
    "RecordingJudge",
    "StoredJudge",
    "Tokens",
    "budget_for",
    "build_prompt",
    "judge_from_spec",
    "judge_usage",
    "judged_text",
    "load_prices",
    "parse_batch_reply",
    "parse_reply",
    "run_batches",
]
