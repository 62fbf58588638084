"""``toolkit report``: a curated notebook run for some input, as one standalone HTML file."""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path
from typing import TextIO

from toolkit.cli._output import open_output, put_file

#: Stands for the template names in the help texts below: they are filled in when the help
#: is printed, so building the parser (every ``toolkit`` call) need not read the registry.
_NAMES = "{template names}"


def _template_names() -> str:
    from toolkit.reports import TEMPLATES  # the registry: read only when help is printed

    return ", ".join(TEMPLATES)


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, with :data:`_NAMES` replaced before the text is wrapped."""

    def _format_text(self, text: str) -> str:
        return super()._format_text(text.replace(_NAMES, _template_names()))

    def _expand_help(self, action: argparse.Action) -> str:
        return super()._expand_help(action).replace(_NAMES, _template_names())


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``report`` subcommand."""
    names = _NAMES
    p = sub.add_parser(
        "report",
        formatter_class=_HelpFormatter,
        help="render a notebook template for a run into one standalone, offline HTML report",
        description=(
            f"Execute a report template ({names}, or the path of any notebook with a "
            "cell tagged 'parameters') with INPUT... injected as its parameters, and write "
            "one self-contained HTML file: code hidden, interactive charts that work "
            "offline, a header naming the input, the toolkit and rubric versions and the "
            "time. Exit 0 when written; exit 2 on bad input (the notebook's one-line error; "
            "no file is left behind)."
        ),
    )
    p.add_argument("template", metavar="TEMPLATE", help=f"{names}, or a notebook path")
    p.add_argument("inputs", metavar="INPUT", nargs="+", help="the run(s) the report is about")
    p.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="the HTML file, or a URL (s3://...) it is put to (default: TEMPLATE-INPUT.html)",
    )
    p.add_argument(
        "--param",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        help="set a notebook parameter (VALUE read as YAML: 100, true, null, [a, b]); repeatable",
    )
    p.add_argument("--show-code", action="store_true", help="keep the code cells in the report")
    p.add_argument("--timeout", type=int, default=600, help="seconds a cell may run (default 600)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Render the report and print where it was written (on a terminal, a status line
    says which cell runs meanwhile, cleared when done or failed)."""
    progress = _TerminalProgress.on(sys.stderr)
    try:
        return _render(args, progress)
    finally:
        if progress is not None:
            progress.clear()


def _render(args: argparse.Namespace, progress: _TerminalProgress | None) -> int:
    _without_iri_parsers()
    # after the line above: nbformat then skips jsonschema's iri parsers (about 2 s)
    from toolkit.reports import parse_param, render_report

    params = dict(parse_param(p) for p in args.param)
    dest = open_output(args.output) if args.output is not None else None
    if dest is None or dest.disk is not None:
        path = render_report(
            args.template,
            args.inputs,
            output=None if dest is None else dest.disk,
            params=params,
            show_code=args.show_code,
            timeout=args.timeout,
            progress=progress,
        )
        if progress is not None:
            progress.clear()  # the status line gone before the path is printed
        print(path, file=sys.stdout)
        return 0
    import tempfile  # 9 ms of --help's 60 (python -X importtime): only for a URL

    with tempfile.TemporaryDirectory(prefix="toolkit-report-") as tmp:
        local = render_report(
            args.template,
            args.inputs,
            output=Path(tmp) / (dest.name or "report.html"),
            params=params,
            show_code=args.show_code,
            timeout=args.timeout,
            progress=progress,
        )
        if progress is not None:
            progress.clear()
        print(put_file(local, dest), file=sys.stdout)
    return 0


class _TerminalProgress:
    """One status line on a terminal, rewritten in place as the report's cells run
    ("toolkit report: cell 3 of 14 · tk.load_universe(...)"); nothing when not a terminal
    (a CI log gets the path only)."""

    def __init__(self, stream: TextIO, width: int) -> None:
        self.stream, self.width = stream, width

    @classmethod
    def on(cls, stream: TextIO) -> _TerminalProgress | None:
        if not stream.isatty():
            return None
        return cls(stream, shutil.get_terminal_size().columns)

    def __call__(self, done: int, total: int, what: str) -> None:
        shown = "".join(ch if ch.isprintable() else " " for ch in what)
        line = f"toolkit report: cell {min(done + 1, total)} of {total} · {shown}"
        if done >= total:
            line = f"toolkit report: {total} cells run · {shown}"
        line = line[: max(self.width - 1, 20)]
        self.stream.write("\r\x1b[2K" + line)
        self.stream.flush()

    def clear(self) -> None:
        self.stream.write("\r\x1b[2K")
        self.stream.flush()


def _without_iri_parsers() -> None:
    """Spare this process jsonschema's "iri" format parsers.

    When the optional ``rfc3987_syntax`` is installed (Jupyter's event schemas ask for
    it), importing jsonschema builds dozens of Lark parsers for that one format: about
    2 s of CPU in every report (python-jsonschema/jsonschema#1428). nbformat's notebook
    schema never uses the format, so the CLI's own process (never a user's kernel, never
    the notebook being run) hides the module before nbformat imports jsonschema, which
    then leaves that format unchecked.
    """
    if "jsonschema" not in sys.modules:
        sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]
