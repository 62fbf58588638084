"""The outcome rubric as data: its signals, weights, score bands and mappings.

The packaged rubric (``outcome.yaml`` beside the package) is checked against the
fingerprint of its published version on load; a YAML file or a mapping given by the user
is merged over it (:func:`load_outcome_rubric`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import polars as pl
import yaml
from pydantic import ConfigDict, Field, ValidationError, model_validator

from toolkit.errors import RubricError
from toolkit.rubrics._spec import RubricSpec, SpecPart, load_spec

#: Every signal the scoring code knows, in the order the rubric lists them.
SIGNALS: tuple[str, ...] = (
    "landed",
    "verifier",
    "tests",
    "human_label",
    "correction_pressure",
    "scope",
    "hook_outcomes",
    "token_efficiency",
)

#: The two-way signals: the role whose claim the integrity track pairs with the
#: observation (v1 entries are flat, so every v1 claim is the implementation's).
TWO_WAY_ROLES: dict[str, str] = {
    "landed": "impl",
    "verifier": "verifier",
    "tests": "impl",
    "scope": "impl",
}

SIGNAL_ORDER = {s: i for i, s in enumerate(SIGNALS)}

UNSCORED = "unscored"
ABSENT = "absent"
HOOK_RESULTS = ("allow", "advise", "remediate")

#: What a sub-score of 1 and of 0 mean, shown as the scorecard's green/red columns.
MEANING: dict[str, tuple[str, str]] = {
    "landed": ("1 = on the trunk, not reverted", "0 = reverted or not on the trunk"),
    "verifier": ("1 = every verifier passed", "0 = every verifier failed"),
    "tests": ("1 = every reported test flag true", "0 = every reported flag false"),
    "human_label": ("1 = reviewers: correct, on target, no hallucination", "0 = all wrong"),
    "correction_pressure": ("1 = no retries, corrections or tool errors", "-> 0 as they pile up"),
    "scope": ("1 = every changed file in write_scope", "0 = none in write_scope"),
    "hook_outcomes": ("1 = gates allowed", "0 = a gate remediated"),
    "token_efficiency": ("1 = every input token from cache", "0 = no cache reads"),
}

#: Published versions and the fingerprint of their content (see :meth:`fingerprint`).
#: A packaged rubric whose content changed without a new version fails to load.
PUBLISHED_FINGERPRINTS: dict[str, str] = {
    "2.1.0": "592bcdf4e7076444",
    "3.0.0": "30737f5850a16409",
}

#: The rubrics dot-agents published, by the name ``--rubric`` takes, and their files.
NAMED_RUBRICS: dict[str, str] = {
    "dot-agents-2.1.0": "outcome.yaml",
    "dot-agents-3.0.0": "outcome-3.0.0.yaml",
}
DEFAULT_RUBRIC_NAME = "dot-agents-2.1.0"

#: A version the toolkit once stamped that dot-agents never published (its numbers were
#: 2.1.0's), and what a file naming it should say instead.
UNPUBLISHED_VERSIONS: dict[str, str] = {"2.2.0": "2.1.0"}

_RUBRIC_FILE = NAMED_RUBRICS[DEFAULT_RUBRIC_NAME]


class SignalWeight(SpecPart):
    """One signal of the rubric: its key, its label in scorecards, its nominal weight."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    signal: str
    label: str
    weight: float


