"""The options every fleet command shares for object storage and the Dask engine."""

from __future__ import annotations

import argparse
from typing import Any


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def add_scale_arguments(p: argparse.ArgumentParser) -> None:
    """``--engine``, ``--scheduler``, ``--partition-size`` and ``--storage-option``."""
    p.add_argument(
        "--engine",
        choices=("local", "dask"),
        default="local",
        help="with --all: score here (local, default) or on a Dask cluster (dask)",
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="with --engine dask: a running Dask scheduler (default: start a local cluster)",
    )
    p.add_argument(
        "--partition-size",
        metavar="N",
        type=_positive,
        help="with --engine dask: runs per task (default: about two tasks per worker)",
    )
    add_storage_option(p)


def add_storage_option(p: argparse.ArgumentParser) -> None:
    """``--storage-option`` alone (a command that scores in this process only)."""
    p.add_argument(
        "--storage-option",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        help="an fsspec option for URL sources, repeatable (e.g. endpoint_url=http://host:9000)",
    )


def storage_options(args: argparse.Namespace) -> dict[str, Any]:
    """The parsed ``--storage-option`` values."""
    # the io package's Source (the reading edge, sqlite3, csv: 25 ms of CPU) only when a
    # command runs: `toolkit --help` imports this module
    from toolkit.io.source import parse_storage_options

    return parse_storage_options(args.storage_option)
