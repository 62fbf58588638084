"""The rating server's connections kept from starving raters: a deadline for a request's
headers and one for its body, and a cap on the connections one client address holds.

uvicorn closes an idle keep-alive connection but sets no deadline on a request being
received, so a client that opens sockets and sends nothing (or half a request) holds
them, and their file descriptors, for as long as it likes. :class:`GuardedH11Protocol`
(uvicorn's h11 protocol with these checks) closes a connection whose request line and
headers are not complete :data:`HEADER_SECONDS` after it opened (or after the previous
response: a byte at a time does not extend it), or whose body is not complete
:data:`BODY_SECONDS` after its headers; and it closes at once a connection beyond the
:data:`MAX_CONNECTIONS_PER_CLIENT` one address holds. Each is said in one line on
stderr, at most once per address and reason every :data:`SAY_EVERY_SECONDS` (a flood is
never a flood of lines).

Behind a reverse proxy every rater comes from the proxy's address: the proxy then holds
up to :data:`MAX_CONNECTIONS_PER_CLIENT` connections at once (docs/ratings.md).
"""

from __future__ import annotations

import asyncio
import sys
import time
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = [
    "BODY_SECONDS",
    "HEADER_SECONDS",
    "MAX_CONNECTIONS_PER_CLIENT",
    "GuardedH11Protocol",
]

#: A request's line and headers must arrive within this many seconds.
HEADER_SECONDS = 10.0
#: A request's body (at most 64 KiB) must arrive within this many seconds of its headers.
BODY_SECONDS = 30.0
#: The connections one client address may hold open at once; more are closed at once.
MAX_CONNECTIONS_PER_CLIENT = 64
#: The same notice (address and reason) is said at most once in this many seconds.
SAY_EVERY_SECONDS = 60.0


class _Clients:
    """Connections open per client address, and when each notice was last said (one
    per server: kept on uvicorn's server state)."""

    def __init__(self) -> None:
        self.open: dict[str, int] = {}
        self.said: dict[tuple[str, str], float] = {}

    def say(self, host: str, what: str) -> None:
        now = time.monotonic()
        if now - self.said.get((host, what), -SAY_EVERY_SECONDS) >= SAY_EVERY_SECONDS:
            self.said[(host, what)] = now
            print(f"toolkit rate: {what} (client {host})", file=sys.stderr, flush=True)


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with deadlines on a request's headers and body and a cap
    on the connections per client address (see the module)."""

    #: Overridable in tests (seconds, connections).
    header_seconds = HEADER_SECONDS
    body_seconds = BODY_SECONDS
    max_per_client = MAX_CONNECTIONS_PER_CLIENT

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        state = self.server_state
        clients = getattr(state, "toolkit_clients", None)
        if clients is None:
            clients = _Clients()
            state.toolkit_clients = clients  # type: ignore[attr-defined]
        self._clients: _Clients = clients
        self._host = ""
        self._phase = ""
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._host = self.client[0] if self.client else "?"
        held = self._clients.open.get(self._host, 0) + 1
        self._clients.open[self._host] = held
        if held > self.max_per_client:
            self._clients.say(
                self._host, f"refused connections beyond {self.max_per_client} from one address"
            )
            transport.close()
            return
        self._arm("headers", self.header_seconds)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        left = self._clients.open.get(self._host, 1) - 1
        if left > 0:
            self._clients.open[self._host] = left
        else:
            self._clients.open.pop(self._host, None)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.transport.is_closing():
            return
        state = self.conn.their_state
        if state is h11.IDLE:
            if self._phase != "headers":  # a new request begins: its own deadline
                self._arm("headers", self.header_seconds)
        elif state is h11.SEND_BODY:
            if self._phase != "body":
                self._arm("body", self.body_seconds)
        else:  # the request is whole: the application answers, keep-alive takes over
            self._disarm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._disarm()  # uvicorn's keep-alive timeout closes an idle connection

    def _arm(self, phase: str, seconds: float) -> None:
        self._disarm()
        self._phase = phase
        self._deadline = self.loop.call_later(seconds, self._expired, phase, seconds)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._deadline = None
        self._phase = ""

    def _expired(self, phase: str, seconds: float) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        what = "request line and headers" if phase == "headers" else "request body"
        self._clients.say(self._host, f"closed a connection whose {what} did not arrive "
                          f"within {seconds:g} s")  # fmt: skip
        self.transport.close()
