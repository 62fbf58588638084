"""How a route of the rating server answers: with the session it serves, a page drawn
from the templates, or a refusal (an HTTP status and one line, raised anywhere in a route
and answered by the application's handler, :func:`toolkit.rating_server.app.create_app`).

Helpers of this package's routes, not a public API.
"""

from __future__ import annotations

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


def server_of(request: Request) -> RatingServer:
    server: RatingServer = request.app.state.server
    return server


def render_page(
    request: Request, name: str, context: dict[str, Any], status: int = 200
) -> Response:
    templates: Jinja2Templates = request.app.state.templates
    return templates.TemplateResponse(request, name, context, status_code=status)
