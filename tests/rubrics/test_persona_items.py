"""Persona items: one definition of what a human rates beside the judge. The items of a
chat are the very requests ``score_persona`` sends to the judge (caught from the judge
itself, not rebuilt), with stable readable ids."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

import toolkit as tk
from toolkit.errors import InputError
from toolkit.judge import JudgeRequest, JudgeResult
from toolkit.rubrics.persona_items import items_of_files, persona_items, persona_items_of


class Listening:
    """A judge that keeps every request it is asked and answers 5."""

    name = "listening"

    def __init__(self) -> None:
        self.asked: list[JudgeRequest] = []

    def judge(
        self, requests: Sequence[JudgeRequest], *, double_check: bool = False
    ) -> list[JudgeResult]:
        self.asked.extend(requests)
        return [JudgeResult(5, "") for _ in requests]


@pytest.mark.parametrize("chat", ["radio-week1.jsonl", "radio-week2.jsonl"])
def test_the_items_are_the_requests_score_persona_sends(sample_runs: Path, chat: str) -> None:
    run = tk.load_chat(sample_runs / "persona" / chat)
    props = tk.load_propositions(sample_runs / "persona" / "propositions")
    judge = Listening()
    tk.score_persona(run, props, judge)
    sent = [r for r in judge.asked if r.kind == "score"]
    items = persona_items(run, props)
    assert sorted(i.request.key() for i in items) == sorted(r.key() for r in sent)
    assert len({i.item_id for i in items}) == len(items) == len(sent)
    counted = [r for r in judge.asked if r.kind == "count"]
    assert counted and not {r.key() for r in counted} & {i.request.key() for i in items}


def test_item_ids_are_readable_stable_and_name_what_they_are_about(sample_runs: Path) -> None:
    chats = [sample_runs / "persona" / "radio-week2.jsonl"]
    props = sample_runs / "persona" / "propositions"
    first = items_of_files(chats, props)
    again = items_of_files(chats, props)
    assert [i.item_id for i in first] == [i.item_id for i in again]
    item = next(i for i in first if i.item_id == "radio-week2/lenny/adherence/lenny-corporate")
    assert (item.agent, item.dimension, item.proposition, item.subject) == (
        "Lenny", "adherence", "lenny-corporate", "lenny",
    )  # fmt: skip
    assert item.claim.startswith("Lenny sounds like a corporate memo")
    assert item.source == str(chats[0])
    assert item.anchor.startswith("s1-s5,")  # the file's first_n: 5, then the last entries
    group = [i for i in first if i.subject == "environment"]
    assert group and {i.agent for i in group} == {"environment"}


def test_two_chats_with_one_run_id_are_refused_by_both_names(
    tmp_path: Path, sample_runs: Path
) -> None:
    chat = sample_runs / "persona" / "radio-week1.jsonl"
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(chat.read_bytes())
    props = tk.load_propositions(sample_runs / "persona" / "propositions")
    chats = [(tk.load_chat(chat), str(chat)), (tk.load_chat(copy), str(copy))]
    with pytest.raises(InputError, match=r"copy\.jsonl.*the same run id as .*radio-week1"):
        persona_items_of(chats, props)
