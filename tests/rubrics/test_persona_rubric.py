"""Persona rubric: inversion, hard mode, weighting, absent values, preconditions, windows,
batching, baselines and regressions, scorecards, evidence, correction logs.

Every expected number is worked out by hand from the inputs built here.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import toolkit as tk
from toolkit.errors import RubricError
from toolkit.frames import PERSONA_SCORES_SCHEMA
from toolkit.judge import JudgeRequest, JudgeResult
from toolkit.rubrics.persona import (
    PRECONDITIONS,
    dimension_scores,
    format_trajectory,
    trajectory_rows,
    window_rows,
)

PERSONAS = [
    {"type": "persona", "agent_id": "rosa", "name": "Rosa", "persona": "A baker."},
    {"type": "persona", "agent_id": "tomas", "name": "Tomas", "persona": "A barista."},
]


def msg(step: int, agent: str | None, text: str, channel: str = "kitchen", **kw: Any) -> dict:
    row = {"type": "message", "step": step, "channel": channel, "text": text, **kw}
    if agent is None:
        row["kind"] = "stimulus"
    else:
        row["agent_id"] = agent
    return row


def make_run(tmp_path: Path, messages: list[dict], personas: list[dict] = PERSONAS) -> tk.ChatRun:
    path = tmp_path / "run.jsonl"
    lines = [{"type": "run", "run": "r1"}, *personas, *messages]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), "utf-8")
    return tk.load_chat(path)


def make_props(tmp_path: Path, files: dict[str, str]) -> tk.PropositionSet:
    root = tmp_path / "props"
    for rel, body in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(body, "utf-8")
    return tk.load_propositions(root)


def prop_file(dimension: str, props: list[tuple[str, float, bool]], **settings: Any) -> str:
    head = {"dimension": dimension, **settings}
    lines = [f"{k}: {json.dumps(v)}" for k, v in head.items()]
    lines.append("propositions:")
    for pid, weight, inverted in props:
        lines.append(f'  - {{id: {pid}, claim: "{{{{agent_name}}}} does {pid}", '
                     f"weight: {weight}, inverted: {str(inverted).lower()}}}")  # fmt: skip
    return "\n".join(lines) + "\n"


class DictJudge:
    """Answers by proposition id (or (id, subject)); records every call."""

    name = "dict-judge"

    def __init__(self, values: dict[Any, int | None]) -> None:
        self.values = values
        self.calls: list[list[JudgeRequest]] = []

    def judge(
        self, requests: Sequence[JudgeRequest], *, double_check: bool = False
    ) -> list[JudgeResult]:
        self.calls.append(list(requests))
        out = []
        for r in requests:
            value = self.values.get(
                (r.proposition_id, r.subject), self.values.get(r.proposition_id)
            )
            if value is None:
                out.append(JudgeResult(None, "", error="unparseable", raw="no idea"))
            else:
                out.append(JudgeResult(value, f"{r.proposition_id}={value}"))
        return out

    @property
    def asked(self) -> list[str]:
        return [r.proposition_id for call in self.calls for r in call]


TWO_SPEAKERS = [
    msg(1, None, "Facilitator: open"),
    msg(2, "rosa", "Bread!"),
    msg(3, "tomas", "Brew."),
]


def dim_row(result: tk.PersonaResult, agent: str | None, dimension: str) -> dict[str, Any]:
    frame = result.dimensions.filter(
        (pl.col("window") == 0)
        & (pl.col("dimension") == dimension)
        & (pl.col("agent_id").is_null() if agent is None else pl.col("agent_id") == agent)
    )
    assert frame.height == 1
    return frame.row(0, named=True)


# ---------------------------------------------------------------------------
# Inversion, hard mode, weighting, absent
# ---------------------------------------------------------------------------


def test_inversion_and_hard_mode_then_weighted_mean(tmp_path: Path) -> None:
    run = make_run(tmp_path, TWO_SPEAKERS)
    body = prop_file(
        "adherence",
        [("a", 1.0, False), ("b", 0.5, False), ("c", 0.5, True), ("d", 1.0, True)],
        hard=True,
    )
    props = make_props(tmp_path, {"adherence/_default.yaml": body})
    judge = DictJudge({"a": 8, "b": 9, "c": 3, "d": 0})
    result = tk.score_persona(run, props, judge)
    rosa = result.scores.filter(pl.col("agent_id") == "rosa").sort("proposition")
    # a: 8 -> hard 6.4; b: 9 stays 9; c: inverted 9-3=6 -> hard 4.8; d: inverted 9 stays 9
    assert rosa["score"].to_list() == pytest.approx([6.4, 9.0, 4.8, 9.0])
    assert rosa["raw"].to_list() == [8, 9, 3, 0]
    # (6.4*1 + 9*0.5 + 4.8*0.5 + 9*1) / 3.0 = 22.3 / 3
    assert dim_row(result, "rosa", "adherence")["score"] == pytest.approx(22.3 / 3)
    assert rosa["contribution"].sum() == pytest.approx(22.3 / 3)
    assert rosa["contribution"].to_list() == pytest.approx([6.4 / 3, 4.5 / 3, 2.4 / 3, 9 / 3])


def test_hard_mode_off_leaves_scores_alone(tmp_path: Path) -> None:
    run = make_run(tmp_path, TWO_SPEAKERS)
    props = make_props(tmp_path, {"adherence/_default.yaml": prop_file("adherence", [("a", 1, 0)])})
    result = tk.score_persona(run, props, DictJudge({"a": 8}))
    assert dim_row(result, "rosa", "adherence")["score"] == 8.0


def test_absent_propositions_leave_both_sums(tmp_path: Path) -> None:
    run = make_run(tmp_path, TWO_SPEAKERS)
    body = prop_file("fluency", [("x", 1.0, False), ("y", 0.5, False), ("z", 1.0, False)])
    props = make_props(tmp_path, {"fluency/_default.yaml": body})
    result = tk.score_persona(run, props, DictJudge({"x": 9, "y": 3, "z": None}))
    row = dim_row(result, "rosa", "fluency")
    # (9*1 + 3*0.5) / 1.5 = 7.0; z is absent, not 0 and not 9
    assert row["score"] == pytest.approx(7.0)
    assert (row["judged"], row["absent"]) == (2, 1)
    z = result.scores.filter((pl.col("proposition") == "z") & (pl.col("agent_id") == "rosa"))
    assert z["score"][0] is None
    assert z["source"][0] == "absent"
    assert z["absent_reason"][0] == "judge error: unparseable; reply: 'no idea'"
    card = result.scorecards["rosa"]
    assert card.status_of("fluency") == "OK"
    assert "weighted mean of 2/3 propositions, 1 absent" in card.dimensions["detail"][0]


def test_out_of_scale_judge_values_are_absent_not_used(tmp_path: Path) -> None:
    run = make_run(tmp_path, TWO_SPEAKERS)
    body = prop_file("fluency", [("x", 1.0, False), ("y", 1.0, False)])
    props = make_props(tmp_path, {"fluency/_default.yaml": body})
    result = tk.score_persona(run, props, DictJudge({"x": 12, "y": 4}))
    x = result.scores.filter((pl.col("proposition") == "x") & (pl.col("agent_id") == "rosa"))
    assert (x["score"][0], x["absent_reason"][0]) == (None, "judge value 12 is outside 0-9")
    assert dim_row(result, "rosa", "fluency")["score"] == 4.0


def test_dimension_with_nothing_judged_is_absent_not_zero(tmp_path: Path) -> None:
    run = make_run(tmp_path, TWO_SPEAKERS)
    props = make_props(tmp_path, {"fluency/_default.yaml": prop_file("fluency", [("x", 1, 0)])})
    result = tk.score_persona(run, props, DictJudge({"x": None}))
    assert dim_row(result, "rosa", "fluency")["score"] is None
    card = result.scorecards["rosa"]
    assert card.status_of("fluency") == "N/A"
    assert card.dimensions["detail"][0].startswith("absent: judge error: unparseable")
    assert card.verdict == "INSUFFICIENT_DATA"


def test_agent_without_messages_is_absent_and_never_judged(tmp_path: Path) -> None:
    personas = [*PERSONAS, {"type": "persona", "agent_id": "bo", "name": "Bo", "persona": "x"}]
    run = make_run(tmp_path, TWO_SPEAKERS, personas)
    props = make_props(tmp_path, {"fluency/_default.yaml": prop_file("fluency", [("x", 1, 0)])})
    judge = DictJudge({"x": 6})
    result = tk.score_persona(run, props, judge)
    assert [r.subject for call in judge.calls for r in call] == ["rosa", "tomas"]
    bo = result.scores.filter(pl.col("agent_id") == "bo")
    assert bo["absent_reason"].to_list() == ["no messages by Bo in this window"]
    assert "Bo sent no message in the run; their dimensions are absent" in result.warnings


# ---------------------------------------------------------------------------
# Preconditions
# ---------------------------------------------------------------------------

PRECONDITION_FILE = """\
dimension: consistency
propositions:
  - {id: early-late, claim: "{{agent_name}} stays the same", weight: 1, precondition: agent_spoke_twice}
  - {id: anti, claim: "{{agent_name}} changes", weight: 1, inverted: true, precondition: agent_spoke_twice}
  - {id: plain, claim: "{{agent_name}} is plain", weight: 1}
