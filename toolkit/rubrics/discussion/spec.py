"""The discussion rubric's data: thresholds, cue lists and advice, versioned (1.2.0).

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
from typing import Any, Literal

from pydantic import ConfigDict, Field, ValidationError, model_validator

from toolkit.errors import InputError, RubricError
from toolkit.io.edge import parse_yaml_text
from toolkit.rubrics._spec import RubricSpec, SpecPart, load_spec

__all__ = [
    "DEFAULT_DISCUSSION_SPEC",
    "DEFAULT_ENGAGEMENT_SCALE",
    "DISCUSSION_SPEC_1_0_0",
    "DISCUSSION_SPEC_1_1_0",
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


class _Part(SpecPart):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Metric(_Part):
    """One metric: its display name, pass threshold (score >= threshold passes), advice.

    ``fixes`` are the troubleshooting guide's specific changes to try when the metric
    fails (how much history, which temperature, how far to prune...), shown after the
    advice; a team rewrites them in its rubric YAML.
    """

    name: str
    threshold: float
    advice: str
    fixes: tuple[str, ...] = ()

    @property
    def guidance(self) -> str:
        """The advice followed by the fixes to try, as one line of text."""
        if not self.fixes:
            return self.advice
        return f"{self.advice} Fixes to try: {'; '.join(self.fixes)}."


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
    """Cue phrases (case-insensitive substrings) of role-breaking messages (metric 4).

    ``no_reason`` are regular expressions (case-insensitive) of a stated *absence* of a
    reason ("we don't have solid evidence", "without explanation"): they are removed
    before reason cues are looked for. With ``questions_in_role`` a Villager's question
    ("Why did you vote for Y?") is questioning a suspect, not an accusation: question
    sentences are left out of the accusation cues (deflection and defence cues still
    read them: "Why are you looking at me?" deflects).

    ``general_statements`` are regular expressions (case-insensitive) of a statement about
    the game that accuses nobody: an accusation cue whose subject or object is an unnamed,
    counted or indefinite group ("at least two of you are Mafia", "someone is lying",
    "we must vote out the Mafia"). They are removed before accusation cues are looked for;
    the rest of the sentence is still read ("someone is lying and Eve is Mafia" accuses).
    """

    mafia_over_certainty: tuple[str, ...]
    mafia_reveal: tuple[str, ...]
    accusation: tuple[str, ...]
    deflection: tuple[str, ...]
    defence: tuple[str, ...]
    reason: tuple[str, ...]
    no_reason: tuple[str, ...] = ()
    questions_in_role: bool = False
    general_statements: tuple[str, ...] = ()


class Success(_Part):
    """The success check over a series of tests (games in run order).

    A test is a batch of ``batch_size`` games; a batch passes when the means of its
    games' metric scores pass ``min_passed`` of 7, every game's engagement is at least
    ``min_engagement`` and every game's cost is under ``max_cost_usd``. The check is
    met after ``consecutive`` passing batches in a row. Going on to the next iteration
    ("proceed") also needs the streak's mean cache hit rate above
    ``min_cache_hit_rate`` and, with ``require_signoff``, a reviewer's recorded
    "fascinating to watch" sign-off on a game of the streak.
    """

    consecutive: int = Field(ge=1)
    min_passed: int = Field(ge=0, le=7)
    min_engagement: float
    max_cost_usd: float
    min_cache_hit_rate: float
    batch_size: int = Field(default=1, ge=1)
    require_signoff: bool = False


class ScaleLevel(_Part):
    """One level of the engagement scale, as raters see it."""

    score: int = Field(ge=1, le=5)
    label: str = Field(min_length=1)
    description: str


class EngagementQuestion(_Part):
    """One yes/no evaluation question asked beside the scale (``key`` is stored).

    ``required``: a rating cannot be submitted with it unanswered. Default false: no
    instrument said so before the field existed, and every rating saved so far was
    allowed with questions unanswered (the rater page asks before such a submit).
    """

    key: str = Field(min_length=1, pattern=r"^[a-z_]+$")
    text: str = Field(min_length=1)
    required: bool = False


class EngagementScale(_Part):
    """The engagement instrument (metric 7): the 1-5 scale, the questions, the hint.

    It is rubric data of its own (``toolkit/rubrics/engagement.yaml``, the 2L rubric's
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

    @property
    def required(self) -> tuple[EngagementQuestion, ...]:
        """The questions a rating cannot be submitted without."""
        return tuple(q for q in self.questions if q.required)

    def level(self, score: int) -> ScaleLevel:
        """The level of ``score``."""
        for level in self.levels:
            if level.score == score:
                return level
        raise KeyError(score)

    def fingerprint(self) -> str:
        """A hash of every label, description, question and number except the version."""
        payload = self.model_dump(mode="json", exclude={"version"})
        for question in payload["questions"]:
            # a question not required hashes as before the field existed, so a published
            # instrument keeps its fingerprint
            if not question["required"]:
                del question["required"]
        blob = json.dumps(payload, sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


#: The packaged instrument's file, beside this module.
ENGAGEMENT_FILE = "engagement.yaml"
#: Its JSON twin beside it (the same data), which the package reads.
ENGAGEMENT_JSON = "engagement.json"
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
    try:
        data = parse_yaml_text(text, name)
    except InputError as exc:
        raise RubricError(name, exc.reason, line=exc.line) from exc
    return _validated_scale(data, name)


def _validated_scale(data: Any, name: str) -> EngagementScale:
    try:
        scale = EngagementScale.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "(top level)"
        raise RubricError(name, err["msg"], field=where, value=err.get("input")) from exc
    return _checked_scale(scale, name)


def _packaged_scale() -> EngagementScale:
    # Read from the packaged file's JSON twin: the same data without PyYAML (its import
    # and parse, ~40 ms of CPU on every discussion score; issue 38). The YAML stays the
    # file people read and edit; tests/rubrics/test_engagement_instrument.py fails when
    # the two differ.
    source = resources.files("toolkit.rubrics").joinpath(ENGAGEMENT_JSON)
    return _validated_scale(json.loads(source.read_text(encoding="utf-8")), str(source))


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
    coherence_counts_first: bool = False
    phrase_words: int = Field(ge=1)
    phrase_names: Literal["exclude", "placeholder"] = "exclude"
    game_terms: tuple[str, ...]
    memory: MemoryCues
    role: RoleCues
    engagement_scale: EngagementScale = DEFAULT_ENGAGEMENT_SCALE

    def threshold(self, key: str) -> float:
        """The pass threshold of metric ``key``."""
        return self.metrics[key].threshold


#: Rubric 1.0.0, as first published (kept loadable: ``version: 1.0.0`` in a YAML).
DISCUSSION_SPEC_1_0_0 = DiscussionSpec(
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


def _fixes(**by_metric: tuple[str, ...]) -> dict[str, Metric]:
    return {
        k: m.model_copy(update={"fixes": by_metric.get(k, ())})
        for k, m in DISCUSSION_SPEC_1_0_0.metrics.items()
    }


_ROLE_1_0_0 = DISCUSSION_SPEC_1_0_0.role

#: Nobody in particular: an indefinite person, or a counted or unnamed part of a group
#: ("at least two of you", "one of us", "some of them", "the Mafia").
_NOBODY_IN_PARTICULAR = (
    r"(?:someone|somebody|anyone|anybody|whoever|no ?one|nobody|there"
    r"|(?:(?:at least|at most|exactly|maybe|probably|likely|statistically)\s+)*"
    r"(?:one|two|three|four|five|six|several|some|many|a few|a couple|both|\d+)"
    r"\s+(?:\w+\s+)?of\s+(?:you|us|them|the\s+\w+)"
    r"|(?:the|a|any|other)\s+mafia(?:\s+(?:players?|members?|team))?)"
)
#: Statements about the game that accuse nobody (issue 37: the real 2L game's first
#: message, "statistically at least two of you are Mafia hiding among us").
_GENERAL_STATEMENTS = (
    # a group as the subject: "two of you are Mafia", "someone is lying"
    r"\b" + _NOBODY_IN_PARTICULAR + r"\s+(?:is|are|must be|might be|could be|may be)\s+"
    r"(?:\w+\s+){0,2}?(?:mafia|suspicious|lying)\b",
    # a group as the object: "I suspect someone", "we must vote out the Mafia"
    r"\b(?:i suspect|i accuse|vote for|vote out|eliminate)\s+"
    + _NOBODY_IN_PARTICULAR
    + r"(?:\s+(?:is|are|must be)\s+(?:\w+\s+){0,2}?(?:mafia|suspicious|lying)\b)?",
)

#: Rubric 1.1.0: the source rubric's own examples (issue 23, items 7, 8, 11, 12, 13).
#: See docs/rubrics/discussion.md, "Changes in 1.1.0".
DISCUSSION_SPEC_1_1_0 = DISCUSSION_SPEC_1_0_0.model_copy(
    update={
        "version": "1.1.0",
        # 12: the formula's denominator is all messages; the first cannot link back.
        "coherence_counts_first": True,
        # 7: "I think [name] is suspicious" x 15 is repetition: names become a placeholder.
        "phrase_names": "placeholder",
        # 8: the rubric's deflection examples, its over-certain accusation, its
        # defence without evidence; a stated lack of evidence is not a reason.
        "role": _ROLE_1_0_0.model_copy(
            update={
                "accusation": (*_ROLE_1_0_0.accusation, "definitely mafia", "is definitely"),
                "deflection": (
                    *_ROLE_1_0_0.deflection,
                    "too hasty",
                    "seems hasty",
                    "be hasty",
                    "being hasty",
                    "jump to conclusions",
                    "jumping to conclusions",
                    "slow down",
                    "calm down",
                ),
                "defence": (*_ROLE_1_0_0.defence, "too harsh on", "being harsh on"),
                "no_reason": (
                    r"\b(?:no|without|lack of|lacking)\s+(?:\w+\s+){0,2}?"
                    r"(?:evidence|reason|reasons|proof|explanation)\b",
                    r"\b(?:don[’']?t|do not|doesn[’']?t|does not|didn[’']?t|did not)\s+"
                    r"(?:have|has|see|give|gave|show)\s+(?:\w+\s+){0,3}?"
                    r"(?:evidence|reason|reasons|proof|explanation)\b",
                ),
                "questions_in_role": True,
            }
        ),
        # 11: a test is a batch of 3 games; going on needs the sign-off.
        "success": DISCUSSION_SPEC_1_0_0.success.model_copy(
            update={"batch_size": 3, "require_signoff": True}
        ),
        # 13: the troubleshooting guide's specific fixes per failed metric.
        "metrics": _fixes(
            memory_accuracy=(
                "add more of the game's history to each agent's context (every vote, per round)",
                "ask agents to cite specific rounds",
                "or shrink the context window, which can sharpen focus",
            ),
            strategic_depth=(
                "instruct agents to build cases with evidence",
                "put example strategic statements in the prompt",
                "raise the temperature for more inventive reasoning",
            ),
            coherence=(
                "give each turn the last 5-10 messages, not 3",
                "add threading hints to the prompt",
                "ask agents to name who they answer",
            ),
            role_consistency=(
                "strengthen each role's strategy section in the prompt",
                "add an explicit 'do not' list per role",
                "try the prompts by role-playing them by hand first",
            ),
            personality_diversity=(
                "write longer personality descriptions with their own phrases",
                "give each agent a different personality (not drawn at random)",
                "raise the temperature to 0.9",
            ),
            anti_repetition=(
                "tell agents to vary their wording",
                "prune the context to the last 20-30 messages to cut the echo",
                "shuffle the speaking order between rounds",
            ),
            engagement=(
                "rework the prompts as a whole: this is the hardest metric to move",
                "offer more dramatic and emotional wording",
                "raise the stakes for more tension",
                "read transcripts for the statements that bore",
            ),
        ),
    }
)

#: Rubric 1.2.0 (the default): 1.1.0, and a general statement about the game accuses
#: nobody (issue 37: ``role.general_statements``). See docs/rubrics/discussion.md,
#: "Changes in 1.2.0".
DEFAULT_DISCUSSION_SPEC = DISCUSSION_SPEC_1_1_0.model_copy(
    update={
        "version": "1.2.0",
        "role": DISCUSSION_SPEC_1_1_0.role.model_copy(
            update={"general_statements": _GENERAL_STATEMENTS}
        ),
    }
)

#: Published versions and their exact content.
PUBLISHED: dict[str, DiscussionSpec] = {
    "1.0.0": DISCUSSION_SPEC_1_0_0,
    "1.1.0": DISCUSSION_SPEC_1_1_0,
    "1.2.0": DEFAULT_DISCUSSION_SPEC,
}


def load_discussion_spec(source: str | Path | Mapping[str, Any]) -> DiscussionSpec:
    """The discussion rubric with the overrides of ``source`` (a YAML path or a mapping).

    Raises:
        RubricError: a bad value, or changed numbers under a published version.
    """
    spec = load_spec(DiscussionSpec, source, DEFAULT_DISCUSSION_SPEC, PUBLISHED)
    path = None if isinstance(source, Mapping) else str(source)
    _checked_scale(spec.engagement_scale, path)
    return spec
