"""Every request body the rating server reads (a rater's JSON save or skip, an organiser's
form) goes through one bounded reader, ``read_body``: at most ``MAX_BODY_BYTES`` whether or
not the client states a Content-Length (413 above, or for a length that is no number),
and ``Left`` when the client goes before its body is read."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from starlette.requests import Request

from toolkit.rating_server.form import MAX_BODY_BYTES, Left, read_body
from toolkit.rating_server.pages import Refused


def _request(chunks: Sequence[bytes], length: str | None = None, leave: bool = False) -> Request:
    headers = [] if length is None else [(b"content-length", length.encode())]
    sent = list(chunks)

    async def receive() -> dict[str, Any]:
        if sent:
            body = sent.pop(0)
            return {"type": "http.request", "body": body, "more_body": bool(sent) or leave}
        return {"type": "http.disconnect"}

    scope = {"type": "http", "method": "POST", "path": "/", "headers": headers}
    return Request(scope, receive)


def _read(request: Request) -> bytes:
    return asyncio.run(read_body(request))


def test_a_body_in_chunks_is_read_whole() -> None:
    assert _read(_request([b"score=", b"4&notes=", b"ok"])) == b"score=4&notes=ok"
    assert _read(_request([b"x" * MAX_BODY_BYTES], str(MAX_BODY_BYTES))) == b"x" * MAX_BODY_BYTES


@pytest.mark.parametrize(
    ("chunks", "length"),
    [
        ([b"x" * 1024] * 65, None),  # no Content-Length: 65 KiB streamed
        ([b"x" * 10], str(MAX_BODY_BYTES + 1)),  # a length stated too large
        ([b"x" * 10], "10; drop"),  # a length that is no number
        ([b"x" * 10], "-1"),
    ],
)
def test_a_body_too_large_or_of_no_stated_length_is_refused(
    chunks: list[bytes], length: str | None
) -> None:
    with pytest.raises(Refused) as refused:
        _read(_request(chunks, length))
    assert refused.value.status == 413


def test_a_client_that_leaves_mid_body_is_left() -> None:
    with pytest.raises(Left):
        _read(_request([b"score=4"], leave=True))