"""  # noqa: E501


def test_false_precondition_scores_9_without_asking_the_judge(tmp_path: Path) -> None:
    run = make_run(tmp_path, [*TWO_SPEAKERS, msg(4, "rosa", "More bread!")])
    props = make_props(tmp_path, {"consistency/_default.yaml": PRECONDITION_FILE})
    judge = DictJudge({"early-late": 4, "anti": 2, "plain": 3})
    result = tk.score_persona(run, props, judge)
    asked = [(r.proposition_id, r.subject) for call in judge.calls for r in call]
    # Rosa spoke twice: everything judged; Tomas once: nothing is asked (consistency is
    # judged on pairs of an earlier and a recent message, and he has no earlier one)
    assert sorted(asked) == sorted([("early-late", "rosa"), ("anti", "rosa"), ("plain", "rosa")])
    tomas = result.scores.filter(pl.col("agent_id") == "tomas").sort("proposition")
    assert tomas.select("proposition", "source", "raw", "score").rows() == [
        ("anti", "precondition", 9, 9.0),  # trivially true: 9, not inverted to 0
        ("early-late", "precondition", 9, 9.0),
        ("plain", "absent", None, None),
    ]
    assert tomas["reasoning"][0] == "precondition 'agent_spoke_twice' not met: trivially true (9)"
    assert tomas["absent_reason"][2] == (
        "1 message by Tomas in this window: no earlier message to compare with"
    )
    # Rosa: (4 + (9-2) + 3) / 3
    assert dim_row(result, "rosa", "consistency")["score"] == pytest.approx(14 / 3)
    assert dim_row(result, "tomas", "consistency")["score"] == pytest.approx(18 / 2)
    assert "(2 precondition not met: 9)" in result.scorecards["tomas"].dimensions["detail"][0]


def test_unknown_precondition_names_file_field_and_value(tmp_path: Path) -> None:
    run = make_run(tmp_path, TWO_SPEAKERS)
    body = "dimension: d\npropositions:\n  - {id: a, claim: c, weight: 1, precondition: nope}\n"
    props = make_props(tmp_path, {"d/_default.yaml": body})
    with pytest.raises(tk.InputError, match=r"_default.yaml: propositions\.0\.precondition='nope'"):
        tk.score_persona(run, props, DictJudge({}))


def test_registered_precondition_is_used_by_name(tmp_path: Path) -> None:
    @tk.register_precondition("mentions_bread")
    def _mentions_bread(ctx: Any) -> bool:
        return bool(ctx.actions()["text"].str.contains("Bread").any())

    try:
        run = make_run(tmp_path, TWO_SPEAKERS)
        body = "dimension: d\npropositions:\n  - {id: a, claim: c, weight: 1, precondition: mentions_bread}\n"  # noqa: E501
        props = make_props(tmp_path, {"d/_default.yaml": body})
        judge = DictJudge({"a": 2})
        result = tk.score_persona(run, props, judge)
        assert [r.subject for call in judge.calls for r in call] == ["rosa"]
        assert dim_row(result, "tomas", "d")["score"] == 9.0
        assert dim_row(result, "rosa", "d")["score"] == 2.0
    finally:
        PRECONDITIONS.pop("mentions_bread")


# ---------------------------------------------------------------------------
# Trajectories, windows, template variables
# ---------------------------------------------------------------------------


def test_agent_trajectory_format(tmp_path: Path) -> None:
    run = make_run(
        tmp_path,
        [
            msg(1, None, "Facilitator: open"),
            msg(2, "rosa", "Bread!"),
            msg(3, "tomas", "Brew."),
            msg(4, "tomas", "Elsewhere.", channel="bar"),
            msg(5, None, "Only for Rosa", channel="office", agent_id="rosa"),
        ],
    )
    rows = trajectory_rows(run.messages, "rosa", "Rosa")
    assert rows["line"].to_list() == [
        "--> Rosa: Facilitator: open",
        "Rosa acts: Bread!",
        "--> Rosa: Tomas: Brew.",
        "--> Rosa: Only for Rosa",
    ]
    env = trajectory_rows(run.messages, None, "environment")
    assert env["line"].to_list() == [
        "--> #kitchen: Facilitator: open",
        "Rosa acts: Bread!",
        "Tomas acts: Brew.",
        "Tomas acts: Elsewhere.",
        "--> Rosa: Only for Rosa",
    ]


def test_window_keeps_first_n_and_last_n() -> None:
    rows = pl.DataFrame({"line": [f"e{i}" for i in range(10)]})
    assert window_rows(rows, 2, 3)["line"].to_list() == ["e0", "e1", "e7", "e8", "e9"]
    assert format_trajectory(rows, 2, 3) == "e0\ne1\n(... 5 entries omitted ...)\ne7\ne8\ne9"
    assert window_rows(rows, None, 2)["line"].to_list() == ["e8", "e9"]
    assert format_trajectory(rows, None, 2) == "(... 8 earlier entries omitted ...)\ne8\ne9"
    assert window_rows(rows, 3, None)["line"].to_list() == ["e0", "e1", "e2"]
    # overlapping ends keep everything once, with no marker
    assert format_trajectory(rows, 6, 5) == "\n".join(f"e{i}" for i in range(10))
    assert window_rows(rows, None, None).height == 10


def test_requests_carry_windowed_trajectory_rendered_claim_and_persona(tmp_path: Path) -> None:
    run = make_run(tmp_path, [msg(i, "rosa", f"m{i}") for i in range(1, 7)])
    with_persona = (
        "dimension: adherence\nfirst_n: 1\nlast_n: 2\npropositions:\n"
        '  - {id: a, claim: "{{agent_name}} in {{channel_name}} said {{action}}", weight: 1}\n'
    )
    without = "dimension: fluency\ninclude_personas: false\npropositions:\n  - {id: f, claim: c, weight: 1}\n"  # noqa: E501
    props = make_props(
        tmp_path, {"adherence/_default.yaml": with_persona, "fluency/_default.yaml": without}
    )
    judge = DictJudge({"a": 5, "f": 5})
    tk.score_persona(run, props, judge)
    by_id = {r.proposition_id: r for call in judge.calls for r in call if r.subject == "rosa"}
    assert by_id["a"].claim == "Rosa in kitchen said m6"
    assert by_id["a"].trajectory == (
        "Rosa acts: m1\n(... 3 entries omitted ...)\nRosa acts: m5\nRosa acts: m6"
    )
    assert by_id["a"].persona == "A baker."
    assert by_id["f"].persona is None
    assert by_id["f"].trajectory.count("Rosa acts:") == 6


def test_file_without_a_window_uses_the_first_10_and_last_100(tmp_path: Path) -> None:
    # Issue 23 item 14: the-office's defaults, not the whole trajectory.
    run = make_run(tmp_path, [msg(i, "rosa", f"m{i}") for i in range(1, 131)])
    props = make_props(
        tmp_path, {"adherence/_default.yaml": prop_file("adherence", [("a", 1, False)])}
    )
    judge = DictJudge({"a": 5})
    tk.score_persona(run, props, judge)
    (request,) = [r for call in judge.calls for r in call]
    lines = request.trajectory.splitlines()
    assert lines[:10] == [f"Rosa acts: m{i}" for i in range(1, 11)]
    assert lines[10] == "(... 20 entries omitted ...)"
    assert lines[11:] == [f"Rosa acts: m{i}" for i in range(31, 131)]
    assert request.claim == "Rosa does a"  # {{action}}-free claim: the window's last
    # Rubric 1.0 judged the whole trajectory; an explicit null in the file still does.
    judge_old = DictJudge({"a": 5})
    tk.score_persona(run, props, judge_old, rubric=tk.load_persona_rubric({"version": "1.0"}))
    assert judge_old.calls[0][0].trajectory.count("Rosa acts:") == 130
    whole = prop_file("adherence", [("a", 1, False)], first_n=None, last_n=None)
    judge_null = DictJudge({"a": 5})
    tk.score_persona(
        run, make_props(tmp_path / "n", {"adherence/_default.yaml": whole}), judge_null
    )
    assert judge_null.calls[0][0].trajectory.count("Rosa acts:") == 130


def test_file_setting_only_first_n_gets_the_default_last_100(tmp_path: Path) -> None:
    run = make_run(tmp_path, [msg(i, "rosa", f"m{i}") for i in range(1, 131)])
    body = prop_file("adherence", [("a", 1, False)], first_n=2)
    judge = DictJudge({"a": 5})
    tk.score_persona(run, make_props(tmp_path, {"adherence/_default.yaml": body}), judge)
    lines = judge.calls[0][0].trajectory.splitlines()
    assert lines[:3] == ["Rosa acts: m1", "Rosa acts: m2", "(... 28 entries omitted ...)"]
    assert len(lines) == 103


# Issue 23 item 17: what each dimension's judge sees, as the-office's scorers send it.


def test_consistency_is_judged_on_pairs_of_earlier_and_recent_messages(tmp_path: Path) -> None:
    run = make_run(tmp_path, [msg(i, "rosa", f"m{i}") for i in range(1, 6)])
    body = prop_file("consistency", [("c", 1, False)], include_personas=False)
    judge = DictJudge({"c": 8})
    tk.score_persona(run, make_props(tmp_path, {"consistency/_default.yaml": body}), judge)
    (request,) = [r for call in judge.calls for r in call]
    # five messages: m1, m2 are history, m4, m5 current (m3, the middle, in neither)
    assert request.trajectory == (
        "Pair 1 of 2:\n[Earlier message] Rosa acts: m1\n[Recent message] Rosa acts: m4\n"
        "Pair 2 of 2:\n[Earlier message] Rosa acts: m2\n[Recent message] Rosa acts: m5"
    )
    assert request.evidence is None


def test_consistency_keeps_the_last_pairs_up_to_the_rubrics_count(tmp_path: Path) -> None:
    run = make_run(tmp_path, [msg(i, "rosa", f"m{i}") for i in range(1, 9)])
    body = prop_file("consistency", [("c", 1, False)])
    judge = DictJudge({"c": 8})
    rubric = tk.load_persona_rubric({"version": "1.1-two-pairs", "consistency_pairs": 2})
    props = make_props(tmp_path, {"consistency/_default.yaml": body})
    tk.score_persona(run, props, judge, rubric=rubric)
    lines = judge.calls[0][0].trajectory.splitlines()
    assert lines[1:3] == ["[Earlier message] Rosa acts: m3", "[Recent message] Rosa acts: m7"]
    assert lines[-1] == "[Recent message] Rosa acts: m8"


def test_fluency_judge_gets_the_agents_ngram_repetition(tmp_path: Path) -> None:
    # Rosa: "a b c a b c" -> 3-grams abc bca cab abc: 1 - 3/4 = 0.25; 5-grams abcab
    # bcabc: none repeats, 0.00. "x y" holds no 3-gram.
    run = make_run(tmp_path, [msg(1, "rosa", "a b c a b c"), msg(2, "rosa", "x y")])
    body = prop_file("fluency", [("f", 1, False)])
    judge = DictJudge({"f": 6})
    tk.score_persona(run, make_props(tmp_path, {"fluency/_default.yaml": body}), judge)
    (request,) = [r for call in judge.calls for r in call]
    assert request.evidence == (
        "N-gram repetition over Rosa's 2 message(s) in this window (share of word n-grams "
        "that repeat an earlier one; 0 = none repeats): 3-gram repetition 0.25, "
        "5-gram repetition 0.00."
    )
    assert request.trajectory == "Rosa acts: a b c a b c\nRosa acts: x y"


def test_convergence_judge_gets_vocabulary_statistics(tmp_path: Path) -> None:
    # Rosa: "bread and jam" + "bread" = 4 words, 3 distinct; Tomas: "jam and tea", 3
    # words, 3 distinct; shared {and, jam} of union {bread, and, jam, tea}: 0.50
    run = make_run(
        tmp_path,
        [msg(1, "rosa", "bread and jam"), msg(2, "tomas", "jam and tea"), msg(3, "rosa", "bread")],
    )
    body = prop_file("convergence", [("v", 1, False)], target_type="environment")
    body = body.replace('"{{agent_name}} does v"', '"voices stay distinct"')
    judge = DictJudge({"v": 7})
    tk.score_persona(run, make_props(tmp_path, {"convergence/_default.yaml": body}), judge)
    (request,) = [r for call in judge.calls for r in call]
    assert request.evidence == (
        "Vocabulary per agent in this window:\n"
        "Rosa: 4 words, 3 distinct (type-token ratio 0.75), 2.0 words per message\n"
        "Tomas: 3 words, 3 distinct (type-token ratio 1.00), 3.0 words per message\n"
        "Vocabulary shared between agents (Jaccard of distinct words, 1 = same):\n"
        "Rosa / Tomas: 0.50"
    )


def test_rubric_1_0_sends_the_trajectory_alone(tmp_path: Path) -> None:
    run = make_run(tmp_path, [msg(1, "rosa", "a b c a b c"), msg(2, "rosa", "x y")])
    files = {
        "fluency/_default.yaml": prop_file("fluency", [("f", 1, False)]),
        "consistency/_default.yaml": prop_file("consistency", [("c", 1, False)]),
    }
    judge = DictJudge({"f": 6, "c": 6})
    old = tk.load_persona_rubric({"version": "1.0"})
    tk.score_persona(run, make_props(tmp_path, files), judge, rubric=old)
    requests = [r for call in judge.calls for r in call]
    assert {r.evidence for r in requests} == {None}
    assert {r.trajectory for r in requests} == {"Rosa acts: a b c a b c\nRosa acts: x y"}


def test_claim_variable_without_value_is_an_error(tmp_path: Path) -> None:
    run = make_run(tmp_path, TWO_SPEAKERS)
    body = 'dimension: d\npropositions:\n  - {id: a, claim: "{{agent_name}} thanks {{recipient_name}}", weight: 1}\n'  # noqa: E501
    props = make_props(tmp_path, {"d/_default.yaml": body})
    with pytest.raises(tk.InputError, match=r"\{\{recipient_name\}\} has no value here"):
        tk.score_persona(run, props, DictJudge({"a": 1}))


def test_environment_claim_using_agent_name_is_an_error(tmp_path: Path) -> None:
    run = make_run(tmp_path, TWO_SPEAKERS)
    body = prop_file("convergence", [("v", 1, 0)], target_type="environment")
    props = make_props(tmp_path, {"convergence/_default.yaml": body})
    with pytest.raises(tk.InputError, match="environment dimension judges no single agent"):
        tk.score_persona(run, props, DictJudge({"v": 1}))


def test_batches_hold_at_most_batch_size_propositions(tmp_path: Path) -> None:
    run = make_run(tmp_path, [msg(1, "rosa", "hi")], PERSONAS[:1])
    body = prop_file("adherence", [(f"p{i:02d}", 1, 0) for i in range(12)])
    props = make_props(tmp_path, {"adherence/_default.yaml": body})
    judge = DictJudge({f"p{i:02d}": 7 for i in range(12)})
    tk.score_persona(run, props, judge)
    assert [len(c) for c in judge.calls] == [10, 2]
    small = DictJudge({f"p{i:02d}": 7 for i in range(12)})
    rubric = tk.load_persona_rubric({"version": "test-batch-4", "batch_size": 4})
    tk.score_persona(run, props, small, rubric=rubric)
    assert [len(c) for c in small.calls] == [4, 4, 4]


def test_agent_file_propositions_follow_the_default_ones(tmp_path: Path) -> None:
    run = make_run(tmp_path, TWO_SPEAKERS)
    props = make_props(
        tmp_path,
        {
            "adherence/_default.yaml": prop_file("adherence", [("base", 1, 0)]),
            "adherence/rosa.yaml": prop_file("adherence", [("rosa-own", 0.5, 0)], agent_id="rosa"),
        },
    )
    result = tk.score_persona(run, props, DictJudge({"base": 6, "rosa-own": 9}))
    rosa = result.scores.filter(pl.col("agent_id") == "rosa")
    assert rosa["proposition"].to_list() == ["base", "rosa-own"]
    assert dim_row(result, "rosa", "adherence")["score"] == pytest.approx((6 + 4.5) / 1.5)
    assert dim_row(result, "tomas", "adherence")["score"] == 6.0


def test_ideas_quantity_is_a_count_never_inverted_or_penalised(tmp_path: Path) -> None:
    run = make_run(tmp_path, TWO_SPEAKERS)
    body = prop_file("ideas_quantity", [("count", 1, True)], target_type="environment", hard=True)
    props = make_props(
        tmp_path, {"ideas_quantity/_default.yaml": body.replace("{{agent_name}} ", "")}
    )
    judge = DictJudge({"count": 12})
    result = tk.score_persona(run, props, judge)
    assert judge.calls[0][0].kind == "count"
    assert dim_row(result, None, "ideas_quantity")["score"] == 12.0
    card = result.scorecards["environment"]
    assert card.status_of("ideas_quantity") == "OK"
    assert card.dimensions["detail"][0] == "12 distinct ideas counted by the judge"


def test_windows_score_successive_slices_of_messages(tmp_path: Path) -> None:
    run = make_run(tmp_path, [msg(i, "rosa", f"m{i}") for i in range(1, 6)], PERSONAS[:1])
    props = make_props(tmp_path, {"fluency/_default.yaml": prop_file("fluency", [("f", 1, 0)])})
    judge = DictJudge({"f": 7})
    result = tk.score_persona(run, props, judge, windows=2)
    assert result.dimensions["window"].to_list() == [0, 1, 2, 3]
    trajectories = [call[0].trajectory for call in judge.calls]
    assert trajectories[1:] == [
        "Rosa acts: m1\nRosa acts: m2",
        "Rosa acts: m3\nRosa acts: m4",
        "Rosa acts: m5",
    ]
    with pytest.raises(tk.InputError, match="windows=0"):
        tk.score_persona(run, props, judge, windows=0)


# ---------------------------------------------------------------------------
# Scorecards, baselines, regressions
# ---------------------------------------------------------------------------


def one_prop_result(
    tmp_path: Path, values: dict[Any, int], baselines: dict[str, tk.Baseline] | None = None
) -> tk.PersonaResult:
    run = make_run(tmp_path, TWO_SPEAKERS)
    props = make_props(tmp_path, {"adherence/_default.yaml": prop_file("adherence", [("a", 1, 0)])})
    return tk.score_persona(run, props, DictJudge(values), baselines=baselines)


def baseline(agent: str, **dims: float) -> tk.Baseline:
    return tk.Baseline(
        agent_id=agent, captured_at=datetime(2026, 1, 1, tzinfo=UTC), dimensions=dims
    )


@pytest.mark.parametrize(
    ("raw", "status"), [(9, "OK"), (7, "OK"), (6, "WARN"), (5, "WARN"), (4, "FAIL")]
)
def test_status_boundaries_green_at_7_red_below_5(tmp_path: Path, raw: int, status: str) -> None:
    card = one_prop_result(tmp_path, {"a": raw}).scorecards["rosa"]
    assert card.status_of("adherence") == status
    assert (card.dimensions["green"][0], card.dimensions["red"][0]) == (">= 7", "< 5")
    assert card.rubric_version == "1.1"


def test_regression_is_more_than_one_below_baseline(tmp_path: Path) -> None:
    # both agents score 6.0; Rosa's baseline 7.0 (delta -1.0: not a regression),
    # Tomas's 7.25 (delta -1.25: a regression)
    result = one_prop_result(
        tmp_path, {"a": 6}, {"rosa": baseline("rosa", adherence=7.0),
                             "tomas": baseline("tomas", adherence=7.25)}
    )  # fmt: skip
    assert result.comparison is not None
    rows = result.comparison.sort("agent_id").select("agent_id", "delta", "regression").rows()
    assert rows == [("rosa", -1.0, False), ("tomas", -1.25, True)]
    assert result.regressions["agent_id"].to_list() == ["tomas"]
    tomas = result.scorecards["tomas"]
    assert tomas.status_of("adherence") == "FAIL"
    assert tomas.dimensions["detail"][0].startswith("REGRESSION: ")
    assert tomas.dimensions["detail"][0].endswith("baseline 7.25, delta -1.25")
    assert tomas.verdict == "FAILED"
    assert result.scorecards["rosa"].status_of("adherence") == "WARN"


def test_baseline_dimension_without_a_score_is_flagged_not_passed(tmp_path: Path) -> None:
    result = one_prop_result(
        tmp_path, {"a": 8}, {"rosa": baseline("rosa", adherence=8.0, fluency=6.0)}
    )
    assert result.comparison is not None
    fluency = result.comparison.filter(pl.col("dimension") == "fluency").row(0, named=True)
    assert (fluency["score"], fluency["regression"]) == (None, False)
    assert fluency["note"] == "absent: no score in this run"
    assert "rosa: fluency has a baseline but no score (cannot tell whether it regressed)" in (
        result.warnings
    )
    # Tomas has no baseline file: he is not compared
    assert "tomas" not in result.comparison["agent_id"].to_list()


def test_baselines_from_a_result_hold_agent_and_environment_scores(tmp_path: Path) -> None:
    run = make_run(tmp_path, TWO_SPEAKERS)
    env = prop_file("convergence", [("apart", 1, 0)], target_type="environment").replace(
        "{{agent_name}} ", ""
    )
    ideas = prop_file("ideas_quantity", [("n", 1, 0)], target_type="environment").replace(
        "{{agent_name}} ", ""
    )
    props = make_props(
        tmp_path,
        {
            "adherence/_default.yaml": prop_file("adherence", [("a", 1, 0)]),
            "convergence/_default.yaml": env,
            "ideas_quantity/_default.yaml": ideas,
        },
    )
    result = tk.score_persona(run, props, DictJudge({"a": 7, "apart": 3, "n": 4}))
    stamp = datetime(2026, 6, 1, tzinfo=UTC)
    made = {b.agent_id: b for b in tk.baselines_from(result, stamp)}
    assert sorted(made) == ["rosa", "tomas"]
    assert made["rosa"].dimensions == {"adherence": 7.0, "convergence": 3.0}
    assert made["rosa"].proposition_scores == {"a": 7.0, "apart": 3.0}
    assert made["rosa"].captured_at == stamp
    # comparing the result with its own baselines finds no regression
    again = tk.compare_baselines(result, made)
    assert not again["regression"].any()
    # rosa's and tomas's adherence, and the group's convergence once (not once per agent)
    assert again["delta"].drop_nulls().to_list() == [0.0] * 3
    assert again.filter(again["dimension"] == "convergence")["agent_id"].to_list() == [
        "environment"
    ]


def test_real_michael_baseline_is_the_weighted_mean_of_its_propositions(real_runs: Path) -> None:
    """The format's weighting rule, checked on the one baseline a live judge produced."""
    folder = real_runs / "persona" / "the-office"
    props = tk.load_propositions(folder / "propositions").frame()
    michael = tk.load_baseline(folder / "baselines" / "michael.json")
    mine = props.filter(
        pl.col("file_agent_id").is_null() | (pl.col("file_agent_id") == "michael")
    ).filter(pl.col("dimension") != "ideas_quantity")
    scores = pl.DataFrame(
        {"proposition": list(michael.proposition_scores),
         "score": [float(v) for v in michael.proposition_scores.values()]}
    )  # fmt: skip
    rows = mine.join(scores, on="proposition").select(
        pl.lit("r").alias("run"),
        pl.lit(0, pl.Int64).alias("window"),
        "target_type",
        pl.lit("michael").alias("agent_id"),
        pl.lit("Michael").alias("agent_name"),
        "dimension",
        "proposition",
        "weight",
        "score",
    )
    assert rows.height == 24  # every proposition score in the baseline has a real weight
    dims = dimension_scores(rows)
    got = dict(zip(dims["dimension"], dims["score"], strict=True))
    assert got == pytest.approx(michael.dimensions)
    # by hand: adherence = 89.5 / 11.9
    assert got["adherence"] == pytest.approx(89.5 / 11.9)


