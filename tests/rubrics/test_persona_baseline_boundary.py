"""Baselines written from a result whose weighted means land a float step off the scale.

Two propositions weighted 0.1 and 0.7, each answered 9, give a weighted mean of
9.000000000000002 in floating point; ``persona --write-baseline`` used to fail with a
pydantic traceback on it. The score is rounded at the boundary (to 6 decimals, far below
what a judge's whole 0-9 answers can tell apart) and written as 9.
"""

from __future__ import annotations

import json
from pathlib import Path

from test_persona_rubric import TWO_SPEAKERS, DictJudge, make_props, make_run, prop_file

import toolkit as tk


def test_a_mean_a_float_step_above_nine_is_written_as_nine(tmp_path: Path) -> None:
    weights = [("a", 0.1, False), ("b", 0.7, False)]
    assert (9 * 0.1 + 9 * 0.7) / (0.1 + 0.7) > 9  # the float step, by hand
    props = make_props(tmp_path, {"adherence/_default.yaml": prop_file("adherence", weights)})
    run = make_run(tmp_path, TWO_SPEAKERS)
    result = tk.score_persona(run, props, DictJudge({"a": 9, "b": 9}))
    made = tk.baselines_from(result)
    assert {b.agent_id: b.dimensions["adherence"] for b in made} == {"rosa": 9.0, "tomas": 9.0}
    written = tk.write_baselines(made, tmp_path / "baselines")
    for path in written:
        assert json.loads(path.read_text(encoding="utf-8"))["dimensions"] == {"adherence": 9.0}
