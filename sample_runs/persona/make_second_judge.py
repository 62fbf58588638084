"""Record a second judge's cassette for the week-1 radio session: the worked example of
``toolkit rescore --judge A --judge B`` (docs/rescore.md).

The second judge stands in for a cheaper model swapped in for the first: it reads each
request as the scripted sample judge does (make_samples.py), then marks adherence two
points lower and fluency one point lower (never below 0; counts and the other dimensions
as the first judge has them), so every score it touches moves and a few statuses flip.
The same inputs always record the same bytes.

Usage:
    python sample_runs/persona/make_second_judge.py [OUT_DIR]
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import toolkit as tk
from toolkit.judge import JudgeRequest, JudgeResult, RecordingJudge

HERE = Path(__file__).resolve().parent
#: Points the second judge takes off, by dimension.
HARSHER = {"adherence": 2, "fluency": 1}


def _first_judge() -> object:
    spec = importlib.util.spec_from_file_location("make_samples", HERE / "make_samples.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_samples"] = module
    spec.loader.exec_module(module)
    return module.ScriptedJudge()


class SecondJudge:
    """The scripted sample judge, harsher on adherence and fluency."""

    name = "scripted-sample-judge/2-harsher"

    def __init__(self) -> None:
        self.first = _first_judge()

    def judge(
        self, requests: Sequence[JudgeRequest], *, double_check: bool = False
    ) -> list[JudgeResult]:
        results = self.first.judge(requests, double_check=double_check)  # type: ignore[attr-defined]
        out = []
        for request, result in zip(requests, results, strict=True):
            off = HARSHER.get(request.dimension, 0)
            if off and request.kind != "count" and result.value is not None:
                result = replace(result, value=max(0, result.value - off))
            out.append(result)
        return out


def main(out: Path = HERE) -> None:
    """Record ``second.cassette.json``: the week-1 session judged by :class:`SecondJudge`."""
    cassette = out / "second.cassette.json"
    cassette.unlink(missing_ok=True)
    judge = RecordingJudge(SecondJudge(), cassette)
    props = tk.load_propositions(HERE / "propositions")
    tk.score_persona(tk.load_chat(HERE / "radio-week1.jsonl"), props, judge, progress=False)
    print(f"recorded {len(tk.RecordedJudge(cassette))} judgements into {cassette}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
