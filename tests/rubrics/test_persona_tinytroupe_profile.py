"""The ``tinytroupe`` proposition profile (issue 37; FORMATS.md §5, TinyTroupe late 2025).

TinyTroupe's action-level propositions (``action_persona_adherence`` and kin) are judged
on the list of actions in their window (``first_n=5, last_n=10``), and their type
precondition holds when any one of those actions matches. A proposition file saying
``profile: tinytroupe`` reads ``{{action}}`` that way; the default (``the-office``) keeps
the agent's last message.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from test_persona_rubric import DictJudge, make_props, make_run, msg

import toolkit as tk

ROSA = [
    msg(1, "rosa", "Fresh rye today.", recipient_id="tomas"),
    msg(2, "tomas", "Brew is ready."),
    msg(3, "rosa", "The sourdough needs an hour."),
    msg(4, "rosa", "Flour order placed."),
]

CLAIM = "The next actions of {{agent_name}} fit a baker: {{action}}"


def action_file(**settings: object) -> str:
    head = "".join(f"{k}: {v}\n" for k, v in settings.items())
    return (
        f"dimension: adherence\nagent_id: rosa\n{head}propositions:\n"
        f'  - {{id: act, claim: "{CLAIM}", weight: 1, precondition: agent_addressed_someone}}\n'
    )


def asked_claims(tmp_path: Path, body: str) -> list[str]:
    run = make_run(tmp_path, ROSA)
    props = make_props(tmp_path, {"adherence/rosa.yaml": body})
    judge = DictJudge({"act": 8})
    result = tk.score_persona(run, props, judge, agents=["rosa"])
    assert result.scores.filter(tk_col_is("act"))["source"].to_list() == ["judge"]
    return [r.claim for call in judge.calls for r in call]


def tk_col_is(pid: str) -> pl.Expr:
    return (pl.col("proposition") == pid) & (pl.col("window") == 0)


def test_tinytroupe_profile_judges_the_list_of_actions_in_the_window(tmp_path: Path) -> None:
    claims = asked_claims(tmp_path, action_file(profile="tinytroupe"))
    assert claims == [
        "The next actions of Rosa fit a baker: 1. Fresh rye today.\n"
        "2. The sourdough needs an hour.\n3. Flour order placed."
    ]


def test_tinytroupe_profile_keeps_the_window(tmp_path: Path) -> None:
    claims = asked_claims(tmp_path, action_file(profile="tinytroupe", first_n=1, last_n=1))
    # the window is the first entry and the last: steps 1 and 4, step 3 left out
    assert claims == [
        "The next actions of Rosa fit a baker: 1. Fresh rye today.\n2. Flour order placed."
    ]


def test_default_profile_judges_the_last_action(tmp_path: Path) -> None:
    claims = asked_claims(tmp_path, action_file())
    assert claims == ["The next actions of Rosa fit a baker: Flour order placed."]


def test_a_precondition_holds_when_any_one_action_matches(tmp_path: Path) -> None:
    # only the first of Rosa's three actions names a recipient: judged, not trivially 9
    claims = asked_claims(tmp_path, action_file(profile="tinytroupe"))
    assert len(claims) == 1


def test_a_precondition_no_action_matches_is_trivially_true(tmp_path: Path) -> None:
    run = make_run(tmp_path, [m for m in ROSA if m["step"] != 1])
    props = make_props(tmp_path, {"adherence/rosa.yaml": action_file(profile="tinytroupe")})
    judge = DictJudge({"act": 2})
    result = tk.score_persona(run, props, judge, agents=["rosa"])
    row = result.scores.filter(tk_col_is("act")).row(0, named=True)
    assert (row["source"], row["score"]) == ("precondition", 9.0)
    assert judge.calls == []


def test_an_unknown_profile_is_refused_naming_the_field(tmp_path: Path) -> None:
    with pytest.raises(tk.InputError, match="profile"):
        make_props(tmp_path, {"adherence/rosa.yaml": action_file(profile="tinytroop")})