def test_rubric_override_needs_a_new_version(tmp_path: Path) -> None:
    path = tmp_path / "r.yaml"
    path.write_text("hard_multiplier: 0.5\n")
    with pytest.raises(RubricError, match="bump its version"):
        tk.load_persona_rubric(path)
    path.write_text("version: team-2\nhard_multiplier: 0.5\ngreen_at: 8\n")
    rubric = tk.load_persona_rubric(path)
    assert rubric.hard_multiplier == 0.5
    path.write_text("version: team-3\nred_below: 8\ngreen_at: 6\n")
    with pytest.raises(RubricError, match="red_below must not exceed green_at"):
        tk.load_persona_rubric(path)


def test_overridden_rubric_changes_scores_and_is_stamped(tmp_path: Path) -> None:
    run = make_run(tmp_path, TWO_SPEAKERS)
    props = make_props(
        tmp_path, {"a/_default.yaml": prop_file("adherence", [("a", 1, 0)], hard=True)}
    )
    rubric = tk.load_persona_rubric({"version": "team-2", "hard_multiplier": 0.5})
    result = tk.score_persona(run, props, DictJudge({"a": 8}), rubric=rubric)
    assert dim_row(result, "rosa", "adherence")["score"] == 4.0
    assert result.scorecards["rosa"].rubric_version == "team-2"