class Band(SpecPart):
    """A named score band: scores at or above ``min`` (and below the band above)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    band: str
    min: float


def _unit(name: str, mapping: Mapping[str, float]) -> None:
    for key, value in mapping.items():
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"{name}.{key}={value!r} must be in [0, 1]")


class OutcomeRubric(RubricSpec):
    """The outcome rubric's data; validated on load.

    Checks: a version is set; signals are known, unique, with positive weights summing to
    1.0; bands are named, strictly descending and anchored at 0; every mapped sub-score is
    in [0, 1].
    """

    combination: Literal["weighted_mean_renormalized"]
    signals: tuple[SignalWeight, ...]
    bands: tuple[Band, ...]
    decimals: int = Field(ge=0, le=9)
    verifier_status_scores: dict[str, float]
    scope_note_scores: dict[str, float]
    scope_note_prefixes: dict[str, float]
    hook_intervention_classes: tuple[str, ...]
    hook_result_scores: dict[str, float]
    tool_error_weight: float = Field(ge=0)
    review_decision_claims: dict[str, float]
    test_command_patterns: tuple[str, ...] = Field(min_length=1)
    loop_state_file: str = Field(min_length=1)
    # human_label (3.0.0): correctness 0..label_correctness_max, two mapped answers, and
    # the labels file's schema major version that is read.
    label_correctness_max: int = Field(default=3, gt=0)
    label_scope_scores: dict[str, float] = Field(
        default_factory=lambda: {"on-target": 1.0, "partial": 0.5, "breach": 0.0}
    )
    label_hallucination_scores: dict[str, float] = Field(
        default_factory=lambda: {"none": 1.0, "minor": 0.5, "major": 0.0}
    )
    label_schema_major: int = 1
    # Whether landed is scored in eval-harness runs (3.0.0: no, it is absent there).
    landed_in_eval_runs: bool = True

    @model_validator(mode="after")
    def _check(self) -> OutcomeRubric:
        if not self.version.strip():
            raise ValueError("version must be set")
        if not self.signals:
            raise ValueError("signals: the rubric needs at least one signal")
        keys = [s.signal for s in self.signals]
        for key in keys:
            if key not in SIGNALS:
                raise ValueError(f"signals: unknown signal {key!r} (known: {', '.join(SIGNALS)})")
        duplicates = sorted({k for k in keys if keys.count(k) > 1})
        if duplicates:
            raise ValueError(f"signals: {', '.join(duplicates)} listed more than once")
        for s in self.signals:
            if not s.weight > 0:
                raise ValueError(f"signals: {s.signal} has weight {s.weight!r}; must be positive")
        total = math.fsum(s.weight for s in self.signals)
        if abs(total - 1.0) > 1e-9:
            raise ValueError(f"signals: weights sum to {total:.6g}, must sum to 1.0")
        if not self.bands:
            raise ValueError("bands: the rubric needs at least one band")
        names = [b.band for b in self.bands]
        if len(set(names)) != len(names) or not all(n.strip() for n in names):
            raise ValueError("bands: names must be non-empty and unique")
        if {UNSCORED, ABSENT} & set(names):
            raise ValueError(f"bands: {UNSCORED!r} and {ABSENT!r} are reserved")
        for upper, lower in zip(self.bands, self.bands[1:], strict=False):
            if not lower.min < upper.min:
                raise ValueError(
                    f"bands: {lower.band} (min {lower.min}) must be below {upper.band} "
                    f"(min {upper.min}); list bands from the highest"
                )
        if self.bands[-1].min != 0:
            raise ValueError(f"bands: the last band ({self.bands[-1].band}) must start at 0")
        if self.bands[0].min > 1:
            raise ValueError(f"bands: {self.bands[0].band} starts above 1")
        if set(self.hook_result_scores) != set(HOOK_RESULTS):
            raise ValueError(f"hook_result_scores: needs exactly {', '.join(HOOK_RESULTS)}")
        _unit("verifier_status_scores", self.verifier_status_scores)
        _unit("scope_note_scores", self.scope_note_scores)
        _unit("scope_note_prefixes", self.scope_note_prefixes)
        _unit("hook_result_scores", self.hook_result_scores)
        _unit("review_decision_claims", self.review_decision_claims)
        _unit("label_scope_scores", self.label_scope_scores)
        _unit("label_hallucination_scores", self.label_hallucination_scores)
        return self

    def weights(self) -> dict[str, float]:
        """Signal -> nominal weight, in rubric order."""
        return {s.signal: s.weight for s in self.signals}

    def labels(self) -> dict[str, str]:
        """Signal -> label, in rubric order."""
        return {s.signal: s.label for s in self.signals}

    def band_of(self, value: float | None) -> str:
        """The band of ``value`` (``unscored`` for ``None``)."""
        if value is None:
            return UNSCORED
        for band in self.bands:
            if value >= band.min:
                return band.band
        return self.bands[-1].band

    def band_expr(self, value: pl.Expr) -> pl.Expr:
        """The band of each value of ``value`` as a Polars expression (null -> unscored)."""
        out: Any = pl.when(value.is_null()).then(pl.lit(UNSCORED))
        for band in self.bands:
            out = out.when(value >= band.min).then(pl.lit(band.band))
        result: pl.Expr = out.otherwise(pl.lit(self.bands[-1].band))
        return result


def _parse_packaged(content: str, where: str) -> OutcomeRubric:
    try:
        spec = OutcomeRubric.model_validate(yaml.safe_load(content))
    except (yaml.YAMLError, ValidationError) as exc:
        raise RubricError(where, f"the packaged outcome rubric is invalid: {exc}") from exc
    pinned = PUBLISHED_FINGERPRINTS.get(spec.version)
    if pinned != spec.fingerprint():
        raise RubricError(
            where,
            f"the rubric's content differs from published version {spec.version} "
            f"(fingerprint {spec.fingerprint()}); a changed number needs a new version "
            "(and its fingerprint in PUBLISHED_FINGERPRINTS)",
            field="version",
            value=spec.version,
        )
    return spec


@lru_cache(maxsize=4)
def named_outcome_rubric(name: str) -> OutcomeRubric:
    """A rubric dot-agents published, by name (:data:`NAMED_RUBRICS`:
    ``dot-agents-2.1.0``, ``dot-agents-3.0.0``), checked against its fingerprint.

    Raises:
        RubricError: an unknown name, or a packaged file changed without a version bump.
    """
    if name not in NAMED_RUBRICS:
        raise RubricError(
            None,
            f"no such published rubric (known: {', '.join(NAMED_RUBRICS)}, or a YAML file)",
            field="--rubric",
            value=name,
        )
    source = resources.files("toolkit.rubrics").joinpath(NAMED_RUBRICS[name])
    return _parse_packaged(source.read_text(encoding="utf-8"), str(source))


def default_outcome_rubric() -> OutcomeRubric:
    """The packaged default rubric: dot-agents' 2.1.0, checked against its published
    fingerprint.

    Raises:
        RubricError: the packaged file was changed without a version bump.
    """
    return named_outcome_rubric(DEFAULT_RUBRIC_NAME)


def _published() -> dict[str, OutcomeRubric]:
    rubrics = [named_outcome_rubric(name) for name in NAMED_RUBRICS]
    return {r.version: r for r in rubrics}


def load_outcome_rubric(source: str | Path | Mapping[str, Any] | None = None) -> OutcomeRubric:
    """The outcome rubric: a published one by name (``dot-agents-2.1.0``, the default;
    ``dot-agents-3.0.0``), or ``source`` (a YAML path or a mapping) merged over the
    published version it names (else over the default). Only the keys that change need
    to be given; a list (``signals``, ``bands``) replaces the packaged list whole.

    Raises:
        RubricError: the result is invalid, names a version dot-agents never published
            (2.2.0), or changes a published version's content without a new ``version``.
    """
    if source is None:
        return default_outcome_rubric()
    if isinstance(source, str) and source in NAMED_RUBRICS:
        return named_outcome_rubric(source)
    where = None if isinstance(source, Mapping) else str(source)
    if isinstance(source, str) and source.startswith("dot-agents-") and not Path(source).exists():
        named_outcome_rubric(source)  # raises: an unknown name
    published = _published()
    spec = load_spec(OutcomeRubric, source, default_outcome_rubric(), published)
    if spec.version in UNPUBLISHED_VERSIONS:
        raise RubricError(
            where,
            f"dot-agents never published outcome rubric {spec.version} (its numbers were "
            f"{UNPUBLISHED_VERSIONS[spec.version]}'s): name version "
            f"{UNPUBLISHED_VERSIONS[spec.version]}, or a version of your own",
            field="version",
            value=spec.version,
        )
    return spec
