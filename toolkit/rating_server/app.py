"""The rating server assembled: each rater's private pages, the organiser's page, exports.

A face, like the CLI: it reads the games through the discussion loader (done once, by the
caller), renders them with the one transcript renderer, and saves through the ratings
store's session API; nothing below it knows it exists.

Addresses (``TOKEN`` is a rater's or the organiser's private token):

* ``GET /r/TOKEN``: the rater's first game not yet submitted (or "all done");
* ``GET /r/TOKEN/N``: game N of the rater's queue (1-based), with their draft;
* ``POST /r/TOKEN/N/draft``, ``POST /r/TOKEN/N/submit``: save the form (JSON), with the
  page's CSRF token in the ``X-CSRF-Token`` header (a submit with a required question
  unanswered is refused, 422);
* ``POST /r/TOKEN/N/skip``: skip game N with a reason (JSON ``{"reason": ...}``);
* ``GET /o/TOKEN``: progress per rater and per game, agreement so far;
* ``GET /o/TOKEN/ratings.csv``, ``GET /o/TOKEN/ratings.json``: the ratings that count.
* ``GET /o/TOKEN/backup.zip``: every part of the store (drafts too), as one zip.
* ``/o/TOKEN/raters``, ``/o/TOKEN/raters/N``, ``/o/TOKEN/disagreements``,
  ``/o/TOKEN/adjudications.csv`` and their forms: the organiser's review
  (:mod:`~toolkit.rating_server.review`).

Every response carries a strict Content-Security-Policy (scripts and styles only from
this server, as files), ``Referrer-Policy: no-referrer`` (a token in the address never
leaves in a Referer) and ``Cache-Control: no-store``.

Where each part lives: the rater's pages in :mod:`~toolkit.rating_server.rater` (a save's
checks in :mod:`~toolkit.rating_server.form`, its commit in
:mod:`~toolkit.rating_server.group_commit`), the organiser's page in
:mod:`~toolkit.rating_server.organiser`, the downloads in
:mod:`~toolkit.rating_server.exports`, the headers in
:mod:`~toolkit.rating_server.security`, what is served in
:mod:`~toolkit.rating_server.server`.
"""

from __future__ import annotations

import sys
from importlib import resources
from pathlib import Path

import jinja2
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from toolkit.errors import ToolkitError
from toolkit.rating_server.exports import export_backup, export_csv, export_json
from toolkit.rating_server.form import Left
from toolkit.rating_server.group_commit import GroupCommit
from toolkit.rating_server.organiser import organiser
from toolkit.rating_server.pages import Refused, render_page
from toolkit.rating_server.rater import (
    rater_done,
    rater_game,
    rater_home,
    save_draft,
    skip,
    submit,
)
from toolkit.rating_server.review import (
    add_rater,
    adjudicate,
    adjudications_csv,
    disagreements_page,
    rater_view,
    raters_page,
    reassign,
)
from toolkit.rating_server.security import Headers
from toolkit.rating_server.server import RatingServer
from toolkit.views.transcript import TRANSCRIPT_CSS

__all__ = ["create_app"]

_HERE = resources.files("toolkit.rating_server")


def _templates() -> Jinja2Templates:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(_HERE.joinpath("templates"))),
        autoescape=True,  # everything shown is escaped unless marked safe
        undefined=jinja2.StrictUndefined,
    )
    return Jinja2Templates(env=env)


def index(request: Request) -> Response:
    """The bare address: says nothing about the session."""
    return render_page(request, "index.html", {})


def no_icon(request: Request) -> Response:
    """No icon (an empty answer rather than a 404 in the browser's console)."""
    return Response(status_code=204)


def transcript_css(request: Request) -> Response:
    """The transcript renderer's stylesheet, as a file (the CSP allows no inline style)."""
    return Response(TRANSCRIPT_CSS, media_type="text/css; charset=utf-8")


async def _refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Refused)
    return _refusal(request, exc.status, exc.message)


async def _store_error(request: Request, exc: Exception) -> Response:
    # The organiser reads the reason on the server's stderr (one line, no token in it);
    # a rater is told what to do, not where the organiser keeps the store.
    print(f"toolkit rate: error: {exc}", file=sys.stderr, flush=True)
    return _refusal(request, 503, "the ratings store could not save: tell your organiser")


async def _left(request: Request, exc: Exception) -> Response:
    # One line for the organiser (no token: the rater's address is not shown); the answer
    # goes nowhere, the client is gone.
    print("toolkit rate: a client left before its save was read: nothing saved", file=sys.stderr,
          flush=True)  # fmt: skip
    return Response(status_code=400)


def _refusal(request: Request, status: int, message: str) -> Response:
    if request.method == "POST" or "application/json" in request.headers.get("accept", ""):
        return JSONResponse({"error": message}, status_code=status)
    return PlainTextResponse(message, status_code=status)


def create_app(server: RatingServer) -> Starlette:
    """The ASGI application serving ``server``'s session (run it with uvicorn).

    Args:
        server: the session, store, games and instrument (see :meth:`RatingServer.build`).

    Returns:
        A Starlette application.
    """
    static = Path(str(_HERE.joinpath("static")))
    routes = [
        Route("/", index),
        Route("/favicon.ico", no_icon),
        Route("/static/transcript.css", transcript_css),
        Mount("/static", StaticFiles(directory=static), name="static"),
        Route("/r/{token}", rater_home),
        Route("/r/{token}/done", rater_done),
        Route("/r/{token}/{n:int}", rater_game),
        Route("/r/{token}/{n:int}/draft", save_draft, methods=["POST"]),
        Route("/r/{token}/{n:int}/submit", submit, methods=["POST"]),
        Route("/r/{token}/{n:int}/skip", skip, methods=["POST"]),
        Route("/o/{token}", organiser),
        Route("/o/{token}/ratings.csv", export_csv),
        Route("/o/{token}/ratings.json", export_json),
        Route("/o/{token}/backup.zip", export_backup),
        # the organiser's review (issue 41): raters, disagreements, adjudications
        Route("/o/{token}/raters", raters_page),
        Route("/o/{token}/raters/add", add_rater, methods=["POST"]),
        Route("/o/{token}/raters/{n:int}", rater_view),
        Route("/o/{token}/raters/{n:int}/reassign", reassign, methods=["POST"]),
        Route("/o/{token}/disagreements", disagreements_page),
        Route("/o/{token}/adjudicate", adjudicate, methods=["POST"]),
        Route("/o/{token}/adjudications.csv", adjudications_csv),
    ]
    app = Starlette(
        routes=routes,
        middleware=[Middleware(Headers)],
        exception_handlers={
            Refused: _refused,
            ToolkitError: _store_error,
            Left: _left,
            ClientDisconnect: _left,
        },
    )
    app.state.server = server
    app.state.roster = server.store.roster_mark()  # the session's raters as served
    app.state.templates = _templates()
    app.state.commits = GroupCommit(server.store)
    return app
