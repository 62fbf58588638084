"""Cheap to redo (issue 27): changing the threshold or the gate re-runs ``toolkit
calibrate`` from the stored scores with zero judge calls. The judge's scores are read
from the scores file the judge run wrote once; no judge is built, asked or imported.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, SAMPLE_RUNS

import toolkit.judge
from toolkit.cli import main
from toolkit.judge import RecordedJudge, RecordingJudge
from toolkit.judge.live import _SdkJudge

SCORES = SAMPLE_RUNS / "calibration" / "scores.csv"
THRESHOLDS = ("3", "5", "7")
GATES = (("min-alpha", "0.5"), ("min-alpha", "0.667"), ("min-alpha", "0.99"))
HUMANS = {
    "ana": {"a": 1, "b": 3, "c": 5, "d": 7, "e": 8, "f": 2},
    "ben": {"a": 2, "b": 3, "c": 6, "d": 7, "e": 9, "f": 2},
    "cy": {"a": 1, "b": 4, "c": 5, "d": 6, "e": 8, "f": 3},
}


def _close_session(path: Path) -> Path:
    """Three humans who nearly agree, and a judge that gives ana's own scores."""
    raters = HUMANS | {"judge": HUMANS["ana"]}
    lines = ["item,rater,score"] + [
        f"{i},{r},{v}" for r, scores in raters.items() for i, v in scores.items()
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


class CountingJudge:
    """A judge stand-in that counts every request it is asked (and answers none)."""

    calls = 0

    def judge(self, requests: Sequence[Any], **_: Any) -> list[Any]:
        CountingJudge.calls += len(requests)
        raise AssertionError("calibrate asked a judge")


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> type[CountingJudge]:
    """Every way a judge could be asked, counted: built from a spec, replayed from a
    cassette, recorded, or a live SDK judge."""
    CountingJudge.calls = 0
    monkeypatch.setattr(toolkit.judge, "judge_from_spec", lambda *a, **k: CountingJudge())
    for cls in (RecordedJudge, RecordingJudge, _SdkJudge):
        monkeypatch.setattr(cls, "judge", CountingJudge.judge)
    return CountingJudge


def test_a_new_threshold_and_a_new_gate_rerun_from_the_scores_with_zero_judge_calls(
    counted: type[CountingJudge], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    confusions = {}
    for threshold in THRESHOLDS:
        args = ["calibrate", str(SCORES), "--format", "json", "--threshold", threshold]
        assert main(args) == 0
        confusions[threshold] = json.loads(capsys.readouterr().out)["confusion"]
    close = _close_session(tmp_path / "close.csv")
    gates = {}
    for words in GATES:
        code = main(["calibrate", str(close), "--gate", *words, "--junit",
                     str(tmp_path / "j.xml"), "--html", str(tmp_path / "p.html")])  # fmt: skip
        gates[words[1]] = code
        capsys.readouterr()
    assert counted.calls == 0
    # each re-run did decide anew: another threshold, another table; another gate, another exit
    assert len({json.dumps(c, sort_keys=True) for c in confusions.values()}) == len(THRESHOLDS)
    assert [confusions[t]["threshold"] for t in THRESHOLDS] == [3.0, 5.0, 7.0]
    # a judge with ana's own scores passes a lenient gate; no panel that disagrees at all
    # reaches alpha 0.99
    assert gates == {"0.5": 0, "0.667": 0, "0.99": 1}
    assert (tmp_path / "j.xml").exists() and (tmp_path / "p.html").exists()


def test_calibrate_imports_no_judge_code_at_all(tmp_path: Path) -> None:
    """In a fresh interpreter: every output of calibrate, and not one judge module."""
    code = (
        "import json, sys\n"
        "from toolkit.cli import main\n"
        f"codes = [main(['calibrate', {str(SCORES)!r}, '--threshold', t, '--gate', 'min-alpha',"
        f" '--junit', {str(tmp_path / 'j.xml')!r}, '--html', {str(tmp_path / 'p.html')!r},"
        " '--format', 'json']) for t in ('4', '6')]\n"
        "mods = sorted(m for m in sys.modules if m.startswith('toolkit.judge')"
        " or m.split('.')[0] in ('anthropic', 'openai', 'httpx'))\n"
        "print(json.dumps({'codes': codes, 'judge_modules': mods}), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    report = json.loads(done.stderr.strip().splitlines()[-1])
    assert report == {"codes": [1, 1], "judge_modules": []}
