"""``toolkit rate DIR [--store FILE] [--port N] [--rater NAME]``: the rating page.

See :data:`DESCRIPTION` (what ``toolkit rate --help`` prints).
"""

from __future__ import annotations

import argparse
import errno
import os
import socket
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from toolkit.apps import RATER_APP
from toolkit.errors import InputError

HOST = "127.0.0.1"
DEFAULT_PORT = 8866
#: Without ``--port``, the first free port from :data:`DEFAULT_PORT` on, as Voilà would.
PORT_TRIES = 50

DESCRIPTION = """\
Serve the engagement-rating session over the games in DIR as a web page
(Voila) on 127.0.0.1 only, for raters who never open a notebook. Ratings go
to the SQLite ratings store --store (default: DIR/ratings.db, created when
missing). Each rater types their name on the page (capitals do not matter)
and resumes where they left off; Ctrl-C stops the server.

The page is served on --port; without it, on the first free port from 8866
on, and the address printed is the one served. A --port that is taken is an
error (exit 2).
"""


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from exc
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 1-65535, not {port}")
    return port


def register(sub: Any) -> None:
    """Add the ``rate`` subcommand."""
    parser: argparse.ArgumentParser = sub.add_parser(
        "rate",
        help="serve the engagement-rating session as a web page (127.0.0.1)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("dir", metavar="DIR", help="transcripts: a folder, file or game .db")
    parser.add_argument("--store", metavar="FILE", help="ratings store (default DIR/ratings.db)")
    parser.add_argument(
        "--port", type=_port, help="the port (default: the first free one from 8866 on)"
    )
    parser.add_argument("--rater", metavar="NAME", help="skip the name prompt (one rater)")
    parser.set_defaults(func=run)


def port_is_free(port: int) -> bool:
    """Whether ``127.0.0.1:port`` can be listened on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((HOST, port))
        except OSError as exc:
            if exc.errno in (errno.EADDRINUSE, errno.EACCES):
                return False
            raise
    return True


def choose_port(port: int | None) -> int:
    """The port to serve on: ``port`` when given (and free), else the first free one from
    :data:`DEFAULT_PORT` on.

    Raises:
        InputError: the given port is taken, or no port of the default range is free.
    """
    if port is not None:
        if not port_is_free(port):
            raise InputError(
                None, f"port {port} on {HOST} is in use: choose another", field="--port",
                value=port,
            )  # fmt: skip
        return port
    for candidate in range(DEFAULT_PORT, DEFAULT_PORT + PORT_TRIES):
        if port_is_free(candidate):
            return candidate
    last = DEFAULT_PORT + PORT_TRIES - 1
    raise InputError(None, f"no free port on {HOST} from {DEFAULT_PORT} to {last}: give --port")


def voila_command(port: int) -> list[str]:
    """The command that serves the rating page on ``127.0.0.1:port`` (that port or none:
    the address printed is the one served), with a pre-heated kernel so that a visit
    finds the page already rendered instead of starting a kernel."""
    return [
        sys.executable,
        "-m",
        "voila",
        str(RATER_APP),
        "--no-browser",
        f"--port={port}",
        "--Voila.port_retries=0",
        f"--Voila.ip={HOST}",
        "--show_tracebacks=False",
        "--preheat_kernel=True",
        "--pool_size=1",
    ]


def _exec(command: Sequence[str], env: Mapping[str, str]) -> int:  # pragma: no cover
    """Replace this process by the server (so its process id is the server's)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(command[0], list(command), dict(env))


def run(args: argparse.Namespace) -> int:
    """Check the transcripts and the store, then hand over to the page server."""
    from toolkit.load.discussion import load_discussion
    from toolkit.ratings.store import RatingStore, default_store_path

    transcripts = Path(args.dir)
    games = load_discussion(transcripts)  # bad input stops here, exit 2
    store = RatingStore(args.store or default_store_path(transcripts))
    port = choose_port(args.port)
    env = {
        **os.environ,
        "TOOLKIT_RATE_DIR": str(transcripts.resolve()),
        "TOOLKIT_RATE_STORE": str(store.path.resolve()),
        "TOOLKIT_RATE_RATER": args.rater or "",
    }
    print(
        f"toolkit rate: {len(games.game_ids)} transcript(s) from {transcripts}, ratings in "
        f"{store.path}\ntoolkit rate: serving http://{HOST}:{port}/ (Ctrl-C stops)",
        file=sys.stderr,
    )
    return _exec(voila_command(port), env)
