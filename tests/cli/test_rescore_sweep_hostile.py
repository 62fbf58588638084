"""``toolkit rescore --sweep`` given values no rubric can take: one line, exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SAMPLE_RUNS

from toolkit.cli import main


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        ("groundedness.ok_min=2:4:1", "2: Input should be less than or equal to 1"),
        ("groundedness.ok_min=-3:-1:1", "-3: Input should be greater than or equal to 0"),
    ],
)
def test_a_sweep_where_no_value_makes_a_rubric_is_one_line_and_exit_2(
    spec: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found in review: every value out of range printed a table of dashes and exited 0
    (a CI step would pass on a sweep that measured nothing). Now one line naming the
    flag, its value and the first value's reason; no chart written."""
    chart = tmp_path / "sweep.html"
    code = main(["rescore", str(SAMPLE_RUNS / "fleet"), "--sweep", spec, "--chart", str(chart)])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert f"--sweep={spec!r}" in err and "no value of the sweep makes a valid rubric" in err
    assert said in err
    assert not chart.exists()


def test_a_sweep_with_some_values_out_of_range_still_shows_the_others(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Lenient where part of the range is valid: the table, each bad value named."""
    code = main(
        ["rescore", str(SAMPLE_RUNS / "fleet"), "--sweep", "groundedness.ok_min=0.9:1.1:0.1"]
    )
    out, _err = capsys.readouterr()
    assert code == 0
    assert "1.1: not a valid rubric" in out and "\n0.9 " in out
