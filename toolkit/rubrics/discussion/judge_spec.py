"""What the judge is asked about a discussion: :class:`DiscussionJudgeSpec`, versioned.

The claims about one message or one reference, the engagement question, where a 0-9
answer counts as true, the batch size; a changed word or number needs a new version.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field

from toolkit.judge import MAX_BATCH
from toolkit.rubrics._spec import RubricSpec, load_spec

__all__ = [
    "DEFAULT_DISCUSSION_JUDGE_SPEC",
    "JUDGED_METRICS",
    "DiscussionJudgeSpec",
    "load_discussion_judge_spec",
]

#: The metrics that get a judged reading, in the rubric's order.
JUDGED_METRICS: tuple[str, ...] = ("memory_accuracy", "strategic_depth", "engagement")


class DiscussionJudgeSpec(RubricSpec):
    """What the judge is asked about a discussion (version 1.0.0; a changed word or number
    needs a new version, stamped into every judged scorecard).

    Attributes:
        true_at: a 0-9 claim (a message strategic, a reference accurate) counts as true
            at this score or above (the middle of the scale: "about as true as false"
            and up).
        strategic_claim: the claim about one message; ``{turn}``, ``{speaker}``,
            ``{text}`` are filled in.
        memory_claim: the claim about one reference; ``{turn}``, ``{speaker}``,
            ``{sentence}`` are filled in.
        engagement_question: the question of the 1-5 rating; the instrument's questions
            and hint follow it (from ``engagement.yaml``).
        excerpt_chars: the length of the evidence excerpt a calibration shows per game.
        batch_size: claims sent to the judge per call (at most 10).
    """

    rubric: str = "discussion-judge"
    version: str = "1.0.0"
    true_at: int = Field(default=5, ge=0, le=9)
    strategic_claim: str = (
        'Turn {turn}, {speaker}: "{text}" This message shows strategic depth: it reasons '
        "from evidence, argues a suspicion, a defence, trust or a vote, or analyses how "
        "other players behave; small talk and bare assertions do not count."
    )
    memory_claim: str = (
        'Turn {turn}, {speaker} says: "{sentence}" This reference to earlier events of the '
        "game is accurate: the messages and votes before turn {turn} support it."
    )
    engagement_question: str = (
        "How engaging is this discussion to watch? Rate it as a person watching the game "
        "would, using the scale's labels."
    )
    excerpt_chars: int = Field(default=280, ge=40)
    batch_size: int = Field(default=MAX_BATCH, ge=1, le=MAX_BATCH)


DEFAULT_DISCUSSION_JUDGE_SPEC = DiscussionJudgeSpec()


def load_discussion_judge_spec(source: str | Path | dict[str, Any]) -> DiscussionJudgeSpec:
    """The judge's questions with the overrides of ``source`` (a YAML path or a mapping).

    Raises:
        RubricError: a bad value, or changed words under the published version.
    """
    return load_spec(
        DiscussionJudgeSpec,
        source,
        DEFAULT_DISCUSSION_JUDGE_SPEC,
        {DEFAULT_DISCUSSION_JUDGE_SPEC.version: DEFAULT_DISCUSSION_JUDGE_SPEC},
    )
