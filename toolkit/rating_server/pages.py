"""How a route of the rating server answers: with the session it serves, a page drawn
from the templates, or a refusal (an HTTP status and one line, raised anywhere in a route
and answered by the application's handler, :func:`toolkit.rating_server.app.create_app`).

Helpers of this package's routes, not a public API.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.templating import Jinja2Templates

from toolkit.rating_server.server import RatingServer


class Refused(Exception):
    """A request refused with an HTTP status and one line of text."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


#: How often (seconds) a server looks whether its session's raters or queues changed in
#: the store (``toolkit rate --add-rater`` run by another process).
ROSTER_CHECK_S = 1.0


def server_of(request: Request) -> RatingServer:
    """The server of the application, with its session read again from the store when
    raters were added or reassigned since (by another process: at most once a second)."""
    state = request.app.state
    server: RatingServer = state.server
    now = time.monotonic()
    if now - getattr(state, "roster_checked", 0.0) < ROSTER_CHECK_S:
        return server
    state.roster_checked = now
    mark = server.store.roster_mark()
    if mark != getattr(state, "roster", None):
        session = server.store.session()
        if session is not None:
            server = dataclasses.replace(server, session=session)
            state.server = server
        state.roster = mark
    return server


def render_page(
    request: Request, name: str, context: dict[str, Any], status: int = 200
) -> Response:
    templates: Jinja2Templates = request.app.state.templates
    return templates.TemplateResponse(request, name, context, status_code=status)
