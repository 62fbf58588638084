"""``toolkit rate DIR [--store FILE] [--port N] [--rater NAME]``.

Serves the engagement-rating session over the games in ``DIR`` as a web page (Voilà),
for raters who never open a notebook, on 127.0.0.1 only. Ratings go to the SQLite ratings
store ``--store`` (default: ``DIR/ratings.db``, created when missing). Each rater types
their name on the page and resumes where they left off; Ctrl-C stops the server.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from toolkit.apps import RATER_APP

HOST = "127.0.0.1"
DEFAULT_PORT = 8866


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
        description=__doc__,
    )
    parser.add_argument("dir", metavar="DIR", help="transcripts: a folder, file or game .db")
    parser.add_argument("--store", metavar="FILE", help="ratings store (default DIR/ratings.db)")
    parser.add_argument("--port", type=_port, default=DEFAULT_PORT, help="default 8866")
    parser.add_argument("--rater", metavar="NAME", help="skip the name prompt (one rater)")
    parser.set_defaults(func=run)


def voila_command(port: int) -> list[str]:
    """The command that serves the rating page on ``127.0.0.1:port``."""
    return [
        sys.executable,
        "-m",
        "voila",
        str(RATER_APP),
        "--no-browser",
        f"--port={port}",
        f"--Voila.ip={HOST}",
        "--show_tracebacks=False",
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
    env = {
        **os.environ,
        "TOOLKIT_RATE_DIR": str(transcripts.resolve()),
        "TOOLKIT_RATE_STORE": str(store.path.resolve()),
        "TOOLKIT_RATE_RATER": args.rater or "",
    }
    print(
        f"toolkit rate: {len(games.game_ids)} transcript(s) from {transcripts}, ratings in "
        f"{store.path}\ntoolkit rate: serving http://{HOST}:{args.port}/ (Ctrl-C stops)",
        file=sys.stderr,
    )
    return _exec(voila_command(args.port), env)
