"""The discussion rubric's data: thresholds, cue lists and advice, versioned (1.0.0).

Every number and every word list the discussion rubric uses lives here, in one
:class:`DiscussionSpec`. A team can override any part from YAML with
:func:`load_discussion_spec`; changing a published version's content without bumping
its version is rejected.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

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
    label: str
    description: str


class EngagementQuestion(_Part):
    """One yes/no evaluation question asked beside the scale (``key`` is stored)."""

    key: str = Field(min_length=1, pattern=r"^[a-z_]+$")
    text: str


class EngagementScale(_Part):
    """What a rater sees for metric 7: the 1-5 scale, the evaluation questions, the hint.

    The hint is advice, never forced: ``hint_min_yes`` or more yes answers suggest a score
    of ``hint_min_score`` or more.
    """

    levels: tuple[ScaleLevel, ...]
    questions: tuple[EngagementQuestion, ...]
    hint_min_yes: int = Field(ge=1)
    hint_min_score: int = Field(ge=1, le=5)

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


DEFAULT_ENGAGEMENT_SCALE = EngagementScale(
    levels=(
        ScaleLevel(
            score=1,
            label="Boring",
            description="I would stop watching: nothing happens, players repeat themselves "
            "or talk past each other.",
        ),
        ScaleLevel(
            score=2,
            label="Dull",
            description="A few moments, mostly filler; I read on only to finish.",
        ),
        ScaleLevel(
            score=3,
            label="Interesting",
            description="Worth watching: real suspicions and answers; I wanted to know who "
            "the Mafia were.",
        ),
        ScaleLevel(
            score=4,
            label="Engaging",
            description="Tense and lively: accusations, defences and a turn I did not see coming.",
        ),
        ScaleLevel(
            score=5,
            label="Fascinating",
            description="I would show it to a friend: sharp reasoning, drama and a moment I "
            "will remember.",
        ),
    ),
    questions=(
        EngagementQuestion(key="suspense", text="Did you want to know who the Mafia were?"),
        EngagementQuestion(
            key="conflict", text="Were there real accusations that the accused had to answer?"
        ),
        EngagementQuestion(
            key="reasoning", text="Did players reason from what others said or how they voted?"
        ),
        EngagementQuestion(key="voices", text="Did the players sound like different people?"),
        EngagementQuestion(
            key="surprise",
            text="Was there a moment that surprised you (a reveal, a turn, a clever move)?",
        ),
    ),
    hint_min_yes=4,
    hint_min_score=3,
)


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
    return load_spec(DiscussionSpec, source, DEFAULT_DISCUSSION_SPEC, PUBLISHED)
