"""The site's index carries each run's measurement epoch (the ``epoch`` column), beside
the rubric and version the page groups and labels it by."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from toolkit.epoch import stamp
from toolkit.scorecard import Dimension, Scorecard
from toolkit.views.site import SiteRun, write_site

CALL = re.compile(r"^window\.__tk\.(\w+)\((.*)\);\n$", re.S)


def _payload(path: Path) -> list[Any]:
    match = CALL.match(path.read_text(encoding="utf-8"))
    assert match, f"{path} is not one window.__tk call"
    args: list[Any] = json.loads(f"[{match.group(2)}]")
    return args


def _card(subject: str, version: str) -> Scorecard:
    dims = [Dimension("dim_a", "Dim A", 0.5, "WARN", "fine", ">= 0.9", "< 0.2")]
    return Scorecard(
        rubric="test", rubric_version=version, subject=subject, title=subject,
        verdict="DEGRADED", verdict_reason="warn",
        dimensions=Scorecard.dimensions_frame(subject, dims),
    )  # fmt: skip


def test_each_index_row_carries_its_epoch(tmp_path: Path) -> None:
    runs = [
        SiteRun(id="old", family="simulation", card=stamp(_card("old", "1.0.0"), "aaaaaaaaaaaa")),
        SiteRun(id="new", family="simulation", card=stamp(_card("new", "1.1.0"), "bbbbbbbbbbbb")),
        SiteRun(id="none", family="simulation", card=None, note="not scored"),
    ]
    write_site(runs, tmp_path / "site")
    (man,) = _payload(tmp_path / "site" / "data" / "manifest.js")
    _, rows = _payload(tmp_path / "site" / "data" / "index-0.js")
    cols = man["columns"]
    epochs = {r[cols.index("id")]: r[cols.index("epoch")] for r in rows}
    assert epochs == {"old": "aaaaaaaaaaaa", "new": "bbbbbbbbbbbb", "none": None}
