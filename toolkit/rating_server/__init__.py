"""The team rating server: each rater's private pages and the organiser's page, over the
ratings store's session API (see :mod:`toolkit.rating_server.app` for the addresses and
:func:`serve` for running it). ``toolkit rate DIR --raters ...`` starts it."""

from toolkit.rating_server.app import create_app
from toolkit.rating_server.form import MAX_BODY_BYTES, MAX_NOTES_CHARS
from toolkit.rating_server.group_commit import GroupCommit
from toolkit.rating_server.run import bind_socket, serve
from toolkit.rating_server.security import CSP
from toolkit.rating_server.server import ItemPage, RatingServer

__all__ = [
    "CSP",
    "MAX_BODY_BYTES",
    "MAX_NOTES_CHARS",
    "GroupCommit",
    "ItemPage",
    "RatingServer",
    "bind_socket",
    "create_app",
    "serve",
]
