"""`toolkit rescore --judge`: a persona session scored under two rubrics from one set of
judge answers (no second call), judged by a second recorded judge, and the dry run."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest
from conftest import SAMPLE_RUNS

from toolkit.cli import main
from toolkit.fleet.rescore_persona import rescore_persona
from toolkit.judge import JudgeRequest, JudgeResult, RecordedJudge

PERSONA = SAMPLE_RUNS / "persona"
SESSION = PERSONA / "radio-week1.jsonl"
FIRST = f"recorded:{PERSONA / 'cassette.json'}"
SECOND = f"recorded:{PERSONA / 'second.cassette.json'}"
BASE = [str(SESSION), "--propositions", str(PERSONA / "propositions")]


class AnswersOnce:
    """The sample cassette, but a request asked a second time raises."""

    name = "once"

    def __init__(self) -> None:
        self.inner = RecordedJudge(PERSONA / "cassette.json")
        self.asked: Counter[str] = Counter()

    def judge(
        self, requests: Sequence[JudgeRequest], *, double_check: bool = False
    ) -> list[JudgeResult]:
        for r in requests:
            key = r.key(double_check=double_check)
            if self.asked[key]:
                raise AssertionError(f"the judge was asked {r.proposition_id} again")
            self.asked[key] += 1
        return self.inner.judge(requests, double_check=double_check)


def test_a_rubric_only_change_makes_no_judge_call() -> None:
    judge = AnswersOnce()
    stricter = {"version": "1.1-strict", "green_at": 8.5}
    result = rescore_persona(SESSION, PERSONA / "propositions", judge, rubric_b=stricter)
    assert result.judge_calls == 0
    assert sum(judge.asked.values()) == 60  # the session's requests, each asked once
    # green_at 7 -> 8.5 (the 0-9 dimensions; red_below 5 unchanged): a value in
    # [7, 8.5) turns OK -> WARN, nothing else moves
    flips = result.dimensions.filter(result.dimensions["flipped"])
    for row in flips.iter_rows(named=True):
        assert 7.0 <= row["value_a"] < 8.5
        assert (row["status_a"], row["status_b"]) == ("OK", "WARN")
    unflipped = result.dimensions.filter(
        ~result.dimensions["flipped"]
        & result.dimensions["value_a"].is_between(7.0, 8.5, closed="left")
        & (result.dimensions["dimension"] != "ideas_quantity")
    )
    assert unflipped.height == 0
    assert flips.height >= 1


def test_a_second_recorded_judge(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["rescore", *BASE, "--judge", FIRST, "--judge", SECOND, "--format", "json"])
    out = capsys.readouterr().out
    assert code == 0
    doc = json.loads(out)
    assert doc["judge_calls"] == 14  # 60 requests in batches of up to 10 per agent
    dims = {d["dimension"]: d for d in doc["dimensions"]}
    # the second judge marks fluency one point lower on every proposition: every
    # agent's fluency is exactly 1 lower
    assert dims["fluency"]["mean_delta"] == pytest.approx(-1.0)
    assert dims["consistency"]["changed"] == 0
    assert any(line.startswith("judge.cassette") for line in doc["differences"])


def test_the_dry_run_counts_and_makes_no_call(capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path) -> None:  # fmt: skip
    missing = tmp_path / "never-recorded.json"  # a cassette that would fail if read
    missing.write_text('{"format": "toolkit-judge-cassette", "version": 1, "recordings": {}}')
    code = main(["rescore", *BASE, "--judge", FIRST, "--judge", f"recorded:{missing}",
                 "--dry-run"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert "would make 14 judge call(s) (60 proposition request(s)); none was made" in " ".join(
        out.split()
    )
    code = main(["rescore", *BASE, "--judge", FIRST, "--rubric", "1.1", "--rubric", "1.1",
                 "--dry-run"])  # fmt: skip
    assert code == 0 and "0 judge calls" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args",
    [
        [str(SESSION), "--judge", FIRST, "--judge", SECOND],  # no --propositions
        [*BASE, "--judge", FIRST],  # one judge, no rubrics
        [*BASE, "--judge", FIRST, "--judge", SECOND, "--judge", FIRST],
    ],
)
def test_bad_persona_input_exits_2(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["rescore", *args])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1