def test_tidy_scores_frame_for_later_statistics(tmp_path: Path) -> None:
    result = one_prop_result(tmp_path, {"a": 6})
    stacked = tk.persona_scores_frame([result, result])
    assert stacked.schema == pl.Schema(PERSONA_SCORES_SCHEMA)
    assert stacked.height == 4
    assert {"run", "agent_id", "dimension", "proposition", "score"} <= set(stacked.columns)


# ---------------------------------------------------------------------------
# Algorithmic evidence
# ---------------------------------------------------------------------------


def test_evidence_similarity_repetition_and_vocabulary(tmp_path: Path) -> None:
    run = make_run(
        tmp_path,
        [
            msg(1, "rosa", "a b c"),
            msg(2, "rosa", "a b c d"),  # vs msg 1: 3/4 = 0.75 > 0.6: flagged
            msg(3, "rosa", "a b x y"),  # best: vs msg 2 2/6, vs msg 1 2/5 -> 0.4
            msg(4, "tomas", "c e"),
        ],
    )
    ev = tk.persona_evidence(run.messages)
    rosa = ev.messages.filter(pl.col("agent_id") == "rosa")
    assert rosa["max_jaccard_prev5"].to_list() == pytest.approx([None, 0.75, 0.4])
    assert rosa["similar_flag"].to_list() == [None, True, False]
    agents = {r["agent_id"]: r for r in ev.agents.iter_rows(named=True)}
    assert agents["rosa"]["tokens"] == 11
    assert agents["rosa"]["distinct_tokens"] == 6
    assert agents["rosa"]["type_token_ratio"] == pytest.approx(6 / 11)
    assert agents["rosa"]["flagged_similar_messages"] == 1
    # trigrams: abc | abc, bcd | abx, bxy -> 5 total, 4 distinct
    assert agents["rosa"]["repeated_ngram_share_last5"] == pytest.approx(1 - 4 / 5)
    assert agents["tomas"]["repeated_ngram_share_last5"] is None  # no trigram at all
    # vocabularies {a,b,c,d,x,y} and {c,e}: 1 shared of 7
    assert ev.overlap.select("agent_a", "agent_b", "shared", "union").rows() == [
        ("rosa", "tomas", 1, 7)
    ]
    assert agents["tomas"]["mean_vocab_overlap"] == pytest.approx(1 / 7)


