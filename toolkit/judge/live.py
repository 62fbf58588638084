"""Live judges through the vendors' maintained SDKs (``anthropic``, ``openai``).

The SDKs are optional extras (``pip install 'toolkit[anthropic]'`` / ``'toolkit[openai]'``)
imported only when a live judge is built, never by ``import toolkit`` or a recorded run.
They time calls out, retry timeouts, connection errors, 429 and 5xx with backoff
(honouring the server's ``retry-after``) and report token usage. When a call still fails
the judge *fails open*: each proposition of the batch gets no value (absent, with the
error), never a 9 or a 0, and the result is ``transient`` (not recorded; a resumed run
asks again). A reply that does not start with an integer 0-9 is an error result keeping
the raw text. ``OpenAIJudge`` with a ``base_url`` reaches any OpenAI-compatible server
(Azure OpenAI, vLLM, Ollama, gateways). CI never uses these: it replays a cassette with
:class:`toolkit.judge.RecordedJudge`.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Sequence
from dataclasses import replace
from types import ModuleType
from typing import Any

from toolkit.errors import InputError
from toolkit.io.network import JUDGE_TIMEOUT, deadlines, judge_timeout
from toolkit.judge._protocol import (
    DOUBLE_CHECK_PROMPT,
    Estimate,
    JudgeRequest,
    JudgeResult,
    build_prompt,
    parse_batch_reply,
)

#: Tokens added per message for role markers and framing when estimating a call.
_MESSAGE_OVERHEAD = 16


class _Unavailable(Exception):
    """The call gave no answer (after the SDK's retries)."""


def split_evenly(total: int, parts: int) -> list[int]:
    """``total`` split into ``parts`` integers that sum to it (remainder to the first)."""
    base, extra = divmod(total, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


def believable_usage(reported: tuple[object, object], bound: Estimate) -> bool:
    """Whether a server's token counts can be believed: whole numbers (not booleans)
    between 0 and the request's maximum (``bound``: the prompt's bytes plus framing in,
    ``max_tokens`` out). A negative count would lower the spend a cost cap checks; an
    absurd one is no count at all."""
    limits = (bound.input_tokens, bound.output_tokens)
    return all(
        isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= limit
        for n, limit in zip(reported, limits, strict=True)
    )


def _import_sdk(module: str, model: str) -> ModuleType:
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise InputError(
            None,
            f"the {module} judge needs the {module!r} package: pip install 'toolkit[{module}]'",
            field="--judge",
            value=f"{module}:{model}",
        ) from exc


class _SdkJudge:
    """Shared machinery: prompt, double-check turn, usage shares, fail-open."""

    provider = ""
    key_env = ""

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = JUDGE_TIMEOUT,
        max_retries: int = 2,
        max_tokens: int = 1024,
    ) -> None:
        self._sdk = _import_sdk(self.provider, model)
        key = api_key if api_key is not None else os.environ.get(self.key_env)
        if not key and base_url is None:
            raise InputError(
                None, f"the {self.provider} judge needs an API key", field=self.key_env, value=None
            )
        self.model = model
        self.base_url = base_url
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_tokens = max_tokens
        self.name = f"{self.provider}:{model}"
        # A self-hosted OpenAI-compatible server often needs no key; the SDK wants one.
        self._client = self._make_client(key or "unused")

    # -- provider specifics -------------------------------------------------
    def _make_client(self, key: str) -> Any:
        raise NotImplementedError

    def _complete(self, system: str, turns: list[dict[str, str]]) -> tuple[str, Any]:
        """The reply text and the usage object (``None`` when the server sent none)."""
        raise NotImplementedError

    def _tokens(self, usage: Any) -> tuple[object, object] | None:
        """The input and output counts the server reported, as sent (``None``: no usage)."""
        raise NotImplementedError

    # -- accounting ---------------------------------------------------------
    def _estimate_call(self, system: str, turns: list[dict[str, str]]) -> Estimate:
        size = len(system.encode("utf-8")) + _MESSAGE_OVERHEAD
        size += sum(len(t["content"].encode("utf-8")) + _MESSAGE_OVERHEAD for t in turns)
        return Estimate(size, self.max_tokens)

    def estimate(self, requests: Sequence[JudgeRequest], *, double_check: bool = False) -> Estimate:
        """An upper bound on the tokens :meth:`judge` will use for ``requests``.

        Input tokens are bounded by the prompt's UTF-8 bytes (a byte-level BPE token
        holds at least one byte) plus a framing allowance per message; output tokens by
        ``max_tokens`` per call.
        """
        system, user = build_prompt(requests)
        first = self._estimate_call(system, [{"role": "user", "content": user}])
        if not double_check:
            return first
        # The second call resends the prompt, the first reply and the revision request.
        again = first.input_tokens + first.output_tokens
        again += len(DOUBLE_CHECK_PROMPT.encode("utf-8")) + 2 * _MESSAGE_OVERHEAD
        return Estimate(first.input_tokens + again, 2 * first.output_tokens)

    # -- transport ----------------------------------------------------------
    def _call(self, system: str, turns: list[dict[str, str]]) -> tuple[str, int, int, bool]:
        sdk = self._sdk
        try:
            text, usage = self._complete(system, turns)
        except sdk.APITimeoutError as exc:
            raise _Unavailable(
                f"no answer in time: deadlines read {self.timeout:g}s (--judge-timeout), "
                f"connect {min(self.timeout, deadlines().connect):g}s "
                f"(TOOLKIT_CONNECT_TIMEOUT), {self.max_retries} retries (--judge-retries)"
            ) from exc
        except sdk.APIConnectionError as exc:
            cause = exc.__cause__ or exc
            raise _Unavailable(f"connection failed ({cause})") from exc
        except sdk.APIStatusError as exc:
            raise _Unavailable(f"HTTP {exc.status_code}") from exc
        except (sdk.APIError, ValueError, RecursionError) as exc:  # a deeply nested body
            raise _Unavailable(f"unexpected response ({exc.__class__.__name__})") from exc
        bound = self._estimate_call(system, turns)
        reported = self._tokens(usage)
        if reported is not None and believable_usage(reported, bound):
            return text, int(reported[0]), int(reported[1]), False  # type: ignore[call-overload]
        # No usage, or none to believe (negative, not whole, beyond the request's maximum):
        # the call counts at that maximum, so a cost cap holds whatever the server says.
        return text, bound.input_tokens, bound.output_tokens, True

    def judge(
        self, requests: Sequence[JudgeRequest], *, double_check: bool = False
    ) -> list[JudgeResult]:
        """Ask the API about ``requests`` (one call, two with ``double_check``)."""
        if not requests:
            return []
        n = len(requests)
        kind = requests[0].kind
        system, user = build_prompt(requests)
        turns = [{"role": "user", "content": user}]
        spent_in = spent_out = 0
        estimated = False
        try:
            reply, used_in, used_out, estimated = self._call(system, turns)
            spent_in, spent_out = used_in, used_out
            if double_check:
                turns += [
                    {"role": "assistant", "content": reply},
                    {"role": "user", "content": DOUBLE_CHECK_PROMPT},
                ]
                reply, used_in, used_out, again = self._call(system, turns)
                spent_in, spent_out = spent_in + used_in, spent_out + used_out
                estimated = estimated or again
        except _Unavailable as exc:
            results = [
                JudgeResult(None, "", error=f"judge unavailable: {exc}", transient=True)
                for _ in requests
            ]
        else:
            results = parse_batch_reply(reply, n, kind, requests[0].scale)
        shares = zip(split_evenly(spent_in, n), split_evenly(spent_out, n), strict=True)
        return [
            replace(r, input_tokens=i, output_tokens=o, usage_estimated=estimated)
            for r, (i, o) in zip(results, shares, strict=True)
        ]


class AnthropicJudge(_SdkJudge):
    """A judge on the Anthropic Messages API (key in ``ANTHROPIC_API_KEY``).

    ``base_url`` is the server root (the SDK adds ``/v1/messages``). No temperature is
    sent: the SDK this project is tested with (2.x) has no such parameter, so the
    model's default sampling applies.
    """

    provider = "anthropic"
    key_env = "ANTHROPIC_API_KEY"

    def _make_client(self, key: str) -> Any:
        return self._sdk.Anthropic(
            api_key=key,
            base_url=self.base_url,
            timeout=judge_timeout(self.timeout, self._sdk.Timeout),
            max_retries=self.max_retries,
        )

    def _complete(self, system: str, turns: list[dict[str, str]]) -> tuple[str, Any]:
        message = self._client.messages.create(
            model=self.model,
            max_tokens=self.max_tokens,
            system=system,
            messages=turns,
        )
        try:
            text = "".join(b.text for b in message.content if getattr(b, "type", None) == "text")
        except (AttributeError, TypeError) as exc:
            raise _Unavailable("unexpected response body (no text content)") from exc
        return text, getattr(message, "usage", None)

    def _tokens(self, usage: Any) -> tuple[object, object] | None:
        if usage is None:
            return None
        return getattr(usage, "input_tokens", None), getattr(usage, "output_tokens", None)


class OpenAIJudge(_SdkJudge):
    """A judge on the OpenAI Chat Completions API (key in ``OPENAI_API_KEY``).

    ``base_url`` reaches any OpenAI-compatible server and includes the API prefix, as the
    SDK expects (``http://localhost:8000/v1``); with a base URL the key may be omitted.
    """

    provider = "openai"
    key_env = "OPENAI_API_KEY"

    def _make_client(self, key: str) -> Any:
        return self._sdk.OpenAI(
            api_key=key,
            base_url=self.base_url,
            timeout=judge_timeout(self.timeout, self._sdk.Timeout),
            max_retries=self.max_retries,
        )

    def _complete(self, system: str, turns: list[dict[str, str]]) -> tuple[str, Any]:
        completion = self._client.chat.completions.create(
            model=self.model,
            max_tokens=self.max_tokens,
            temperature=0,
            messages=[{"role": "system", "content": system}, *turns],
        )
        try:
            content = completion.choices[0].message.content
        except (AttributeError, TypeError, IndexError) as exc:
            raise _Unavailable("unexpected response body (no choices)") from exc
        if not isinstance(content, str):
            raise _Unavailable("unexpected response body (no message content)")
        return content, getattr(completion, "usage", None)

    def _tokens(self, usage: Any) -> tuple[object, object] | None:
        if usage is None:
            return None
        return getattr(usage, "prompt_tokens", None), getattr(usage, "completion_tokens", None)
