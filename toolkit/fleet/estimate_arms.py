"""One arm of judged runs as the estimate's input (``toolkit compare A B --estimate
--ratings-a FILE --ratings-b FILE``).

A folder of persona chats or discussion games, judged (the judge on every item), joined
with the people's ratings of that arm: the calibration frame ``calibrate`` reads, with
the judge's scores on the items nobody rated kept (they are what narrow the PPI++
estimate). :func:`toolkit.rubrics.estimate.estimate_difference` then takes two of them.
Families with no judge (simulation, outcome, eval) have nothing to correct: refused.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from toolkit.errors import InputError
from toolkit.fleet.find import chat_files, detect_family
from toolkit.judge import judge_from_spec
from toolkit.load.discussion import load_discussions
from toolkit.load.item_ratings import load_item_ratings
from toolkit.load.ratings import open_rating_source
from toolkit.rubrics.discussion import (
    engagement_calibrate_rubric,
    engagement_calibration_scores,
    judge_discussion,
)
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


def judged_arm_frame(
    source: str | Path,
    ratings: str | Path,
    family: str,
    *,
    judge: Any,
    propositions: str | Path | None = None,
    personas: str | Path | None = None,
    judge_id: str = "judge",
) -> pl.DataFrame:
    """One arm's calibration frame: the judge on every item of ``source`` and the
    people's ``ratings`` of some (persona: the session's ratings store or its export;
    discussion: engagement ratings, game_id, rater, score).

    Raises:
        InputError: no ``judge`` (persona: no ``propositions``), or what the loaders and
            :func:`~toolkit.rubrics.persona_calibration.persona_calibration_frame` refuse.
    """
    if judge is None or (family == "persona" and propositions is None):
        need = "--judge SPEC" if judge is None else "--propositions DIR"
        raise InputError(source, f"{family} runs are judged here: give {need}",
                         field="--ratings-a/--ratings-b", value=str(ratings))  # fmt: skip
    the_judge = judge_from_spec(judge) if isinstance(judge, str) else judge
    if family == "persona" and propositions is not None:
        items = items_of_files(chat_files(source), propositions, personas=personas)
        return persona_calibration_frame(
            items, load_item_ratings(ratings), the_judge, judge_id=judge_id,
            ratings_name=str(ratings), unrated=True,
        )  # fmt: skip
    games = load_discussions([source])
    judged = judge_discussion(games, the_judge, metrics=["engagement"], progress=False)
    return engagement_calibration_scores(
        judged, games, open_rating_source(ratings), judge_id=judge_id
    )