def test_evidence_compares_only_the_previous_five_messages(tmp_path: Path) -> None:
    texts = ["same words here", "q1", "q2", "q3", "q4", "q5", "same words here"]
    run = make_run(tmp_path, [msg(i + 1, "rosa", t) for i, t in enumerate(texts)], PERSONAS[:1])
    ev = tk.persona_evidence(run.messages)
    # message 7 repeats message 1 exactly, but message 1 is six messages back
    assert ev.messages["max_jaccard_prev5"][-1] == 0.0
    shifted = tk.persona_evidence(run.messages, similarity_window=6)
    assert shifted.messages["max_jaccard_prev5"][-1] == 1.0


# ---------------------------------------------------------------------------
# Correction logs
# ---------------------------------------------------------------------------


def test_correction_report_rates_failures_and_means(tmp_path: Path) -> None:
    rows = [
        {"agent_id": "a", "action_id": 1, "attempt": 1, "outcome": "passed",
         "scores": {"adherence": 8, "fluency": 7}, "similarity": 0.2},
        {"agent_id": "a", "action_id": 2, "attempt": 1, "outcome": "corrected",
         "scores": {"adherence": 4, "fluency": 6}, "similarity": 0.7},
        {"agent_id": "a", "action_id": 2, "attempt": 2, "outcome": "passed_after_retry",
         "scores": {"adherence": 7, "fluency": 8}, "similarity": 0.3},
        {"agent_id": "b", "action_id": 3, "attempt": 1, "outcome": "forced_through",
         "scores": {"adherence": 3}},
    ]  # fmt: skip
    path = tmp_path / "gate.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    report = tk.correction_report(tk.load_correction_log(path))
    # three actions, each counted by its last attempt
    assert report.outcomes.rows() == [
        ("forced_through", 1, pytest.approx(1 / 3)),
        ("passed", 1, pytest.approx(1 / 3)),
        ("passed_after_retry", 1, pytest.approx(1 / 3)),
    ]
    # adherence 8, 4, 7, 3 (below 7: 4 and 3); fluency 7, 6, 8 (below 7: 6)
    assert report.dimensions.rows() == [
        ("adherence", 4, 2, pytest.approx(5.5)),
        ("fluency", 3, 1, pytest.approx(7.0)),
    ]
    assert report.mean_similarity == pytest.approx(0.4)
    # similarity above 0.6 is a failure, as in the-office's gate statistics: 0.7 only
    assert (report.similarity_failures, report.similarity_checked) == (1, 3)
    assert report.mean_total_score is None


