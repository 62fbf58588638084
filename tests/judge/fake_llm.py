"""A fake LLM server on 127.0.0.1 speaking the two judge APIs' wire formats.

``POST /v1/messages`` answers as the Anthropic Messages API, ``POST
/v1/chat/completions`` as OpenAI Chat Completions, both with a ``usage`` block. By default
it answers every claim of the prompt with :func:`score_of` (a rule of the claim text that
the tests compute on their own), in the toolkit's reply format. A test can script the
next responses (status, body, headers, delay) and reads what the server saw: every
request, the claims asked, the usage it reported and the most requests in flight at once.
"""

from __future__ import annotations

import json
import re
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_CLAIM = re.compile(r"^CLAIM: (.*?)\n\nTRAJECTORY:", re.DOTALL)
_CLAIMS = re.compile(r"^\[(\d+)\] (.*)$", re.MULTILINE)


def score_of(claim: str) -> int:
    """The fake judge's answer to a claim: a stable 0-9 function of its text."""
    return zlib.crc32(claim.encode("utf-8")) % 10


def claims_of(user: str) -> list[str]:
    """The claims of a toolkit judge prompt (one, or the numbered list of a batch)."""
    single = _CLAIM.match(user)
    if single:
        return [single.group(1)]
    head = user.split("\n\nTRAJECTORY:", 1)[0]
    return [m.group(2) for m in _CLAIMS.finditer(head)]


@dataclass
class Reply:
    """A scripted response: status, JSON body (or raw bytes), headers, delay before it."""

    status: int = 200
    body: Any = None
    raw: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


Script = Callable[[dict[str, Any]], Reply | None]


@dataclass
class Seen:
    """One request the server received."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    claims: list[str]
    at: float
    usage: tuple[int, int] | None = None


class FakeLLM:
    """The server; use :meth:`start` / :meth:`stop` (the ``fake_llm`` fixture does)."""

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay
        self.scripted: list[Reply] = []
        self.seen: list[Seen] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ----------------------------------------------------------
    def start(self) -> FakeLLM:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                fake._handle(self)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    @property
    def root(self) -> str:
        """The server root (the Anthropic SDK's base URL)."""
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def openai_url(self) -> str:
        """The OpenAI SDK's base URL (with the ``/v1`` prefix)."""
        return self.root + "/v1"

    # -- what was seen ------------------------------------------------------
    def claims_asked(self) -> list[str]:
        """Every claim sent, over all requests, in arrival order."""
        return [c for s in self.seen for c in s.claims]

    def usage_reported(self) -> tuple[int, int]:
        """The input and output tokens the server reported, summed."""
        pairs = [s.usage for s in self.seen if s.usage is not None]
        return sum(i for i, _ in pairs), sum(o for _, o in pairs)

    # -- answering ----------------------------------------------------------
    def _answer(self, seen: Seen, system: str, texts: list[str]) -> tuple[str, int, int]:
        claims = seen.claims
        if len(claims) == 1:
            reply = f"{score_of(claims[0])} The trajectory bears it out."
        else:
            reply = "\n".join(
                f"[{k}] {score_of(c)} Reason {k}." for k, c in enumerate(claims, start=1)
            )
        used_in = 1 + (len(system) + sum(len(t) for t in texts)) // 4
        return reply, used_in, 1 + len(reply) // 4

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            length = int(handler.headers.get("content-length", "0"))
            body = json.loads(handler.rfile.read(length) or b"{}")
            messages = body.get("messages", [])
            if handler.path.endswith("/chat/completions"):
                system = next((m["content"] for m in messages if m["role"] == "system"), "")
                turns = [m for m in messages if m["role"] != "system"]
            else:
                system, turns = body.get("system", ""), messages
            first_user = next((m["content"] for m in turns if m["role"] == "user"), "")
            seen = Seen(
                path=handler.path,
                headers={k.lower(): v for k, v in handler.headers.items()},
                body=body,
                claims=claims_of(first_user),
                at=time.monotonic(),
            )
            with self._lock:
                self.seen.append(seen)
                reply = self.scripted.pop(0) if self.scripted else None
            if reply is None:
                text, used_in, used_out = self._answer(
                    seen, system, [str(t["content"]) for t in turns]
                )
                reply = Reply(body=self._body(handler.path, body, text, used_in, used_out))
                seen.usage = (used_in, used_out)
                reply.delay = self.delay
            time.sleep(reply.delay)
            data = reply.raw if reply.raw is not None else json.dumps(reply.body).encode()
            handler.send_response(reply.status)
            handler.send_header("content-type", "application/json")
            handler.send_header("content-length", str(len(data)))
            for name, value in reply.headers.items():
                handler.send_header(name, value)
            handler.end_headers()
            handler.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout): nothing to answer
        finally:
            with self._lock:
                self.in_flight -= 1

    @staticmethod
    def _body(path: str, request: dict[str, Any], text: str, used_in: int, used_out: int) -> Any:
        if path.endswith("/chat/completions"):
            return {
                "id": "chatcmpl-fake",
                "object": "chat.completion",
                "created": 0,
                "model": request.get("model", ""),
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": text},
                    }
                ],
                "usage": {
                    "prompt_tokens": used_in,
                    "completion_tokens": used_out,
                    "total_tokens": used_in + used_out,
                },
            }
        return {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": request.get("model", ""),
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": used_in, "output_tokens": used_out},
        }


def anthropic_body(text: str, used_in: int = 10, used_out: int = 5) -> dict[str, Any]:
    """A Messages API reply body with ``text``."""
    body: dict[str, Any] = FakeLLM._body("/v1/messages", {"model": "m"}, text, used_in, used_out)
    return body


def openai_body(text: str, used_in: int = 10, used_out: int = 5) -> dict[str, Any]:
    """A Chat Completions reply body with ``text``."""
    body: dict[str, Any] = FakeLLM._body(
        "/v1/chat/completions", {"model": "m"}, text, used_in, used_out
    )
    return body
