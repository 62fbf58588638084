"""Moved: the judged readings of a discussion are in :mod:`toolkit.rubrics.discussion`
(``judge``, ``judge_spec``, ``judge_requests``, ``calibration``).

This path stays for the modules that still import it; each name is the package's own,
imported on first use through :mod:`toolkit.rubrics.discussion` (so asking for the judge
does not import the calibration and its NumPy).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolkit._lazy import attach

__all__ = [
    "CALIBRATED_METRICS",
    "DEFAULT_DISCUSSION_JUDGE_SPEC",
    "GAME_CALIBRATION_SCHEMA",
    "JUDGED_ITEMS_SCHEMA",
    "JUDGED_METRICS",
    "JUDGED_READINGS_SCHEMA",
    "DiscussionJudgeSpec",
    "JudgedDiscussion",
    "discussion_requests",
    "engagement_bands",
    "engagement_calibrate_rubric",
    "engagement_calibration_scores",
    "engagement_claim",
    "game_text",
    "judge_discussion",
    "load_discussion_judge_spec",
]

if TYPE_CHECKING:
    from toolkit.rubrics.discussion.calibration import CALIBRATED_METRICS as CALIBRATED_METRICS
    from toolkit.rubrics.discussion.calibration import (
        GAME_CALIBRATION_SCHEMA as GAME_CALIBRATION_SCHEMA,
    )
    from toolkit.rubrics.discussion.calibration import (
        engagement_calibrate_rubric as engagement_calibrate_rubric,
    )
    from toolkit.rubrics.discussion.calibration import (
        engagement_calibration_scores as engagement_calibration_scores,
    )
    from toolkit.rubrics.discussion.judge import JUDGED_ITEMS_SCHEMA as JUDGED_ITEMS_SCHEMA
    from toolkit.rubrics.discussion.judge import JUDGED_READINGS_SCHEMA as JUDGED_READINGS_SCHEMA
    from toolkit.rubrics.discussion.judge import JudgedDiscussion as JudgedDiscussion
    from toolkit.rubrics.discussion.judge import judge_discussion as judge_discussion
    from toolkit.rubrics.discussion.judge_requests import discussion_requests as discussion_requests
    from toolkit.rubrics.discussion.judge_requests import engagement_bands as engagement_bands
    from toolkit.rubrics.discussion.judge_requests import engagement_claim as engagement_claim
    from toolkit.rubrics.discussion.judge_requests import game_text as game_text
    from toolkit.rubrics.discussion.judge_spec import (
        DEFAULT_DISCUSSION_JUDGE_SPEC as DEFAULT_DISCUSSION_JUDGE_SPEC,
    )
    from toolkit.rubrics.discussion.judge_spec import JUDGED_METRICS as JUDGED_METRICS
    from toolkit.rubrics.discussion.judge_spec import DiscussionJudgeSpec as DiscussionJudgeSpec
    from toolkit.rubrics.discussion.judge_spec import (
        load_discussion_judge_spec as load_discussion_judge_spec,
    )
else:
    __getattr__, __dir__ = attach(__name__, dict.fromkeys(__all__, "toolkit.rubrics.discussion"))
