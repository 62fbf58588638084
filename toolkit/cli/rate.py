"""``toolkit rate DIR --raters ana,ben --overlap 2``: the team rating server.

See :data:`DESCRIPTION` (what ``toolkit rate --help`` prints).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from toolkit.cli._order import add_order_arguments, open_arguments
from toolkit.errors import InputError

HOST = "127.0.0.1"
DEFAULT_PORT = 8866
#: Without ``--port``, the first free port from :data:`DEFAULT_PORT` on.
PORT_TRIES = 50
#: Items of a persona session whose text changed, named on stderr (the rest counted).
CHANGED_SHOWN = 5

DESCRIPTION = """\
Serve a rating session over the games in DIR to a team of raters. The first
run creates the session in the ratings store (--store, default
DIR/ratings.db): each game goes to --overlap raters (balanced; --seed fixes
the draw), each rater's queue is shuffled, and every rater gets a private
link. Later runs resume it: same links, same queues, nothing lost.

The links (one per rater, plus the organiser's page with progress, agreement
and CSV/JSON export) are printed on stdout. Raters see only their own queue;
every change they make is saved at once. Ctrl-C stops the server.

Persona chats (toolkit JSONL or run_messages exports, files or folders) are
served with --propositions DIR: each item is one 0-9 claim about one agent (or
the group) of one chat, shown with the conversation exactly as the judge reads
it; `toolkit calibrate --persona` later holds the judge against the ratings.

