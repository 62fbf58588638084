"""``toolkit view`` of object storage (moto's S3 server on 127.0.0.1): the runs and logs
found and scored from a bucket are the same, with the same verdicts and statuses, as from
the same folders on disk."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import ITERATION_LOGS, S3, SAMPLE_RUNS

from toolkit.cli import main

CALL = re.compile(r"^window\.__tk\.\w+\((.*)\);\n$", re.S)


def _rows(site: Path) -> dict[str, tuple[Any, ...]]:
    """Index rows by the run's last path part: (family, rubric, verdict, statuses)."""
    manifest = json.loads(f"[{CALL.match((site / 'data' / 'manifest.js').read_text())[1]}]")[0]
    text = (site / "data" / "index-0.js").read_text(encoding="utf-8")
    _, rows = json.loads(f"[{CALL.match(text)[1]}]")
    out = {}
    for r in rows:
        names = [k for k, _ in manifest["dimsets"][r[6][0]]]
        out[r[0].rsplit("/", 1)[-1]] = (r[1], r[3], r[5], dict(zip(names, r[6][1:], strict=True)))
    return out


@pytest.mark.parametrize(
    ("local", "prefix", "count"),
    [(SAMPLE_RUNS / "universes", "view/universes", 3),
     (ITERATION_LOGS / "tally-loop", "view/logs/tally-loop", 6)],
    ids=["simulation", "outcome"],
)  # fmt: skip
def test_a_site_of_a_bucket_matches_the_site_of_the_disk(
    s3: S3, local: Path, prefix: str, count: int, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    url = s3.upload(local, prefix)
    remote_site, local_site = tmp_path / "remote", tmp_path / "local"
    assert main(["view", url, "--storage-option", s3.option, "-o", str(remote_site)]) == 0
    assert main(["view", str(local), "-o", str(local_site)]) == 0
    capsys.readouterr()
    remote, here = _rows(remote_site), _rows(local_site)
    assert len(remote) == count
    assert remote == here
