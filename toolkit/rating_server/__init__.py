"""The team rating server: each rater's private pages and the organiser's page, over the
ratings store's session API (see :mod:`toolkit.rating_server.app` for the addresses and
:func:`serve` for running it). ``toolkit rate DIR --raters ...`` starts it."""

from toolkit.rating_server.app import RatingServer, create_app
from toolkit.rating_server.run import bind_socket, serve

__all__ = ["RatingServer", "bind_socket", "create_app", "serve"]
