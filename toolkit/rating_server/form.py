"""A rater's save, checked before anything is stored: sent from this server's own page,
with that page's CSRF token, as JSON of bounded size, holding a score on the session's
scale, this instrument's answers and notes of bounded length; an organiser's form checked
the same way. Every body is read by one bounded reader, :func:`read_body`."""

from __future__ import annotations

import hmac
import json
from typing import Any
from urllib.parse import parse_qs, urlsplit

from starlette.requests import ClientDisconnect, Request

from toolkit.rating_server.pages import Refused
from toolkit.rating_server.server import RatingServer
from toolkit.ratings.store.skips import MAX_SKIP_REASON_CHARS

__all__ = ["MAX_BODY_BYTES", "MAX_NOTES_CHARS", "Left", "read_body"]

#: A save's request body is refused above this size (413).
MAX_BODY_BYTES = 64 * 1024


#: Notes longer than this are refused (422).
MAX_NOTES_CHARS = 20_000


def _same_origin(request: Request) -> bool:
    """A browser's request from one of this server's own pages (or no browser at all)."""
    origin = request.headers.get("origin")
    if origin is None:
        return request.headers.get("sec-fetch-site") in (None, "same-origin", "none")
    host = request.headers.get("host", "")
    return urlsplit(origin).netloc == host and origin != "null"


def _check_csrf(given: str, server: RatingServer, token: str) -> None:
    """403 unless ``given`` is the CSRF token of ``token``'s pages."""
    if not hmac.compare_digest(given.encode(), server.csrf(token).encode()):
        raise Refused(403, "missing or wrong CSRF token: reload the page")


def _content_type(request: Request) -> str:
    return request.headers.get("content-type", "").split(";")[0].strip()


async def read_body(request: Request) -> bytes:
    """The body of a request, the one reader of every save, skip and organiser's form: at
    most :data:`MAX_BODY_BYTES` whether or not a Content-Length is stated (413 above it,
    or for a length that is no number); :class:`Left` when the client goes first."""
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY_BYTES):
        raise Refused(413, "the request is too large")
    body = bytearray()
    try:
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY_BYTES:
                raise Refused(413, "the request is too large")
    except ClientDisconnect:
        raise Left() from None
    return bytes(body)


async def read_json(request: Request, server: RatingServer, token: str) -> dict[str, Any]:
    """The JSON object a rater's page sent: origin, CSRF token, type and size checked."""
    if not _same_origin(request):
        raise Refused(403, "cross-site request refused")
    _check_csrf(request.headers.get("x-csrf-token", ""), server, token)
    if _content_type(request) != "application/json":
        raise Refused(415, "a save is JSON")
    body = await read_body(request)
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise Refused(400, "the request is not JSON") from exc
    if not isinstance(data, dict):
        raise Refused(422, "the request must be a JSON object")
    return data


async def read_form(request: Request, server: RatingServer, token: str) -> dict[str, Any]:
    """The checked JSON body of a save: score, answers, notes; CSRF and origin checked."""
    data = await read_json(request, server, token)
    score = data.get("score")
    low, high = (0, 9) if server.persona else (1, 5)
    if score is not None and (type(score) is not int or not low <= score <= high):
        raise Refused(422, f"score must be a whole number from {low} to {high}")
    answers = data.get("answers") or {}
    keys = set() if server.persona else {q.key for q in server.scale.questions}
    # ``type(v) is bool``: 1 == True, so ``1 in (True, False)`` would let a number through
    if not isinstance(answers, dict) or any(
        k not in keys or not (v is None or type(v) is bool) for k, v in answers.items()
    ):
        raise Refused(422, "answers must map this instrument's questions to true/false/null")
    notes = data.get("notes") or ""
    if not isinstance(notes, str) or len(notes) > MAX_NOTES_CHARS:
        raise Refused(422, f"notes must be text of at most {MAX_NOTES_CHARS} characters")
    try:
        notes.encode("utf-8")
    except UnicodeEncodeError:  # JSON's "\ud800": a lone surrogate is no character
        raise Refused(422, "notes hold text that is not valid Unicode (a lone surrogate): "
                      "retype the note") from None  # fmt: skip
    return {"score": score, "answers": answers, "notes": notes}


async def read_skip(request: Request, server: RatingServer, token: str) -> str:
    """The reason of a skip (non-empty text of bounded length); CSRF and origin checked."""
    data = await read_json(request, server, token)
    reason = data.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        raise Refused(422, "give a reason for skipping")
    if len(reason) > MAX_SKIP_REASON_CHARS:
        raise Refused(422, f"a skip's reason must be at most {MAX_SKIP_REASON_CHARS} characters")
    try:
        reason.encode("utf-8")
    except UnicodeEncodeError:
        raise Refused(422, "the reason holds text that is not valid Unicode: retype it") from None
    return reason.strip()


def _same_site_form(request: Request) -> bool:
    """A form posted by one of this server's own pages under ``Referrer-Policy:
    no-referrer``: the browser sends ``Origin: null`` then, and says where the request
    came from in ``Sec-Fetch-Site`` (a header no page's script can set)."""
    return (
        request.headers.get("origin") == "null"
        and request.headers.get("sec-fetch-site") == "same-origin"
    )


async def read_organiser_form(request: Request, server: RatingServer, token: str) -> dict[str, str]:
    """The fields of a form the organiser's pages post (``application/x-www-form-
    urlencoded``, as a plain HTML form sends it, so the pages need no script): from this
    server's own page (the origin check of a rater's save), carrying the page's CSRF
    token (field ``csrf``), of bounded size and fields, as valid UTF-8 text; each field's
    first value."""
    if not _same_origin(request) and not _same_site_form(request):
        raise Refused(403, "cross-site request refused")
    if _content_type(request) != "application/x-www-form-urlencoded":
        raise Refused(415, "an organiser's action is a form")
    body = await read_body(request)
    try:
        fields = parse_qs(body.decode("ascii"), keep_blank_values=True, strict_parsing=False,
                          errors="strict", max_num_fields=20)  # fmt: skip
    except (UnicodeDecodeError, ValueError):
        raise Refused(400, "the form is not valid UTF-8 text") from None
    _check_csrf(fields.get("csrf", [""])[0], server, token)
    return {key: values[0] for key, values in fields.items()}


class Left(Exception):
    """The client left before its request's body was read: nothing was saved."""
