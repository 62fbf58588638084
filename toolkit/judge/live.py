"""Live judges over the Anthropic Messages and OpenAI Chat Completions HTTP APIs.

They use only the standard library (``urllib``), so no extra package is needed; the API
key comes from the environment. Calls have a timeout and are retried on timeouts,
connection errors, HTTP 429 and 5xx. When every attempt fails the judge *fails open*:
each proposition of the batch gets no value (absent, with the error), never a 9 or a 0.
A reply that does not start with an integer 0-9 is an error result keeping the raw text.
CI never uses these: it replays a cassette with :class:`toolkit.judge.RecordedJudge`.
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from typing import Any

from toolkit.errors import InputError
from toolkit.judge._protocol import (
    DOUBLE_CHECK_PROMPT,
    JudgeRequest,
    JudgeResult,
    build_prompt,
    parse_batch_reply,
)


class _Unavailable(Exception):
    """Every attempt to reach the judge failed."""


class _HttpJudge:
    """Shared machinery: prompt, retries, fail-open, double-check turn."""

    provider = "http"
    key_env = ""
    default_base_url = ""

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 60.0,
        retries: int = 2,
        backoff: float = 1.0,
        max_tokens: int = 1024,
    ) -> None:
        key = api_key if api_key is not None else os.environ.get(self.key_env)
        if not key:
            raise InputError(
                None, f"the {self.provider} judge needs an API key", field=self.key_env, value=None
            )
        self.model = model
        self.api_key = key
        self.base_url = (base_url or self.default_base_url).rstrip("/")
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.max_tokens = max_tokens
        self.name = f"{self.provider}:{model}"

    # -- provider specifics -------------------------------------------------
    def _endpoint(self) -> str:
        raise NotImplementedError

    def _headers(self) -> dict[str, str]:
        raise NotImplementedError

    def _payload(self, system: str, turns: list[dict[str, str]]) -> dict[str, Any]:
        raise NotImplementedError

    def _text(self, body: Any) -> str:
        raise NotImplementedError

    # -- transport ----------------------------------------------------------
    def _call(self, system: str, turns: list[dict[str, str]]) -> str:
        data = json.dumps(self._payload(system, turns)).encode("utf-8")
        last = "no attempt made"
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(self.backoff * 2 ** (attempt - 1))
            request = urllib.request.Request(
                self._endpoint(),
                data=data,
                headers={"content-type": "application/json", **self._headers()},
                method="POST",
            )
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    body = json.loads(response.read().decode("utf-8"))
                return self._text(body)
            except urllib.error.HTTPError as exc:
                last = f"HTTP {exc.code}"
                if exc.code != 429 and exc.code < 500:
                    break
            except TimeoutError:
                last = f"timed out after {self.timeout:g}s"
            except urllib.error.URLError as exc:
                reason = exc.reason
                last = (
                    f"timed out after {self.timeout:g}s"
                    if isinstance(reason, TimeoutError)
                    else f"connection failed ({reason})"
                )
            except (ValueError, KeyError, IndexError, TypeError) as exc:
                last = f"unexpected response body ({exc})"
                break
        raise _Unavailable(f"{last} ({attempt + 1} attempt{'s' if attempt else ''})")

    def judge(
        self, requests: Sequence[JudgeRequest], *, double_check: bool = False
    ) -> list[JudgeResult]:
        """Ask the API about ``requests`` (one call, two with ``double_check``)."""
        if not requests:
            return []
        kind = requests[0].kind
        system, user = build_prompt(requests)
        turns = [{"role": "user", "content": user}]
        try:
            reply = self._call(system, turns)
            if double_check:
                turns += [
                    {"role": "assistant", "content": reply},
                    {"role": "user", "content": DOUBLE_CHECK_PROMPT},
                ]
                reply = self._call(system, turns)
        except _Unavailable as exc:
            return [
                JudgeResult(None, "", error=f"judge unavailable: {exc}", raw=None) for _ in requests
            ]
        return parse_batch_reply(reply, len(requests), kind)


class AnthropicJudge(_HttpJudge):
    """A judge calling the Anthropic Messages API (key in ``ANTHROPIC_API_KEY``)."""

    provider = "anthropic"
    key_env = "ANTHROPIC_API_KEY"
    default_base_url = "https://api.anthropic.com"

    def _endpoint(self) -> str:
        return f"{self.base_url}/v1/messages"

    def _headers(self) -> dict[str, str]:
        return {"x-api-key": self.api_key, "anthropic-version": "2023-06-01"}

    def _payload(self, system: str, turns: list[dict[str, str]]) -> dict[str, Any]:
        return {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "temperature": 0,
            "system": system,
            "messages": turns,
        }

    def _text(self, body: Any) -> str:
        return "".join(block["text"] for block in body["content"] if block.get("type") == "text")


class OpenAIJudge(_HttpJudge):
    """A judge calling the OpenAI Chat Completions API (key in ``OPENAI_API_KEY``)."""

    provider = "openai"
    key_env = "OPENAI_API_KEY"
    default_base_url = "https://api.openai.com"

    def _endpoint(self) -> str:
        return f"{self.base_url}/v1/chat/completions"

    def _headers(self) -> dict[str, str]:
        return {"authorization": f"Bearer {self.api_key}"}

    def _payload(self, system: str, turns: list[dict[str, str]]) -> dict[str, Any]:
        return {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "temperature": 0,
            "messages": [{"role": "system", "content": system}, *turns],
        }

    def _text(self, body: Any) -> str:
        return str(body["choices"][0]["message"]["content"])