The server listens on --host (default 127.0.0.1) and --port (default: the
first free port from 8866 on; a --port that is taken is an error, exit 2).
Every page needs its private token on any host; to serve raters on other
machines, put it behind a TLS reverse proxy and give --public-url, the
address raters will use (see docs/ratings.md).
"""


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from exc
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0-65535 (0: any free one), not {port}")
    return port


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from exc
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from exc
    if not 0 <= value < 2**63:
        raise argparse.ArgumentTypeError(f"a seed is 0 to 2**63-1, not {value}")
    return value


def _public_url(text: str) -> str:
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query:
        raise argparse.ArgumentTypeError(f"not an http(s) address: {text!r}")
    return text.rstrip("/")


def register(sub: Any) -> None:
    """Add the ``rate`` subcommand."""
    parser: argparse.ArgumentParser = sub.add_parser(
        "rate",
        help="serve a rating session to a team of raters (private links)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "dir", nargs="+", metavar="DIR",
        help="transcripts: a folder, file or game .db; or persona chats (files or folders)",
    )  # fmt: skip
    parser.add_argument("--store", metavar="FILE", help="ratings store (default DIR/ratings.db)")
    parser.add_argument(
        "--propositions", metavar="DIR",
        help="persona chats: the proposition files whose claims are rated (0-9)",
    )  # fmt: skip
    parser.add_argument(
        "--personas", metavar="FILE", help="persona chats: personas YAML/JSON (names, specs)"
    )
    parser.add_argument(
        "--raters", metavar="A,B,C", help="the raters (to create the session; later runs resume it)"
    )
    parser.add_argument(
        "--overlap", type=_positive, help="raters per game (default 2; 1 with one rater)"
    )
    parser.add_argument("--seed", type=_seed, help="the assignment's seed (default: random)")
    parser.add_argument("--host", default=HOST, help=f"address to listen on (default {HOST})")
    parser.add_argument(
        "--port", type=_port, help="the port (default: the first free one from 8866 on; 0: any)"
    )
    parser.add_argument(
        "--public-url", type=_public_url, metavar="URL",
        help="the address raters use (behind a reverse proxy), for the links printed",
    )  # fmt: skip
    parser.add_argument(
        "--restore", metavar="BACKUP",
        help="first put a backup (the organiser page's zip, or a backup folder) back into "
        "the store; what the store already holds stays",
    )  # fmt: skip
    parser.add_argument(
        "--import-other-session", action="store_true",
        help="with --restore: the backup is of another session; keep its ratings as that "
        "session's data (they do not count here, nothing of this session is replaced)",
    )  # fmt: skip
    parser.add_argument(
        "--add-rater", action="append", metavar="NAME", default=[],
        help="add a rater to the session (repeatable): a new private link, and the games "
        "nobody has rated, started or skipped rebalanced (a server already serving the "
        "store picks it up within a second)",
    )  # fmt: skip
    add_order_arguments(parser)
    parser.set_defaults(func=run)


def listen(host: str, port: int | None) -> Any:
    """A listening socket: on ``port`` when given (an error if taken), else on the first
    free port from :data:`DEFAULT_PORT` on.

    Raises:
        InputError: the given port is taken, or no port of the default range is free.
    """
    # the server package (starlette, jinja2, polars: 0.47 s of CPU): `toolkit --help`
    # imports this module (tests/test_startup_imports.py)
    from toolkit.rating_server.run import bind_socket

    if port is not None:
        return bind_socket(host, port)
    for candidate in range(DEFAULT_PORT, DEFAULT_PORT + PORT_TRIES):
        try:
            return bind_socket(host, candidate)
        except InputError as exc:
            if "in use" not in exc.reason:
                raise
    last = DEFAULT_PORT + PORT_TRIES - 1
    raise InputError(None, f"no free port on {host} from {DEFAULT_PORT} to {last}: give --port")


def _serve(app: Any, sock: Any) -> None:  # pragma: no cover - replaced in unit tests
    # the server package (starlette, jinja2, polars: 0.47 s of CPU): `toolkit --help`
    # imports this module
    from toolkit.rating_server.run import serve

    serve(app, sock)


def _is_persona(args: argparse.Namespace) -> bool:
    """Whether the inputs are persona chats (``toolkit compare``'s family detection);
    games are one folder, file or database."""
    # family detection (5 ms of CPU, against `toolkit --help`'s 60 ms): --help imports this
    from toolkit.fleet.find import detect_family

    families = [detect_family(d) for d in args.dir]
    persona = [f == "persona" for f in families]
    if any(persona) and not all(persona):
        odd = args.dir[persona.index(False)]
        raise InputError(odd, "not a persona chat: serve chats and games in separate sessions")
    if all(persona):
        if args.propositions is None:
            raise InputError(
                args.dir[0], "persona chats are rated against propositions: give "
                "--propositions DIR", field="--propositions",
            )  # fmt: skip
        return True
    if len(args.dir) > 1:
        raise InputError(args.dir[1], "games are served from one folder, file or database",
                         field="DIR", value=" ".join(args.dir))  # fmt: skip
    for flag, value in (("--propositions", args.propositions), ("--personas", args.personas)):
        if value is not None:
            raise InputError(args.dir[0], "is not a persona chat: the option is for chats",
                             field=flag, value=value)  # fmt: skip
    return False


def _persona_items(args: argparse.Namespace) -> list[Any]:
    """The items of the chats (read before the store is touched: bad input, exit 2)."""
    # the persona rubric and the folder walk (polars, pydantic: 0.36 s of CPU): `toolkit
    # --help` imports this module
    from toolkit.fleet.find import chat_files
    from toolkit.rubrics.persona_items import items_of_files

    chats = (f for c in args.dir for f in chat_files(c))  # listed after the propositions
    items = items_of_files(chats, args.propositions, personas=args.personas)
    if not items:
        raise InputError(args.dir[0], "no proposition of these chats is judged on 0-9: nothing "
                         "to rate", field="--propositions", value=args.propositions)  # fmt: skip
    return items


def _persona_server(
    args: argparse.Namespace, store: Any, raters: Any, items: list[Any]
) -> tuple[Any, bool, Any]:
    """(server, created, the item ids rebuilt from the chats) of a persona session."""
    # the server, the store, the instrument (starlette, jinja2, polars, pydantic: 0.47 s of
    # CPU): `toolkit --help` imports this module
    from toolkit.rating_server import RatingServer
    from toolkit.ratings.store import SessionItem
    from toolkit.rubrics.discussion import DEFAULT_ENGAGEMENT_SCALE

    held = [
        SessionItem(i.item_id, i.text_sha256, {
            "agent": i.agent, "proposition": i.proposition, "dimension": i.dimension,
            "claim": i.claim, "source": i.source, "anchor": i.anchor,
        })
        for i in items
    ]  # fmt: skip
    ids = [i.item_id for i in items]
    session, created = store.open_session(
        ids, raters, args.overlap, items=held, **open_arguments(args, store, ids)
    )
    return RatingServer.build_persona(store, session, items, DEFAULT_ENGAGEMENT_SCALE), created, ids


def run(args: argparse.Namespace) -> int:
    """Check the games (or chats) and the store, open the session, print the links, serve."""
    # the server and the raters' draw (starlette, jinja2, polars: 0.47 s of CPU; random:
    # 2 ms) only once `rate` runs: `toolkit --help` imports this module
    from toolkit.rating_server import create_app
    from toolkit.ratings.assign import parse_raters

    persona = _is_persona(args)
    games, items = _inputs(args, persona)  # bad input stops here, exit 2
    raters = parse_raters(args.raters) if args.raters is not None else None
    if args.import_other_session and args.restore is None:
        raise InputError(None, "is for a backup named by --restore", field="--import-other-session")
    new_store = _new_store_files(args)
    try:
        store = _open_store(args)
        sock = listen(args.host, args.port)
    except BaseException:
        _remove(new_store)
        raise
    try:
        if games is None:
            server, created, have = _persona_server(args, store, raters, items)
        else:
            server, created, have = _games_server(args, store, raters, games)
        server = _add_raters(args, store, server)
        app = create_app(server)
    except BaseException:
        sock.close()
        _remove(new_store)
        raise
    port = sock.getsockname()[1]
    shown_host = f"[{args.host}]" if ":" in args.host else args.host
    base = args.public_url or f"http://{shown_host}:{port}"
    _say_session(args, store.path, server, created, have, "item" if persona else "game")
    _print_links(server.session, base)
    err = sys.stderr
    print(f"toolkit rate: serving on {shown_host}:{port} (Ctrl-C stops)", file=err)
    err.flush()
    _serve(app, sock)
    return 0


def _add_raters(args: argparse.Namespace, store: Any, server: Any) -> Any:
    """The server with ``--add-rater``'s raters added to its session (issue 41): each gets
    a private link and the open games are rebalanced (:meth:`RatingStore.add_raters`)."""
    if not args.add_rater:
        return server
    from toolkit.io.edge import visible  # the reading edge (40 ms): --help never pays it

    session = store.add_raters(args.add_rater)
    print(f"toolkit rate: added {', '.join(visible(n.strip()) for n in args.add_rater)}; the games "
          "nobody has rated, started or skipped were rebalanced", file=sys.stderr)  # fmt: skip
    return dataclasses.replace(server, session=session)


def _inputs(args: argparse.Namespace, persona: bool) -> tuple[Any, list[Any]]:
    """(the games, None for chats; the chats' items, empty for games), read before the
    store is touched: bad input stops here, exit 2."""
    if persona:
        return None, _persona_items(args)
    # the discussion loader (polars, pydantic: 0.29 s of CPU): `toolkit --help` imports this
    from toolkit.load.discussion import load_discussion

    return load_discussion(Path(args.dir[0])), []


def _store_path(args: argparse.Namespace) -> Path:
    """The store's file: ``--store``, else ``ratings.db`` beside the games (as
    :func:`toolkit.ratings.store.default_store_path` names it)."""
    if args.store:
        return Path(args.store)
    transcripts = Path(args.dir[0])
    return (transcripts if transcripts.is_dir() else transcripts.parent) / "ratings.db"


def _new_store_files(args: argparse.Namespace) -> list[Path]:
    """The files (the store, its WAL and shared memory) and folders this run would create
    for a store that does not exist yet, newest first: removed again when the command is
    refused, so a refused command leaves nothing behind. Empty for an existing store."""
    path = _store_path(args)
    if path.exists() or path.is_symlink():
        return []
    created = [Path(f"{path}{suffix}") for suffix in ("-wal", "-shm", "-journal", "")]
    folder = path.parent
    while not folder.exists():
        created.append(folder)
        folder = folder.parent
    return created


def _remove(paths: list[Path]) -> None:
    """Remove what :func:`_new_store_files` listed (files, then the folders made for
    them if empty)."""
    for path in paths:
        try:
            if path.is_dir() and not path.is_symlink():
                path.rmdir()
            else:
                path.unlink(missing_ok=True)
        except OSError:
            pass  # a folder someone else filled meanwhile stays


def _open_store(args: argparse.Namespace) -> Any:
    """The ratings store (``--store``, default beside the games), with ``--restore``'s
    backup put back into it first."""
    # the ratings store (polars, sqlite3: 0.17 s of CPU): `toolkit --help` imports this module
    from toolkit.ratings.store import RatingStore
    from toolkit.rubrics.discussion import DEFAULT_ENGAGEMENT_SCALE

    # refuses a foreign or damaged file before writing; one connection per server thread
    store = RatingStore(
        _store_path(args),
        keep_open=True,
        instrument=DEFAULT_ENGAGEMENT_SCALE.version,
    )
    if args.restore is not None:
        # all or nothing; a bad backup, or one of another session, stops here
        added = store.restore(args.restore, other_session=args.import_other_session)
        said = ", ".join(f"{n} {part}" for part, n in added.items())
        print(f"toolkit rate: restored {args.restore} ({said} rows added)", file=sys.stderr)
        if args.import_other_session:
            print(
                "toolkit rate: note: kept as another session's data: its ratings are in "
                "the backups and exports of this store, never counted here; its drafts and "
                "labels were left out",
                file=sys.stderr,
            )
    return store


def _games_server(
    args: argparse.Namespace, store: Any, raters: Any, games: Any
) -> tuple[Any, bool, Any]:
    """(server, created, the game ids read) of a session over games."""
    # the server and the instrument (starlette, jinja2, polars, pydantic: 0.47 s of CPU):
    # `toolkit --help` imports this module
    from toolkit.rating_server import RatingServer
    from toolkit.rubrics.discussion import DEFAULT_ENGAGEMENT_SCALE

    have = games.game_ids
    session, created = store.open_session(
        have, raters, args.overlap, **open_arguments(args, store, have)
    )
    return RatingServer.build(store, session, games, DEFAULT_ENGAGEMENT_SCALE), created, have


def _say_session(
    args: argparse.Namespace, path: Any, server: Any, created: bool, have: Any, unit: str
) -> None:
    """On stderr: the session created or resumed, its size, the games (or items) of the
    session missing from DIR or changed since, those of DIR not in it, a plain-HTTP
    warning."""
    session = server.session
    missing = sorted(set(session.game_ids) - set(have))
    extra = sorted(set(have) - set(session.game_ids))
    where = " ".join(args.dir)
    err = sys.stderr
    verb = "created" if created else "resumed"
    print(f"toolkit rate: {verb} the session in {path}", file=err)
    print(
        f"toolkit rate: {len(session.game_ids)} {unit}(s), {len(session.raters)} rater(s), "
        f"{session.overlap} per {unit}, seed {session.seed}",
        file=err,
    )
    draws = server.store.draws()
    if draws.height and draws["draw_order"][0] == "informative":
        print(f"toolkit rate: informative order: {draws['drawn'].sum()} of {draws.height} "
              f"{unit}(s) drawn for the raters (probabilities in the store)", file=err)  # fmt: skip
    for gid in missing:
        print(f"toolkit rate: warning: {unit} {gid} of the session is not in {where}", file=err)
    if server.changed:
        _say_changed(server.changed)
    if extra:
        print(
            f"toolkit rate: note: {len(extra)} {unit}(s) in {where} are not in this session "
            "(a new --store starts a session with them)",
            file=err,
        )
    if args.host not in ("127.0.0.1", "localhost", "::1") and args.public_url is None:
        print(
            f"toolkit rate: warning: serving {args.host} over plain HTTP: put it behind a TLS "
            "reverse proxy and give --public-url (docs/ratings.md)",
            file=err,
        )


def _say_changed(changed: tuple[str, ...]) -> None:
    """The persona items changed since the session began (not served), on stderr: the
    first :data:`CHANGED_SHOWN` named, the rest counted."""
    # the text view (polars: 0.17 s of CPU): `toolkit --help` imports this module
    from toolkit.views.text import wrap_item

    shown = ", ".join(changed[:CHANGED_SHOWN])
    more = len(changed) - CHANGED_SHOWN
    said = (
        f"{len(changed)} item(s) changed since the session began (the text the "
        f"judge reads is not the text rated), not served: {shown}"
        + (f" and {more} more (the organiser's page lists them)" if more > 0 else "")
    )
    for line in wrap_item(said, 80, bullet="toolkit rate: warning: ", indent=2):
        print(line, file=sys.stderr)


def _print_links(session: Any, base: str) -> None:
    """On stdout: each rater's private link and the organiser's."""
    from toolkit.io.edge import visible  # the reading edge (40 ms): --help never pays it

    out = sys.stdout
    print("Private links (send each rater only their own):", file=out)
    names = {rater: visible(rater) for rater in session.raters}  # ESC, U+202E as escapes
    width = max(len(n) for n in names.values())
    for rater, token in session.raters.items():
        print(f"  {names[rater]:<{width}}  {base}/r/{token}", file=out)
    print(f"Organiser: {base}/o/{session.organiser_token}", file=out)
    out.flush()
