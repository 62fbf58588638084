"""``toolkit view DIR... [-o SITE]``: one offline site for every run under DIR.

Finds every simulation run, iteration log, discussion game and persona
chat under the folders (or object-storage URLs), scores each with its
family's rubric (persona chats with the recorded judge of a persona kit,
never a live one) and writes a static site: an index of every run (sort,
filter, filter by value such as groundedness < 0.9, search inside the
transcripts), pages from each verdict down to the tick, message or
iteration behind it and its raw record, and a page of the experiments
(treatment vs control) found beside the runs. The site opens from file://
with the network off (no CDN, no server), so it can be zipped, attached
to a CI run or put on any static host.

With -o SITE the site is written there: a folder, or a URL (s3://...,
reached with the same --storage-option) its files are put to. Without
it, it is written to a temporary folder and served on 127.0.0.1 until
Ctrl-C (which removes the folder); the address is printed. Exit 0 when
written (or served and stopped), 2 on bad input.

With --watch the folders are looked at again every --interval seconds and
the site rebuilt when runs arrive or change; only those are scored again,
and an open page reloads its index (on a run's page it offers a reload).
"""

from __future__ import annotations

import argparse
import functools
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkit.cli import help_text
from toolkit.cli._output import open_output, put_folder
from toolkit.cli._scale import storage_options
from toolkit.cli._view_watch import add_watch_arguments, check_watch, watch
from toolkit.errors import InputError

if TYPE_CHECKING:
    from toolkit.fleet.families import PersonaKit
    from toolkit.io.source import Source


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``view`` subcommand."""
    p = sub.add_parser(
        "view",
        help="an offline site of every run under the folders (index, drill-down, search)",
        description=help_text(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "paths", metavar="DIR", nargs="+", help="folders, files or URLs (s3://...) to look in"
    )
    p.add_argument(
        "-o",
        "--out",
        metavar="SITE",
        help="write the site into this folder or URL (else: serve it)",
    )
    p.add_argument(
        "--compare",
        metavar="FILE",
        help="a `toolkit compare ... --format json` result: adds its page (forest plot, flips)",
    )
    p.add_argument(
        "--calibration",
        metavar="FILE",
        help="a `toolkit calibrate ... --format json` result: adds its page (agreement, bias, "
        "disagreements linked to their runs); a calibration.json beside the runs is found",
    )
    evidence = p.add_argument_group(
        "evidence the commands use",
        "The same evidence `toolkit outcome` and `toolkit discussion` take, so the\n"
        "site scores what they score. A ratings file named ratings.csv or\n"
        "ratings.json (or a ratings store ratings.db) beside game files is found.",
    )
    evidence.add_argument(
        "--repo",
        metavar="DIR",
        help="the git repository the iteration logs' commits live in (as toolkit outcome --repo)",
    )
    evidence.add_argument(
        "--ratings",
        metavar="FILE",
        help="engagement ratings for the games (as toolkit discussion --ratings): CSV, JSON "
        "or a ratings store; over any found beside the games",
    )
    kit = p.add_argument_group(
        "persona chats",
        "A folder holding propositions/ and cassette.json (and personas.yaml,\n"
        "baselines/) scores the chats under it; these name a kit for the chats\n"
        "that have none. Only a recorded judge: toolkit view makes no live call.",
    )
    kit.add_argument("--propositions", metavar="DIR", help="folder of proposition YAML files")
    kit.add_argument("--cassette", metavar="FILE", help="the judge's recorded answers (JSON)")
    kit.add_argument("--personas", metavar="FILE", help="personas YAML/JSON (names, specs)")
    kit.add_argument("--baseline", metavar="DIR", help="folder of golden baseline JSON files")
    p.add_argument(
        "--port",
        type=int,
        default=8765,
        help="without -o: the port on 127.0.0.1 to serve on (0: any free port; default 8765)",
    )
    p.add_argument(
        "--storage-option",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        help="an fsspec option for URL sources, repeatable (e.g. endpoint_url=http://host:9000)",
    )
    add_watch_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Collect, write, and (without ``-o``) serve; with ``--watch``, again as runs arrive."""
    # The finder, the loaders, the rubrics and the site writer (polars): every toolkit
    # call imports this module, and --help stays light (tests/test_startup_imports.py).
    from toolkit.fleet.view import load_calibration, load_compare

    if not 0 <= args.port <= 65535:
        raise InputError(None, "must be a port number (0-65535)", field="--port", value=args.port)
    check_watch(args)
    options = storage_options(args)
    dest = open_output(args.out, options) if args.out is not None else None
    if args.watch and dest is not None and dest.disk is None:
        raise InputError(
            None, "--watch writes a local folder, not a URL", field="-o", value=args.out
        )
    compare = load_compare(args.compare) if args.compare else None
    given = load_calibration(args.calibration) if args.calibration else None

    def gather(memo: Any, sink: Any = None) -> Any:
        from toolkit.fleet.view import collect

        return collect(args.paths, options, kit=_kit(args), repo=args.repo,
                       ratings=args.ratings, memo=memo, sink=sink)  # fmt: skip

    def site_of(collected: Any) -> dict[str, Any]:
        return _site(args, collected, compare, given)

    if dest is not None:
        if args.watch:
            return watch(args, gather, lambda c, w: _write_local(c, dest, site_of(c), w))
        where, collected = _write(gather, dest, site_of)
        tested = len(collected.experiments)
        also = f" and {tested} experiment file(s)" if tested else ""
        print(f"toolkit view: wrote {collected.count} run(s){also}: {where}")
        return 0
    import tempfile  # 9 ms of --help's 60 (python -X importtime): only when serving

    folder = Path(tempfile.mkdtemp(prefix="toolkit-view-"))
    if args.watch:
        return _serve(folder, args.port, None, lambda: watch(
            args, gather, lambda c, w: _write_folder(c, folder, site_of(c), w)))  # fmt: skip
    try:
        _, collected = _streamed(gather, folder, site_of)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)  # ours: made by mkdtemp above
        raise
    return _serve(folder, args.port, collected.count)


