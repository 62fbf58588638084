"""The discussion rubric's data as plain values, without pydantic: what ``toolkit
discussion`` scores with by default (issue 38).

Importing pydantic and building the rubric's model classes costs about 0.1 s of CPU, a
third of one ``toolkit discussion`` above ``import polars``. The scorers only read the
rubric's attributes, a few methods (``threshold``, ``guidance``, the engagement scale's
``hint``, ``required``, ``level`` and ``fingerprint``) and its JSON form (for the epoch),
so the published versions' data is written here once, as the dicts pydantic's
``model_dump()`` gives (field order included), and the default (1.2.0) is kept as
:data:`DEFAULT_VALUES`, a read-only view of that data answering those reads as
:data:`toolkit.rubrics.discussion.DEFAULT_DISCUSSION_SPEC` does. The pydantic models in
:mod:`.spec` are built from the same data, and imported the first time a user names one
(``DiscussionSpec``, ``DEFAULT_DISCUSSION_SPEC``, ``--rubric``);
``tests/rubrics/test_discussion_values.py`` checks that every read, ``model_dump`` and
epoch of :data:`DEFAULT_VALUES` equals the model's.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, cast

from toolkit.rubrics._plain_values import PlainValues

if TYPE_CHECKING:
    from toolkit.rubrics.discussion.spec import DiscussionSpec

__all__ = ["DEFAULT_DATA", "DEFAULT_VALUES", "METRIC_KEYS", "PUBLISHED_DATA", "SpecValues"]

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

#: The packaged engagement instrument's JSON twin of ``engagement.yaml`` (the same data),
#: which the package reads.
ENGAGEMENT_JSON = "engagement.json"


# ---------------------------------------------------------------------------
# What the models and the plain values both answer (one implementation)
# ---------------------------------------------------------------------------


def guidance(advice: str, fixes: tuple[str, ...]) -> str:
    """A metric's advice followed by its fixes to try, as one line of text."""
    if not fixes:
        return advice
    return f"{advice} Fixes to try: {'; '.join(fixes)}."


def scale_hint(min_yes: int, min_score: int) -> str:
    """The engagement scale's hint in words."""
    return f"{min_yes} or more yes answers suggest a score of {min_score} or more."


def scale_fingerprint(payload: dict[str, Any]) -> str:
    """The engagement scale's fingerprint from its JSON form without the version: every
    label, description, question and number. A question not required hashes as before
    the field existed, so a published instrument keeps its fingerprint."""
    for question in payload["questions"]:
        if not question["required"]:
            del question["required"]
    blob = json.dumps(payload, sort_keys=True).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


def spec_fingerprint(payload: dict[str, Any]) -> str:
    """A rubric's fingerprint from its JSON form without the version
    (:meth:`toolkit.rubrics._spec.RubricSpec.fingerprint`)."""
    blob = json.dumps(payload, sort_keys=True).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


# ---------------------------------------------------------------------------
# The read-only views
# ---------------------------------------------------------------------------


class Values(PlainValues):
    """A read-only view of one part of the rubric's data: each key an attribute (a
    nested part a view of its own, as :attr:`_parts` says), ``model_dump`` as pydantic
    writes it, compared and hashed as the model is (:class:`PlainValues`)."""

    __slots__ = ()
    #: How a key's data becomes its value (a nested view, a dict of views...).
    _parts: ClassVar[Mapping[str, Callable[[Any], Any]]] = {}

    def __init__(self, data: Mapping[str, Any]) -> None:
        parts = self._parts
        self._set("_fields", {k: parts[k](v) if k in parts else v for k, v in data.items()})

    def __reduce__(self) -> tuple[type[Values], tuple[dict[str, Any]]]:
        # pickled (a process pool) as its data, rebuilt by __init__
        return (type(self), (self.model_dump(),))


class MetricValues(Values):
    """One metric (``Metric``): name, threshold, advice, fixes."""

    __slots__ = ()

    @property
    def guidance(self) -> str:
        """The advice followed by the fixes to try, as one line of text."""
        return guidance(self._fields["advice"], self._fields["fixes"])


class ScaleValues(Values):
    """The engagement instrument (``EngagementScale``)."""

    __slots__ = ()
    _parts: ClassVar[Mapping[str, Callable[[Any], Any]]] = {
        "levels": lambda levels: tuple(Values(level) for level in levels),
        "questions": lambda questions: tuple(Values(q) for q in questions),
    }

    @property
    def hint(self) -> str:
        """The hint in words."""
        return scale_hint(self._fields["hint_min_yes"], self._fields["hint_min_score"])

    @property
    def required(self) -> tuple[Any, ...]:
        """The questions a rating cannot be submitted without."""
        return tuple(q for q in self._fields["questions"] if q.required)

    def level(self, score: int) -> Any:
        """The level of ``score``."""
        for level in self._fields["levels"]:
            if level.score == score:
                return level
        raise KeyError(score)

    def fingerprint(self) -> str:
        """A hash of every label, description, question and number except the version."""
        return scale_fingerprint(self.model_dump(mode="json", exclude={"version"}))