def test_correction_report_of_the_table_shape_counts_similarity_and_gate_failures(
    tmp_path: Path,
) -> None:
    rows = [
        {"agent_id": "d", "attempt_number": 1, "outcome": "regeneration_requested",
         "dimension_scores": [
             {"dimension": "persona_adherence", "score": 7, "passed": False},
             {"dimension": "fluency", "score": 5, "passed": True}],
         "similarity_score": 0.61, "total_score": 12},
        {"agent_id": "d", "attempt_number": 2, "outcome": "regeneration_success",
         "dimension_scores": [{"dimension": "persona_adherence", "score": 8},
                              {"dimension": "fluency", "score": 6}],
         "similarity_score": 0.6, "total_score": 14},
    ]  # fmt: skip
    path = tmp_path / "gate.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    report = tk.correction_report(tk.load_correction_log(path))
    assert report.outcomes.rows() == [("regeneration_success", 1, 1.0)]
    # the gate's own verdict where recorded (adherence 7 failed its gate; fluency 5
    # passed), else below 7: fluency 6 fails
    assert report.dimensions.rows() == [
        ("fluency", 2, 1, pytest.approx(5.5)),
        ("persona_adherence", 2, 1, pytest.approx(7.5)),
    ]
    # 0.61 > 0.6 fails; exactly 0.6 does not
    assert (report.similarity_failures, report.similarity_checked) == (1, 2)
    assert report.mean_total_score == pytest.approx(13.0)
    assert "similarity failures: 1/2" in repr(report)


