"""Persona arms of ``toolkit compare`` carry their epoch (the persona rubric's data and the
judge's basis), so two persona arms judged by different judges, or scored under different
persona rubrics, are fenced as not comparable like the other families' arms."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SAMPLE_RUNS

from toolkit.cli import main
from toolkit.errors import InputError
from toolkit.fleet.compare import arm_scores, compare, epoch_fence
from toolkit.judge import RecordedJudge

PERSONA = SAMPLE_RUNS / "persona"
WEEK1 = PERSONA / "radio-week1.jsonl"
PROPS = PERSONA / "propositions"


def _arm(judge: RecordedJudge, rubric: Path | None = None) -> object:
    return arm_scores(WEEK1, "persona", propositions=PROPS, judge=judge, family_rubric=rubric)


def test_a_persona_arm_carries_the_epoch_its_scorecards_are_stamped_with() -> None:
    import toolkit as tk

    judge = RecordedJudge(PERSONA / "cassette.json")
    arm = arm_scores(WEEK1, "persona", propositions=PROPS, judge=judge)
    assert arm.epoch is not None
    result = tk.score_persona(tk.load_chat(WEEK1), tk.load_propositions(PROPS), judge,
                              progress=False)  # fmt: skip
    stamped = {card.meta["epoch"] for card in result.scorecards.values()}
    assert stamped == {arm.epoch.id}
    assert arm.epoch.judge["cassette"] == judge.digest()


def test_two_persona_arms_of_different_judges_are_not_comparable() -> None:
    first = arm_scores(WEEK1, "persona", propositions=PROPS,
                       judge=RecordedJudge(PERSONA / "cassette.json"))  # fmt: skip
    second = arm_scores(WEEK1, "persona", propositions=PROPS,
                        judge=RecordedJudge(PERSONA / "second.cassette.json"))  # fmt: skip
    with pytest.raises(InputError) as refused:
        epoch_fence(first, second)
    message = str(refused.value)
    assert "different epochs" in message and "judge.cassette" in message
    [note] = epoch_fence(first, second, across_epochs=True)
    assert note.startswith("compared across epochs") and "judge.cassette" in note


def test_a_persona_rubric_per_arm_is_fenced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stricter = tmp_path / "persona.yaml"
    stricter.write_text("version: 1.1-local\ngreen_at: 8.0\n")
    judge = f"recorded:{PERSONA / 'cassette.json'}"
    with pytest.raises(InputError) as refused:
        compare(WEEK1, WEEK1, family="persona", propositions=PROPS, judge=judge,
                rubric_b=stricter, resamples=99)  # fmt: skip
    assert "parameters.green_at: 7.0 → 8.0" in str(refused.value)
    same = compare(WEEK1, WEEK1, family="persona", propositions=PROPS, judge=judge,
                   rubric_a=stricter, rubric_b=stricter, resamples=99)  # fmt: skip
    assert not [n for n in same.notes if "epoch" in n]
    code = main(["compare", str(WEEK1), str(WEEK1), "--propositions", str(PROPS), "--judge",
                 judge, "--rubric-b", str(stricter), "--resamples", "99"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "different epochs" in err and "Traceback" not in err