class SpecValues(Values):
    """The whole discussion rubric (``DiscussionSpec``)."""

    __slots__ = ()
    _parts: ClassVar[Mapping[str, Callable[[Any], Any]]] = {
        "metrics": lambda metrics: {k: MetricValues(m) for k, m in metrics.items()},
        "success": Values,
        "strategic_keywords": dict,
        "memory": Values,
        "role": Values,
        "engagement_scale": ScaleValues,
    }

    def threshold(self, key: str) -> float:
        """The pass threshold of metric ``key``."""
        return float(self._fields["metrics"][key].threshold)

    def fingerprint(self) -> str:
        """A hash of every number and word in the rubric except its version."""
        return spec_fingerprint(self.model_dump(mode="json", exclude={"version"}))

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Any:
        """The pydantic model these values stand for, copied with ``update`` as the
        model's ``model_copy`` does: the way a notebook varies the rubric."""
        # the models (pydantic and the rubric's classes, ~0.1 s of CPU): only when a
        # copy is asked for, never on the default path (tests/test_startup_imports.py)
        from toolkit.rubrics.discussion.spec import DiscussionSpec

        model = DiscussionSpec.model_validate(self.model_dump())
        return model.model_copy(update=update, deep=deep)


def _updated(base: dict[str, Any], update: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` with the keys of ``update`` replaced in place (as a model's
    ``model_copy(update=...)``: the fields keep their order)."""
    return {**base, **update}


def read_packaged_scale() -> tuple[Any, str]:
    """The packaged engagement instrument's data (its JSON twin: the same data without
    PyYAML, ~40 ms of CPU; tests/rubrics/test_engagement_instrument.py fails when the two
    differ) and the file's name."""
    # the file beside the ``toolkit.rubrics`` package's modules, where the wheel puts it and
    # where ``importlib.resources.files`` finds it for a package on disk; read by path, not
    # through ``files()``, whose reader modules cost ~1.5 ms of every discussion run (issue 38)
    source = Path(__file__).parent.parent / ENGAGEMENT_JSON
    return json.loads(source.read_text(encoding="utf-8")), str(source)


def _scale_data(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The packaged instrument in ``EngagementScale.model_dump()`` form: its defaults
    (``instrument``, a question's ``required``) filled in, in the model's field order."""
    return {
        "instrument": raw.get("instrument", "engagement"),
        "version": raw["version"],
        "levels": tuple(
            {"score": lv["score"], "label": lv["label"], "description": lv["description"]}
            for lv in raw["levels"]
        ),
        "questions": tuple(
            {"key": q["key"], "text": q["text"], "required": q.get("required", False)}
            for q in raw["questions"]
        ),
        "hint_min_yes": raw["hint_min_yes"],
        "hint_min_score": raw["hint_min_score"],
    }


# ---------------------------------------------------------------------------
# The published versions, in ``DiscussionSpec.model_dump()`` form (without the
# engagement instrument, a part of its own: the packaged one by default)
# ---------------------------------------------------------------------------

#: Rubric 1.0.0, as first published (kept loadable: ``version: 1.0.0`` in a YAML).
DATA_1_0_0: dict[str, Any] = dict(
    rubric="discussion",
    version="1.0.0",
    metrics={
        "memory_accuracy": dict(
            name="Memory accuracy",
            threshold=0.80,
            advice=(
                "Agents misremember: put a compact, factual history (votes per round, who "
                "accused whom) into each agent's context, and tell them to cite only it."
            ),
            fixes=(),
        ),
        "strategic_depth": dict(
            name="Strategic depth",
            threshold=0.60,
            advice=(
                "Messages are small talk: ask for a suspicion or a defence with a reason in "
                "every turn, and show an example of reasoning from evidence."
            ),
            fixes=(),
        ),
        "coherence": dict(
            name="Conversation coherence",
            threshold=0.70,
            advice=(
                "Agents talk past each other: give each turn the last few messages and ask "
                "the agent to answer a named player."
            ),
            fixes=(),
        ),
        "role_consistency": dict(
            name="Role consistency",
            threshold=0.80,
            advice=(
                "Agents break role: restate the role's goals and limits in the system prompt "
                "(Mafia never accuse a partner nor sound certain; Villagers give reasons)."
            ),
            fixes=(),
        ),
        "personality_diversity": dict(
            name="Personality diversity",
            threshold=0.50,
            advice=(
                "Agents sound alike: make personalities concrete (voice, sentence length, "
                "pet phrases) and vary the sampling temperature per agent."
            ),
            fixes=(),
        ),
        "anti_repetition": dict(
            name="Anti-repetition",
            threshold=0.90,
            advice=(
                "Agents repeat themselves: show each agent its own previous messages and ask "
                "for a new point; raise the frequency penalty."
            ),
            fixes=(),
        ),
        "engagement": dict(
            name="Engagement",
            threshold=3.0,
            advice=(
                "People find the game dull: add conflict (accusations that need answers), "
                "reveals, and shorter, sharper turns."
            ),
            fixes=(),
        ),
    },
    min_passed=5,
    max_cost_usd=3.00,
    baseline_games=3,
    success=dict(
        consecutive=3,
        min_passed=5,
        min_engagement=3.0,
        max_cost_usd=2.00,
        min_cache_hit_rate=0.70,
        batch_size=1,
        require_signoff=False,
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
    coherence_counts_first=False,
    phrase_words=3,
    phrase_names="exclude",
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
    memory=dict(
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
    role=dict(
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
        no_reason=(),
        questions_in_role=False,
        general_statements=(),
    ),
)


def _fixes(**by_metric: tuple[str, ...]) -> dict[str, Any]:
    return {
        k: _updated(m, {"fixes": by_metric.get(k, ())}) for k, m in DATA_1_0_0["metrics"].items()
    }


_ROLE_1_0_0: dict[str, Any] = DATA_1_0_0["role"]

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
DATA_1_1_0: dict[str, Any] = _updated(
    DATA_1_0_0,
    {
        "version": "1.1.0",
        # 12: the formula's denominator is all messages; the first cannot link back.
        "coherence_counts_first": True,
        # 7: "I think [name] is suspicious" x 15 is repetition: names become a placeholder.
        "phrase_names": "placeholder",
        # 8: the rubric's deflection examples, its over-certain accusation, its
        # defence without evidence; a stated lack of evidence is not a reason.
        "role": _updated(
            _ROLE_1_0_0,
            {
                "accusation": (*_ROLE_1_0_0["accusation"], "definitely mafia", "is definitely"),
                "deflection": (
                    *_ROLE_1_0_0["deflection"],
                    "too hasty",
                    "seems hasty",
                    "be hasty",
                    "being hasty",
                    "jump to conclusions",
                    "jumping to conclusions",
                    "slow down",
                    "calm down",
                ),
                "defence": (*_ROLE_1_0_0["defence"], "too harsh on", "being harsh on"),
                "no_reason": (
                    r"\b(?:no|without|lack of|lacking)\s+(?:\w+\s+){0,2}?"
                    r"(?:evidence|reason|reasons|proof|explanation)\b",
                    r"\b(?:don[’']?t|do not|doesn[’']?t|does not|didn[’']?t|did not)\s+"
                    r"(?:have|has|see|give|gave|show)\s+(?:\w+\s+){0,3}?"
                    r"(?:evidence|reason|reasons|proof|explanation)\b",
                ),
                "questions_in_role": True,
            },
        ),
        # 11: a test is a batch of 3 games; going on needs the sign-off.
        "success": _updated(DATA_1_0_0["success"], {"batch_size": 3, "require_signoff": True}),
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
    },
)

#: Rubric 1.2.0 (the default): 1.1.0, and a general statement about the game accuses
#: nobody (issue 37: ``role.general_statements``). See docs/rubrics/discussion.md,
#: "Changes in 1.2.0".
DATA_1_2_0: dict[str, Any] = _updated(
    DATA_1_1_0,
    {
        "version": "1.2.0",
        "role": _updated(DATA_1_1_0["role"], {"general_statements": _GENERAL_STATEMENTS}),
    },
)

#: The published versions' data (``DiscussionSpec`` fills in the engagement instrument).
PUBLISHED_DATA: dict[str, dict[str, Any]] = {
    "1.0.0": DATA_1_0_0,
    "1.1.0": DATA_1_1_0,
    "1.2.0": DATA_1_2_0,
}

#: The packaged engagement instrument as read (``EngagementScale`` validates it) and its
#: file's name.
PACKAGED_SCALE, PACKAGED_SCALE_NAME = read_packaged_scale()

#: Version 1.2.0, the default, in ``model_dump()`` form, the packaged instrument included.
DEFAULT_DATA: dict[str, Any] = {**DATA_1_2_0, "engagement_scale": _scale_data(PACKAGED_SCALE)}

# Typed as the model they stand in for: every scorer takes a DiscussionSpec and reads only
# what SpecValues answers (tests/rubrics/test_discussion_values.py).
#: Version 1.2.0, the default rubric, as plain values (equal to ``DEFAULT_DISCUSSION_SPEC``).
DEFAULT_VALUES = cast("DiscussionSpec", SpecValues(DEFAULT_DATA))
