"""One arm of judged runs as the estimate's input (``toolkit compare A B --estimate
--ratings-a FILE --ratings-b FILE``).

A folder of persona chats or discussion games, judged (the judge on every item), joined
with the people's ratings of that arm: the calibration frame ``calibrate`` reads, with
the judge's scores on the items nobody rated kept (they are what narrow the PPI++
estimate). :func:`toolkit.rubrics.estimate.estimate_difference` then takes two of them.
Families with no judge (simulation, outcome, eval) have nothing to correct: refused.

Each arm carries its epoch (:mod:`toolkit.epoch`), the one its family's scorecards are
stamped with: persona, :func:`~toolkit.rubrics.persona.persona_epoch` (the persona
rubric's data and the judge's basis); discussion, the discussion rubric's with the judge's
basis (engagement decided by the judge). Two arms of different epochs are fenced as
``toolkit compare`` fences them (:func:`estimate_fence`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from toolkit.epoch import Epoch
from toolkit.errors import InputError
from toolkit.fleet.compare import ArmScores, epoch_fence
from toolkit.fleet.find import chat_files, detect_family
from toolkit.fleet.rescore_persona import persona_rubric
from toolkit.judge import judge_from_spec
from toolkit.load.discussion import load_discussions
from toolkit.load.item_ratings import load_item_ratings
from toolkit.load.ratings import open_rating_source
from toolkit.rubrics.discussion import (
    engagement_calibrate_rubric,
    engagement_calibration_scores,
    judge_discussion,
)
from toolkit.rubrics.discussion.epoch import discussion_epoch
from toolkit.rubrics.discussion.spec import DEFAULT_DISCUSSION_SPEC
from toolkit.rubrics.persona import persona_epoch
from toolkit.rubrics.persona_calibration import persona_calibration_frame
from toolkit.rubrics.persona_items import items_of_files

#: The families whose scores come from a judge people can correct.
JUDGED_FAMILIES: tuple[str, ...] = ("persona", "discussion")
#: An item passes at this score or above, per family (persona 0-9; engagement 1-5).
PASS_AT: dict[str, float] = {
    "persona": 5.0,
    "discussion": engagement_calibrate_rubric().threshold,
}


def judged_family(source: str | Path, family: str = "auto") -> str:
    """The family of ``source`` (told from it for ``auto``), when it is a judged one.

    Raises:
        InputError: a family with no judge (simulation, outcome, eval), in one line.
    """
    fam = detect_family(source) if family == "auto" else family
    if fam not in JUDGED_FAMILIES:
        raise InputError(
            source, f"{fam} runs have no judge for people's ratings to correct: "
            "--ratings-a/--ratings-b are for persona and discussion runs",
            field="--family", value=fam,
        )  # fmt: skip
    return fam


@dataclass(frozen=True)
class JudgedArm:
    """One arm of judged runs: its calibration frame, what it is called, its family and
    the epoch its scores were measured under."""

    frame: pl.DataFrame
    label: str
    family: str
    epoch: Epoch


def judged_arm(
    source: str | Path,
    ratings: str | Path,
    family: str,
    *,
    judge: Any,
    propositions: str | Path | None = None,
    personas: str | Path | None = None,
    judge_id: str = "judge",
    rubric: str | Path | Mapping[str, Any] | None = None,
) -> JudgedArm:
    """One arm: the judge on every item of ``source`` and the people's ``ratings`` of
    some (persona: the session's ratings store or its export; discussion: engagement
    ratings, game_id, rater, score), with the arm's epoch (persona: under ``rubric``, a
    persona rubric file, mapping or published version, the default without).

    Raises:
        InputError: no ``judge`` (persona: no ``propositions``), a ``rubric`` for a
            discussion arm, or what the loaders and
            :func:`~toolkit.rubrics.persona_calibration.persona_calibration_frame` refuse.
    """
    if judge is None or (family == "persona" and propositions is None):
        need = "--judge SPEC" if judge is None else "--propositions DIR"
        raise InputError(source, f"{family} runs are judged here: give {need}",
                         field="--ratings-a/--ratings-b", value=str(ratings))  # fmt: skip
    if rubric is not None and family != "persona":
        raise InputError(source, "a rubric per arm is for persona arms here",
                         field="--rubric-a/--rubric-b", value=str(rubric))  # fmt: skip
    the_judge = judge_from_spec(judge) if isinstance(judge, str) else judge
    label = str(source).rstrip("/").rsplit("/", 1)[-1] or str(source)
    if family == "persona" and propositions is not None:
        items = items_of_files(chat_files(source), propositions, personas=personas)
        frame = persona_calibration_frame(
            items, load_item_ratings(ratings), the_judge, judge_id=judge_id,
            ratings_name=str(ratings), unrated=True,
        )  # fmt: skip
        return JudgedArm(frame, label, family, persona_epoch(persona_rubric(rubric), the_judge))
    games = load_discussions([source])
    judged = judge_discussion(games, the_judge, metrics=["engagement"], progress=False)
    frame = engagement_calibration_scores(
        judged, games, open_rating_source(ratings), judge_id=judge_id
    )
    epoch = discussion_epoch(
        DEFAULT_DISCUSSION_SPEC, judged.basis, require_cost=False, engagement="judge"
    )
    return JudgedArm(frame, label, family, epoch)


def estimate_fence(a: JudgedArm, b: JudgedArm, across_epochs: bool = False) -> list[str]:
    """The fence between two judged arms, as ``toolkit compare``'s between two scored
    ones (:func:`toolkit.fleet.compare.epoch_fence`): nothing under one epoch; with
    ``across_epochs``, a note naming both epochs and what differs.

    Raises:
        InputError: the epochs differ and ``across_epochs`` is not set.
    """
    arms = [ArmScores(arm.frame, arm.label, arm.family, (), arm.epoch) for arm in (a, b)]
    return epoch_fence(arms[0], arms[1], across_epochs)