# ---------------------------------------------------------------------------
# The bundled sample (recorded cassette)
# ---------------------------------------------------------------------------


def test_sample_week2_catches_lennys_drift(persona_week2: tk.PersonaResult) -> None:
    result = persona_week2
    regressed = set(result.regressions.select("agent_id", "dimension").iter_rows())
    assert {("lenny", "adherence"), ("lenny", "consistency"), ("lenny", "fluency")} <= regressed
    assert not {d for a, d in regressed if a != "lenny" and d != "convergence"}
    assert result.scorecards["lenny"].verdict == "FAILED"
    assert result.scorecards["otis"].verdict == "HEALTHY"
    lenny = result.evidence.agents.filter(pl.col("agent_id") == "lenny").row(0, named=True)
    assert lenny["flagged_similar_messages"] >= 2


def test_real_proposition_files_score_end_to_end(real_runs: Path, tmp_path: Path) -> None:
    personas = [
        {
            "type": "persona",
            "agent_id": "michael",
            "name": "Michael",
            "persona": "Regional manager.",
        },
        {"type": "persona", "agent_id": "dwight", "name": "Dwight", "persona": "Assistant to."},
    ]
    run = make_run(
        tmp_path,
        [
            msg(1, "michael", "Welcome, family!"),
            msg(2, "dwight", "Fact: bears eat beets."),
            msg(3, "michael", "That's what she said."),  # a second: consistency has a pair
        ],
        personas,
    )
    props = tk.load_propositions(real_runs / "persona" / "the-office" / "propositions")

    class Seven(DictJudge):
        def judge(self, requests: Sequence[JudgeRequest], *, double_check: bool = False) -> list:
            self.calls.append(list(requests))
            return [JudgeResult(7, "seven") for _ in requests]

    judge = Seven({})
    result = tk.score_persona(run, props, judge)
    michael = result.scores.filter(
        (pl.col("agent_id") == "michael") & (pl.col("dimension") == "adherence")
    )
    assert michael.height == 14  # 4 default + 10 of Michael's own
    # every raw is 7: the two inverted propositions (weights 0.8 and 0.9) score 2, the
    # other weights sum to 11.9 - 1.7 = 10.2: (7 * 10.2 + 2 * 1.7) / 11.9
    assert dim_row(result, "michael", "adherence")["score"] == pytest.approx(74.8 / 11.9)
    claims = dict(zip(michael["proposition"], michael["claim"], strict=True))
    assert claims["appropriate-emotional-tone"] == (
        "Michael demonstrates emotional reactions consistent with their character in kitchen"
    )
    sent = {r.proposition_id: r for call in judge.calls for r in call if r.subject == "michael"}
    assert sent["adheres-to-persona"].persona == "Regional manager."
    assert sent["consistent-tone"].persona is None  # consistency: include_personas false
    assert sent["consistent-tone"].trajectory == (
        "Pair 1 of 1:\n[Earlier message] Michael acts: Welcome, family!\n"
        "[Recent message] Michael acts: That's what she said."
    )
    assert sent["adheres-to-persona"].evidence is None
    # Dwight spoke once: his consistency is absent, not judged on a single message
    dwight = result.scores.filter(
        (pl.col("agent_id") == "dwight") & (pl.col("dimension") == "consistency")
    )
    assert set(dwight["source"]) == {"absent"}
    env = {r.proposition_id: r for call in judge.calls for r in call if r.subject == "environment"}
    assert env["enumerate-ideas"].kind == "count"
    assert dim_row(result, None, "ideas_quantity")["score"] == 7.0
