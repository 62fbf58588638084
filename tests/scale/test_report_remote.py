"""A report of a run in object storage: the URL reaches the notebook's loader as it is
(never turned into a local path), and the report scores the run as from the disk."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from conftest import S3, SAMPLE_RUNS

from toolkit.reports import prepare

CLI = [sys.executable, "-c", "import sys; from toolkit.cli import main; sys.exit(main())"]


def test_a_url_input_is_passed_to_the_notebook_unchanged() -> None:
    url = "s3://bucket/sweep/run-0001"
    assert prepare("simulation", [url]).parameters["run"] == url


def test_report_of_a_run_in_s3_scores_it_as_on_disk(s3: S3, tmp_path: Path) -> None:
    url = s3.upload(SAMPLE_RUNS / "universes" / "ashfall", "reports/ashfall")
    # The usual chain: the endpoint and credentials come from the environment.
    env = {**os.environ, "AWS_ENDPOINT_URL": s3.endpoint}
    pages = {}
    for name, source in (("disk", str(SAMPLE_RUNS / "universes" / "ashfall")), ("s3", url)):
        out = tmp_path / f"{name}.html"
        done = subprocess.run(
            [*CLI, "report", "simulation", source, "-o", str(out)],
            env=env, capture_output=True, text=True, timeout=600, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        pages[name] = out.read_text(encoding="utf-8")
    # The text scorecard the report shows is the same, word for word.
    cards = {
        name: re.findall(r"<pre>(Ashfall · last \d+ ticks.*?)</pre>", page, re.S)
        for name, page in pages.items()
    }
    assert len(cards["disk"]) == 1 and "Verdict: FAILED" in cards["disk"][0]
    assert cards["s3"] == cards["disk"]
