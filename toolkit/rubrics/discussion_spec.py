"""The discussion rubric's data: thresholds, cue lists and advice, versioned (1.0.0).

Every number and every word list the discussion rubric uses lives here, in one
:class:`DiscussionSpec`. A team can override any part from YAML with
:func:`load_discussion_spec`; changing a published version's content without bumping
its version is rejected.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from toolkit.errors import InputError, RubricError
from toolkit.rubrics._spec import RubricSpec, load_spec

__all__ = [
    "DEFAULT_DISCUSSION_SPEC",
    "DEFAULT_ENGAGEMENT_SCALE",
    "METRIC_KEYS",
    "DiscussionSpec",
    "EngagementQuestion",
    "EngagementScale",
    "ScaleLevel",
    "load_discussion_spec",
    "load_engagement_scale",
]

#: The seven metrics, in scorecard order.
METRIC_KEYS: tuple[str, ...] = (
    "memory_accuracy",
    "strategic_depth",
    "coherence",
    "role_consistency",
    "personality_diversity",
    "anti_repetition",
    "engagement",
)


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Metric(_Part):
    """One metric: its display name, pass threshold (score >= threshold passes), advice."""

    name: str
    threshold: float
    advice: str


class MemoryCues(_Part):
    """How references to past events are found and checked (metric 1).

    ``reference_patterns`` are regular expressions (case-insensitive); a sentence that
    matches one is a reference. The verb lists decide the claim's kind: a vote claim is
    checked against the votes, a speech claim against the actor's earlier messages, a
    stance claim (accused/defended X) against the actor's earlier messages naming X.
    """

    reference_patterns: tuple[str, ...]
    vote_verbs: tuple[str, ...]
    speech_verbs: tuple[str, ...]
    stance_verbs: tuple[str, ...]
    self_words: tuple[str, ...]
    addressee_words: tuple[str, ...]
    last_round_words: tuple[str, ...]


class RoleCues(_Part):
    """Cue phrases (case-insensitive substrings) of role-breaking messages (metric 4)."""

    mafia_over_certainty: tuple[str, ...]
    mafia_reveal: tuple[str, ...]
    accusation: tuple[str, ...]
    deflection: tuple[str, ...]
    defence: tuple[str, ...]
    reason: tuple[str, ...]


class Success(_Part):
    """The success check over a series of tests (games in order)."""

    consecutive: int = Field(ge=1)
    min_passed: int = Field(ge=0, le=7)
    min_engagement: float
    max_cost_usd: float
    min_cache_hit_rate: float


class ScaleLevel(_Part):
    """One level of the engagement scale, as raters see it."""

    score: int = Field(ge=1, le=5)
    label: str = Field(min_length=1)
    description: str


class EngagementQuestion(_Part):
    """One yes/no evaluation question asked beside the scale (``key`` is stored)."""

    key: str = Field(min_length=1, pattern=r"^[a-z_]+$")
    text: str = Field(min_length=1)


class EngagementScale(_Part):
    """The engagement instrument (metric 7): the 1-5 scale, the questions, the hint.

    It is rubric data of its own (``engagement.yaml`` beside this module, the 2L rubric's
    scale and five questions by default), versioned apart from the rest of the
    discussion rubric: its ``version`` is stamped into every rating saved with it, so a
    rating always says which labels and questions the rater saw. The notebook widget and
    the rating server both read it from here.

    The hint is advice, never forced: ``hint_min_yes`` or more yes answers suggest a score
    of ``hint_min_score`` or more.
    """

    instrument: str = "engagement"
    version: str = Field(min_length=1)
    levels: tuple[ScaleLevel, ...]
    questions: tuple[EngagementQuestion, ...]
    hint_min_yes: int = Field(ge=1)
    hint_min_score: int = Field(ge=1, le=5)

    @model_validator(mode="after")
    def _complete(self) -> EngagementScale:
        scores = [level.score for level in self.levels]
        if scores != [1, 2, 3, 4, 5]:
            raise ValueError(f"levels must be the scores 1 to 5 in order, not {scores}")
        keys = [q.key for q in self.questions]
        if not keys or len(set(keys)) != len(keys):
            raise ValueError(f"question keys must be present and distinct, not {keys}")
        if self.hint_min_yes > len(keys):
            raise ValueError(
                f"hint_min_yes ({self.hint_min_yes}) is more than the {len(keys)} questions"
            )
        return self

    @property
    def hint(self) -> str:
        """The hint in words."""
        return (
            f"{self.hint_min_yes} or more yes answers suggest a score of "
            f"{self.hint_min_score} or more."
        )

    def level(self, score: int) -> ScaleLevel:
        """The level of ``score``."""
        for level in self.levels:
            if level.score == score:
                return level
        raise KeyError(score)

    def fingerprint(self) -> str:
        """A hash of every label, description, question and number except the version."""
        payload = self.model_dump(mode="json", exclude={"version"})
        blob = json.dumps(payload, sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


#: The packaged instrument's file, beside this module.
ENGAGEMENT_FILE = "engagement.yaml"
#: Published instrument versions and the fingerprint of their content: a packaged or
#: loaded instrument that keeps a published version with other content is refused.
PUBLISHED_ENGAGEMENT_SCALES: dict[str, str] = {"2L-1.0.0": "8346ddf9bf174012"}


def _checked_scale(scale: EngagementScale, path: str | None) -> EngagementScale:
    known = PUBLISHED_ENGAGEMENT_SCALES.get(scale.version)
    if known is not None and known != scale.fingerprint():
        raise RubricError(
            path,
            f"the engagement instrument differs from published version {scale.version}; "
            "bump its version",
            field="engagement_scale.version",
            value=scale.version,
        )
    return scale


def load_engagement_scale(text: str, name: str) -> EngagementScale:
    """The engagement instrument from YAML text (the packaged ``engagement.yaml`` or a
    team's own), validated and checked against its published version.

    Raises:
        RubricError: one line naming the file, the field and the value.
    """
    from toolkit.load._edge import parse_yaml_text

    try:
        data = parse_yaml_text(text, name)
    except InputError as exc:
        raise RubricError(name, exc.reason, line=exc.line) from exc
    try:
        scale = EngagementScale.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "(top level)"
        raise RubricError(name, err["msg"], field=where, value=err.get("input")) from exc
    return _checked_scale(scale, name)


def _packaged_scale() -> EngagementScale:
    source = resources.files("toolkit.rubrics").joinpath(ENGAGEMENT_FILE)
    return load_engagement_scale(source.read_text(encoding="utf-8"), str(source))


DEFAULT_ENGAGEMENT_SCALE = _packaged_scale()


class DiscussionSpec(RubricSpec):
    """The discussion rubric. See ``docs/rubrics/discussion.md`` for each number's meaning."""

    metrics: dict[str, Metric]
    min_passed: int = Field(ge=0, le=7)
    max_cost_usd: float = Field(gt=0)
    baseline_games: int = Field(ge=1)
    success: Success
    strategic_keywords: dict[str, tuple[str, ...]]
    coherence_window: int = Field(ge=1)
    coherence_min_shared_words: int = Field(ge=1)
    coherence_min_word_length: int = Field(ge=1)
    similarity_threshold: float = Field(gt=0, le=1)
    phrase_words: int = Field(ge=1)
    game_terms: tuple[str, ...]
    memory: MemoryCues
    role: RoleCues
    engagement_scale: EngagementScale = DEFAULT_ENGAGEMENT_SCALE

    def threshold(self, key: str) -> float:
        """The pass threshold of metric ``key``."""
        return self.metrics[key].threshold


DEFAULT_DISCUSSION_SPEC = DiscussionSpec(
    rubric="discussion",
    version="1.0.0",
    metrics={
        "memory_accuracy": Metric(
            name="Memory accuracy",
            threshold=0.80,
            advice=(
                "Agents misremember: put a compact, factual history (votes per round, who "
                "accused whom) into each agent's context, and tell them to cite only it."
            ),
        ),
        "strategic_depth": Metric(
            name="Strategic depth",
            threshold=0.60,
            advice=(
                "Messages are small talk: ask for a suspicion or a defence with a reason in "
                "every turn, and show an example of reasoning from evidence."
            ),
        ),
        "coherence": Metric(
            name="Conversation coherence",
            threshold=0.70,
            advice=(
                "Agents talk past each other: give each turn the last few messages and ask "
                "the agent to answer a named player."
            ),
        ),
        "role_consistency": Metric(
            name="Role consistency",
            threshold=0.80,
            advice=(
                "Agents break role: restate the role's goals and limits in the system prompt "
                "(Mafia never accuse a partner nor sound certain; Villagers give reasons)."
            ),
        ),
        "personality_diversity": Metric(
            name="Personality diversity",
            threshold=0.50,
            advice=(
                "Agents sound alike: make personalities concrete (voice, sentence length, "
                "pet phrases) and vary the sampling temperature per agent."
            ),
        ),
        "anti_repetition": Metric(
            name="Anti-repetition",
            threshold=0.90,
            advice=(
                "Agents repeat themselves: show each agent its own previous messages and ask "
                "for a new point; raise the frequency penalty."
            ),
        ),
        "engagement": Metric(
            name="Engagement",
            threshold=3.0,
            advice=(
                "People find the game dull: add conflict (accusations that need answers), "
                "reveals, and shorter, sharper turns."
            ),
        ),
    },
    min_passed=5,
    max_cost_usd=3.00,
    baseline_games=3,
    success=Success(
        consecutive=3,
        min_passed=5,
        min_engagement=3.0,
        max_cost_usd=2.00,
        min_cache_hit_rate=0.70,
    ),
    strategic_keywords={
        "evidence": ("because", "evidence", "pattern", "reason"),
        "strategic": ("vote", "suspicious", "innocent", "trust", "defend", "accuse"),
        "analytical": ("think", "believe", "consistent", "inconsistent"),
    },
    coherence_window=3,
    coherence_min_shared_words=2,
    coherence_min_word_length=5,
    similarity_threshold=0.70,
    phrase_words=3,
    game_terms=(
        "vote",
        "mafia",
        "villager",
        "village",
        "round",
        "eliminate",
        "player",
        "night",
        "lynch",
        "game",
        "role",
        "town",
        "kill",
    ),
    memory=MemoryCues(
        reference_patterns=(
            r"\bin round \d+\b",
            r"\bround \d+\b",
            r"\blast round\b",
            r"\bprevious round\b",
            r"\bpreviously\b",
            r"\bearlier\b",
            r"\byesterday\b",
            r"\bvoted (for|against)\b",
            r"\byou said\b",
            r"\bremember\b",
        ),
        vote_verbs=(
            "voted for",
            "voted against",
            "voted to eliminate",
            "voted",
            "did vote for",
            "did vote against",
        ),
        speech_verbs=(
            "said",
            "says",
            "claimed",
            "asked",
            "suggested",
            "mentioned",
            "admitted",
            "told",
            "stated",
            "wrote",
        ),
        stance_verbs=(
            "accused",
            "attacked",
            "defended",
            "protected",
            "questioned",
            "suspected",
            "targeted",
            "blamed",
            "vouched for",
        ),
        self_words=("i", "me", "myself"),
        addressee_words=("you",),
        last_round_words=("last round", "previous round", "yesterday"),
    ),
    role=RoleCues(
        mafia_over_certainty=(
            "definitely mafia",
            "definitely the mafia",
            "100% mafia",
            "certainly mafia",
            "absolutely mafia",
            "without a doubt",
            "no doubt about it",
            "i'm certain",
            "i am certain",
            "guaranteed mafia",
        ),
        mafia_reveal=(
            "i am mafia",
            "i'm mafia",
            "as mafia",
            "as a mafia",
            "we mafia",
            "my fellow mafia",
            "my mafia partner",
            "our mafia team",
            "us mafia",
        ),
        accusation=(
            "is mafia",
            "are mafia",
            "is suspicious",
            "i suspect",
            "i accuse",
            "vote for",
            "vote out",
            "eliminate",
            "is lying",
            "you're lying",
            "must be mafia",
        ),
        deflection=(
            "let's move on",
            "not important",
            "look at someone else",
            "focus on someone else",
            "why are you looking at me",
            "stop focusing on me",
            "leave me alone",
            "instead of me",
            "not about me",
        ),
        defence=(
            "is innocent",
            "is not mafia",
            "isn't mafia",
            "i trust",
            "i vouch for",
            "leave them alone",
            "is clearly a villager",
            "i believe them",
        ),
        reason=(
            "because",
            "since",
            "evidence",
            "noticed",
            "pattern",
            "reason",
            "based on",
            "given that",
            "considering",
            "earlier",
            "said",
            "claimed",
            "voted",
            "timing",
            "behavior",
            "behaviour",
            "inconsistent",
            "contradict",
        ),
    ),
)

#: Published versions and their exact content.
PUBLISHED: dict[str, DiscussionSpec] = {"1.0.0": DEFAULT_DISCUSSION_SPEC}


def load_discussion_spec(source: str | Path | Mapping[str, Any]) -> DiscussionSpec:
    """The discussion rubric with the overrides of ``source`` (a YAML path or a mapping).

    Raises:
        RubricError: a bad value, or changed numbers under a published version.
    """
    spec = load_spec(DiscussionSpec, source, DEFAULT_DISCUSSION_SPEC, PUBLISHED)
    path = None if isinstance(source, Mapping) else str(source)
    _checked_scale(spec.engagement_scale, path)
    return spec
