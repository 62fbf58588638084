"""The discussion rubric's data: thresholds, cue lists and advice, versioned (1.2.0).

Every number and every word list the discussion rubric uses lives here, in one
:class:`DiscussionSpec`. A team can override any part from YAML with
:func:`load_discussion_spec`; changing a published version's content without bumping
its version is rejected.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from toolkit.errors import InputError, RubricError
from toolkit.io.edge import parse_yaml_text
from toolkit.rubrics._spec import RubricSpec, SpecPart, load_spec
from toolkit.rubrics.discussion._values import ENGAGEMENT_JSON as ENGAGEMENT_JSON
from toolkit.rubrics.discussion._values import (  # the data, also without pydantic
    METRIC_KEYS,
    PACKAGED_SCALE,
    PACKAGED_SCALE_NAME,
    PUBLISHED_DATA,
    guidance,
    scale_fingerprint,
    scale_hint,
)

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


class _Part(SpecPart):
    model_config = ConfigDict(extra="forbid", frozen=True)


#: The regex fields of the published rubrics and their lists: known good, not compiled again.
_PUBLISHED_PATTERNS: dict[str, set[tuple[str, ...]]] = {
    f"{part}.{name}": {tuple(data[part].get(name, ())) for data in PUBLISHED_DATA.values()}
    for part, name in (
        ("memory", "reference_patterns"),
        ("role", "no_reason"),
        ("role", "general_statements"),
    )
}


def _runnable(model: str, field: str, patterns: tuple[str, ...]) -> tuple[str, ...]:
    """``patterns`` (a regex field of the rubric), refused unless Polars' regex engine
    compiles them as the scorer will run them: the field with the refused pattern's index,
    the pattern, and the engine's reason (``unclosed group``)."""
    if patterns in _PUBLISHED_PATTERNS[field]:
        return patterns
    # polars and its regex engine (~0.15 s of CPU in a process that has not loaded polars):
    # only a rubric's own patterns are compiled; the default path never builds these models
    # (tests/test_startup_imports.py)
    from toolkit.rubrics.discussion.patterns import refused_pattern

    refused = refused_pattern(patterns)
    if refused is None:
        return patterns
    index, reason = refused
    error = PydanticCustomError(
        "regex", "not a regular expression the scorer can run: {reason}", {"reason": reason}
    )
    where: tuple[int, ...] = () if index is None else (index,)
    shown: Any = patterns if index is None else patterns[index]
    raise ValidationError.from_exception_data(
        model, [InitErrorDetails(type=error, loc=where, input=shown)]
    )


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
        return guidance(self.advice, self.fixes)


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

    @field_validator("reference_patterns")
    @classmethod
    def _patterns_run(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return _runnable(cls.__name__, "memory.reference_patterns", value)


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

    @field_validator("no_reason", "general_statements")
    @classmethod
    def _patterns_run(cls, value: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        return _runnable(cls.__name__, f"role.{info.field_name}", value)


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
        return scale_hint(self.hint_min_yes, self.hint_min_score)

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
        return scale_fingerprint(self.model_dump(mode="json", exclude={"version"}))


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


# The packaged instrument as ``_values`` read it (its JSON twin, without PyYAML).
DEFAULT_ENGAGEMENT_SCALE = _validated_scale(PACKAGED_SCALE, PACKAGED_SCALE_NAME)


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
DISCUSSION_SPEC_1_0_0 = DiscussionSpec.model_validate(PUBLISHED_DATA["1.0.0"])
#: Rubric 1.1.0: the source rubric's own examples (issue 23, items 7, 8, 11, 12, 13).
#: See docs/rubrics/discussion.md, "Changes in 1.1.0".
DISCUSSION_SPEC_1_1_0 = DiscussionSpec.model_validate(PUBLISHED_DATA["1.1.0"])
#: Rubric 1.2.0 (the default): 1.1.0, and a general statement about the game accuses
#: nobody (issue 37: ``role.general_statements``). See docs/rubrics/discussion.md,
#: "Changes in 1.2.0".
DEFAULT_DISCUSSION_SPEC = DiscussionSpec.model_validate(PUBLISHED_DATA["1.2.0"])

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
