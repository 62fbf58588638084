"""The discussion-quality rubric for LLM Mafia games: seven metrics, evidence, verdict.

Every metric is computed column-wise over the frames of a :class:`~toolkit.load.
discussion.Discussion` and keeps the evidence that decided it, per message or per
reference, in a :class:`DiscussionEvidence`. The numbers and cue lists come from a
:class:`DiscussionSpec` (rubric 1.2.0 by default).

Verdict per game: ``PASS`` when at least ``min_passed`` (5) of the seven metrics pass,
engagement >= 3.0 and the metadata cost is not over $3.00 (an unknown cost is shown as
unknown and does not decide, unless ``require_cost``); ``PENDING_RATING`` when only the
rating is missing to decide; ``FAIL`` otherwise, naming each reason.

One idea per module:

* the rubric's data: ``spec`` (thresholds, cues, the engagement instrument), ``schemas``
  (statuses and the evidence frames' schemas), ``text`` (the word and cue expressions
  the metrics share);
* the metrics, one module each: ``memory`` (1), ``strategic`` (2), ``coherence`` (3),
  ``role`` (4), ``diversity`` (5), ``repetition`` (6); engagement (7) is people's ratings;
* scoring: ``evidence`` (every metric's evidence, a reviewer's ``labels`` over it),
  ``tallies`` (per-game counts), ``metrics`` and ``details`` (scores, statuses, detail
  text), ``verdict`` (the rule), ``card`` (a game's scorecard), ``report`` and ``score``
  (:func:`score_discussion`);
* the judge: ``judge_spec`` (what it is asked), ``judge_requests`` (what it reads),
  ``judge`` (:func:`judge_discussion`), ``calibration`` (the engagement judge against
  people);
* iterations: ``comparison`` (:func:`compare`, baseline vs candidate) and ``success``
  (:func:`success_check`).

Each public name is imported on first use (PEP 562, as in :mod:`toolkit`), so reading the
spec (the rating server, the ratings store) does not import the scoring and its Polars.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolkit._lazy import attach

#: Public name -> the module that defines it (imported on first use).
_LAZY: dict[str, str] = {
    "score_discussion": "toolkit.rubrics.discussion.score",
    "DiscussionReport": "toolkit.rubrics.discussion.report",
    "DiscussionEvidence": "toolkit.rubrics.discussion.evidence",
    "decide_verdict": "toolkit.rubrics.discussion.verdict",
    "ACCURATE": "toolkit.rubrics.discussion.schemas",
    "FAIL": "toolkit.rubrics.discussion.schemas",
    "INACCURATE": "toolkit.rubrics.discussion.schemas",
    "MESSAGE_EVIDENCE_SCHEMA": "toolkit.rubrics.discussion.schemas",
    "METRIC_SCHEMA": "toolkit.rubrics.discussion.schemas",
    "NEEDS_REVIEW": "toolkit.rubrics.discussion.schemas",
    "PASS": "toolkit.rubrics.discussion.schemas",
    "PENDING": "toolkit.rubrics.discussion.schemas",
    "PENDING_RATING": "toolkit.rubrics.discussion.schemas",
    "PHRASE_SCHEMA": "toolkit.rubrics.discussion.schemas",
    "REFERENCE_SCHEMA": "toolkit.rubrics.discussion.schemas",
    "SIMILARITY_SCHEMA": "toolkit.rubrics.discussion.schemas",
    "memory_references": "toolkit.rubrics.discussion.memory",
    "strategic_evidence": "toolkit.rubrics.discussion.strategic",
    "coherence_evidence": "toolkit.rubrics.discussion.coherence",
    "role_evidence": "toolkit.rubrics.discussion.role",
    "speaker_similarity": "toolkit.rubrics.discussion.diversity",
    "phrase_uses": "toolkit.rubrics.discussion.repetition",
    "DEFAULT_DISCUSSION_SPEC": "toolkit.rubrics.discussion.spec",
    "DEFAULT_ENGAGEMENT_SCALE": "toolkit.rubrics.discussion.spec",
    "DISCUSSION_SPEC_1_0_0": "toolkit.rubrics.discussion.spec",
    "DISCUSSION_SPEC_1_1_0": "toolkit.rubrics.discussion.spec",
    "METRIC_KEYS": "toolkit.rubrics.discussion.spec",
    "DiscussionSpec": "toolkit.rubrics.discussion.spec",
    "EngagementQuestion": "toolkit.rubrics.discussion.spec",
    "EngagementScale": "toolkit.rubrics.discussion.spec",
    "ScaleLevel": "toolkit.rubrics.discussion.spec",
    "load_discussion_spec": "toolkit.rubrics.discussion.spec",
    "load_engagement_scale": "toolkit.rubrics.discussion.spec",
    "JUDGED_ITEMS_SCHEMA": "toolkit.rubrics.discussion.judge",
    "JUDGED_READINGS_SCHEMA": "toolkit.rubrics.discussion.judge",
    "JudgedDiscussion": "toolkit.rubrics.discussion.judge",
    "judge_discussion": "toolkit.rubrics.discussion.judge",
    "DEFAULT_DISCUSSION_JUDGE_SPEC": "toolkit.rubrics.discussion.judge_spec",
    "JUDGED_METRICS": "toolkit.rubrics.discussion.judge_spec",
    "DiscussionJudgeSpec": "toolkit.rubrics.discussion.judge_spec",
    "load_discussion_judge_spec": "toolkit.rubrics.discussion.judge_spec",
    "discussion_requests": "toolkit.rubrics.discussion.judge_requests",
    "engagement_bands": "toolkit.rubrics.discussion.judge_requests",
    "engagement_claim": "toolkit.rubrics.discussion.judge_requests",
    "game_text": "toolkit.rubrics.discussion.judge_requests",
    "CALIBRATED_METRICS": "toolkit.rubrics.discussion.calibration",
    "GAME_CALIBRATION_SCHEMA": "toolkit.rubrics.discussion.calibration",
    "engagement_calibrate_rubric": "toolkit.rubrics.discussion.calibration",
    "engagement_calibration_scores": "toolkit.rubrics.discussion.calibration",
    "COMPARISON_SCHEMA": "toolkit.rubrics.discussion.comparison",
    "Comparison": "toolkit.rubrics.discussion.comparison",
    "compare": "toolkit.rubrics.discussion.comparison",
    "BATCH_SCHEMA": "toolkit.rubrics.discussion.success",
    "SUCCESS_SCHEMA": "toolkit.rubrics.discussion.success",
    "SuccessCheck": "toolkit.rubrics.discussion.success",
    "success_check": "toolkit.rubrics.discussion.success",
}

__all__ = [*_LAZY]

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
    from toolkit.rubrics.discussion.coherence import coherence_evidence as coherence_evidence
    from toolkit.rubrics.discussion.comparison import COMPARISON_SCHEMA as COMPARISON_SCHEMA
    from toolkit.rubrics.discussion.comparison import Comparison as Comparison
    from toolkit.rubrics.discussion.comparison import compare as compare
    from toolkit.rubrics.discussion.diversity import speaker_similarity as speaker_similarity
    from toolkit.rubrics.discussion.evidence import DiscussionEvidence as DiscussionEvidence
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
    from toolkit.rubrics.discussion.memory import memory_references as memory_references
    from toolkit.rubrics.discussion.repetition import phrase_uses as phrase_uses
    from toolkit.rubrics.discussion.report import DiscussionReport as DiscussionReport
    from toolkit.rubrics.discussion.role import role_evidence as role_evidence
    from toolkit.rubrics.discussion.schemas import ACCURATE as ACCURATE
    from toolkit.rubrics.discussion.schemas import FAIL as FAIL
    from toolkit.rubrics.discussion.schemas import INACCURATE as INACCURATE
    from toolkit.rubrics.discussion.schemas import (
        MESSAGE_EVIDENCE_SCHEMA as MESSAGE_EVIDENCE_SCHEMA,
    )
    from toolkit.rubrics.discussion.schemas import METRIC_SCHEMA as METRIC_SCHEMA
    from toolkit.rubrics.discussion.schemas import NEEDS_REVIEW as NEEDS_REVIEW
    from toolkit.rubrics.discussion.schemas import PASS as PASS
    from toolkit.rubrics.discussion.schemas import PENDING as PENDING
    from toolkit.rubrics.discussion.schemas import PENDING_RATING as PENDING_RATING
    from toolkit.rubrics.discussion.schemas import PHRASE_SCHEMA as PHRASE_SCHEMA
    from toolkit.rubrics.discussion.schemas import REFERENCE_SCHEMA as REFERENCE_SCHEMA
    from toolkit.rubrics.discussion.schemas import SIMILARITY_SCHEMA as SIMILARITY_SCHEMA
    from toolkit.rubrics.discussion.score import score_discussion as score_discussion
    from toolkit.rubrics.discussion.spec import DEFAULT_DISCUSSION_SPEC as DEFAULT_DISCUSSION_SPEC
    from toolkit.rubrics.discussion.spec import DEFAULT_ENGAGEMENT_SCALE as DEFAULT_ENGAGEMENT_SCALE
    from toolkit.rubrics.discussion.spec import DISCUSSION_SPEC_1_0_0 as DISCUSSION_SPEC_1_0_0
    from toolkit.rubrics.discussion.spec import DISCUSSION_SPEC_1_1_0 as DISCUSSION_SPEC_1_1_0
    from toolkit.rubrics.discussion.spec import METRIC_KEYS as METRIC_KEYS
    from toolkit.rubrics.discussion.spec import DiscussionSpec as DiscussionSpec
    from toolkit.rubrics.discussion.spec import EngagementQuestion as EngagementQuestion
    from toolkit.rubrics.discussion.spec import EngagementScale as EngagementScale
    from toolkit.rubrics.discussion.spec import ScaleLevel as ScaleLevel
    from toolkit.rubrics.discussion.spec import load_discussion_spec as load_discussion_spec
    from toolkit.rubrics.discussion.spec import load_engagement_scale as load_engagement_scale
    from toolkit.rubrics.discussion.strategic import strategic_evidence as strategic_evidence
    from toolkit.rubrics.discussion.success import BATCH_SCHEMA as BATCH_SCHEMA
    from toolkit.rubrics.discussion.success import SUCCESS_SCHEMA as SUCCESS_SCHEMA
    from toolkit.rubrics.discussion.success import SuccessCheck as SuccessCheck
    from toolkit.rubrics.discussion.success import success_check as success_check
    from toolkit.rubrics.discussion.verdict import decide_verdict as decide_verdict
else:
    __getattr__, __dir__ = attach(__name__, _LAZY)