def _site(
    args: argparse.Namespace,
    collected: Any,
    compare: dict[str, Any] | None,
    given: dict[str, Any] | None,
) -> dict[str, Any]:
    """What the site shows beside the runs (notes, compare, calibration); the notes are
    printed."""
    from toolkit.fleet.view import calibration_links

    notes = list(collected.notes)
    calibration = given or collected.calibration
    if given is not None and collected.calibration is not None:
        notes.append(f"calibration not shown: {collected.calibration_source} (--calibration "
                     f"names {args.calibration})")  # fmt: skip
    if calibration is not None:
        links = calibration_links(calibration, collected.linkable())
        calibration = {**calibration, "links": links}
    _print_notes(notes)
    return {"notes": notes, "compare": compare, "calibration": calibration,
            "experiments": collected.experiments}  # fmt: skip


def _write_local(collected: Any, dest: Source, site: dict[str, Any], record: dict[str, Any]) -> int:
    """One round of ``--watch`` into the local output folder; how many runs."""
    assert dest.disk is not None  # run() refuses a URL with --watch
    return _write_folder(collected, dest.disk, site, record)


def _write_folder(
    collected: Any, folder: Path, site: dict[str, Any], record: dict[str, Any]
) -> int:
    """The site of ``collected`` written into ``folder`` with the watch record."""
    from toolkit.views.site import write_site

    write_site(collected.runs, folder, **site, watch=record)
    return len(collected.runs)


def _streamed(
    gather: Callable[..., Any], folder: Path, site_of: Callable[[Any], dict[str, Any]]
) -> tuple[Path, Any]:
    """The site gathered straight into ``folder``: each run's files written as it is
    made (never every run's records held), then the index, search and pages; where its
    index is, and what was gathered."""
    from toolkit.views.site import SiteWriter  # the site writer (polars): not for --help

    with SiteWriter(folder) as writer:
        writer.check()  # a refused folder before any run is read, not runs "left out"
        collected = gather(None, writer.add)
        return writer.finish(**site_of(collected)), collected


def _write(
    gather: Callable[..., Any], dest: Source, site_of: Callable[[Any], dict[str, Any]]
) -> tuple[str, Any]:
    """The site written into the output's folder, or written here and put through the
    output's Source (a URL); where its index is, and what was gathered."""
    import tempfile  # not paid by --help (python -X importtime)

    if dest.disk is not None:
        index, collected = _streamed(gather, dest.disk, site_of)
        return str(index), collected
    with tempfile.TemporaryDirectory(prefix="toolkit-view-") as tmp:
        _, collected = _streamed(gather, Path(tmp), site_of)
        put_folder(Path(tmp), dest)
    return dest.url(dest.join(dest.root, "index.html")), collected


def _print_notes(notes: list[str]) -> None:
    """One ``toolkit view: note: ...`` line per note on standard error; on a terminal,
    wrapped to its width at word boundaries (a path or URL is never cut)."""
    # textwrap and the text views (polars): not paid by --help (python -X importtime).
    import textwrap

    from toolkit.views.text import terminal_style

    width, _ = terminal_style(sys.stderr)
    for note in notes:
        line = f"toolkit view: note: {note}"
        if width:
            line = textwrap.fill(line, width=max(width - 1, 40), subsequent_indent="    ",
                                 break_long_words=False, break_on_hyphens=False)  # fmt: skip
        print(line, file=sys.stderr)


def _kit(args: argparse.Namespace) -> PersonaKit | None:
    """The persona kit named on the command line (``None`` without one)."""
    from toolkit.fleet.families import PersonaKit  # 17 ms of regexes: not paid by --help

    given = [f for f in ("propositions", "cassette", "personas", "baseline") if getattr(args, f)]
    if not given:
        return None
    missing = [f for f in ("propositions", "cassette") if f not in given]
    if missing:
        raise InputError(
            None, "a persona kit needs both --propositions and --cassette",
            field=f"--{missing[0]}", value=None,
        )  # fmt: skip
    return PersonaKit(args.propositions, args.cassette, args.personas, args.baseline)


def _serve(
    folder: Path, port: int, count: int | None, then: Callable[[], int] | None = None
) -> int:
    """Serve ``folder`` on 127.0.0.1 until interrupted; with ``then`` (a watch), serve
    from a thread while ``then`` runs, and stop when it returns."""
    import http.server  # 190 ms (python -X importtime): --help and -o never pay it
    import threading

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            return

    class Server(http.server.ThreadingHTTPServer):
        allow_reuse_address = True
        daemon_threads = True

    handler = functools.partial(Quiet, directory=str(folder))
    try:
        server = Server(("127.0.0.1", port), handler)
    except OSError as err:
        raise InputError(
            None, f"cannot listen on 127.0.0.1:{port} ({err.strerror})", field="--port", value=port
        ) from None
    with server:
        bound = server.server_address[1]
        runs = "the site" if count is None else f"{count} run(s)"
        print(f"toolkit view: {runs} at http://127.0.0.1:{bound}/ (Ctrl-C stops)")
        print(f"toolkit view: the files are in {folder}", flush=True)
        try:
            if then is None:
                server.serve_forever()
            else:
                threading.Thread(target=server.serve_forever, daemon=True).start()
                then()
        except KeyboardInterrupt:
            pass
        finally:
            if then is not None:
                server.shutdown()
            shutil.rmtree(folder, ignore_errors=True)  # ours: made by mkdtemp in run()
    return 0
