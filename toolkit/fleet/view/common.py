"""The small conversions every family's site records share: a cell as text or as an ISO
time, the bytes under a path, and what a family's file is called in a note."""

from __future__ import annotations

import os
from typing import Any

from toolkit.io.source import open_source


def size_of(path: str) -> int | None:
    """Bytes under a local file or folder (``None`` for a URL)."""
    p = open_source(path).disk
    if p is None:
        return None
    if p.is_file():
        return p.stat().st_size
    total = 0
    for folder, _, files in os.walk(p):
        for name in files:
            try:
                total += os.lstat(os.path.join(folder, name)).st_size
            except OSError:
                continue
    return total


def iso(value: Any) -> str | None:
    """A time cell as ISO text (``None`` stays ``None``)."""
    if value is None:
        return None
    shown = getattr(value, "isoformat", None)
    return str(shown()) if shown else str(value)


def text(value: Any) -> str:
    """A cell as text (``""`` for ``None``)."""
    return "" if value is None else str(value)


def what(family: str) -> str:
    """What a file of ``family`` is called in a note (``left out as not ...``)."""
    return {
        "persona": "a persona chat", "discussion": "a discussion game file",
        "outcome": "an outcome iteration log", "calibration": "a toolkit calibrate result",
        "experiment": "experiment results",
    }.get(family, f"a {family} run")  # fmt: skip
