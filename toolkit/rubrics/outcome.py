"""The outcome rubric: an explainable quality score per agent iteration and session.

The rubric is data (``outcome.yaml`` beside this module, version 2.2.0): seven signals
with weights, the combination method, score bands, and the small mappings the sub-scores
use. Scoring is
column-wise over the frames of an :class:`~toolkit.load.iterlog.IterationLog` and its
:class:`~toolkit.load.outcome_evidence.OutcomeEvidence`:

* each signal gets a sub-score in [0, 1] per iteration (one outside is clamped, and the
  detail and the warnings say so), or is *absent* (null) with the reason in its ``detail``;
* the value is the weighted mean over the present signals (absent ones drop out of the
  numerator and the denominator); nothing present -> unscored;
* every iteration has a breakdown row per signal whose contributions sum to the value;
* the integrity track pairs what a role claimed with what was observed, and never
  changes the score.

See ``docs/rubrics/outcome.md`` for what every number means.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import polars as pl
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from toolkit._show import Shows, Summary, plural
from toolkit.errors import RubricError
from toolkit.frames import (
    INTEGRITY_SCHEMA,
    OUTCOME_BREAKDOWN_SCHEMA,
    OUTCOME_OBJECTIVES_SCHEMA,
    OUTCOME_SCORES_SCHEMA,
    SESSION_SCORES_SCHEMA,
)
from toolkit.load.iterlog import IterationLog
from toolkit.load.outcome_evidence import OutcomeEvidence
from toolkit.rubrics._spec import RubricSpec, load_spec
from toolkit.scorecard import Dimension, Scorecard

#: Every signal the scoring code knows, in the order the rubric lists them.
SIGNALS: tuple[str, ...] = (
    "landed",
    "verifier",
    "tests",
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

_SIGNAL_ORDER = {s: i for i, s in enumerate(SIGNALS)}

UNSCORED = "unscored"
ABSENT = "absent"
HOOK_RESULTS = ("allow", "advise", "remediate")

#: What a sub-score of 1 and of 0 mean, shown as the scorecard's green/red columns.
MEANING: dict[str, tuple[str, str]] = {
    "landed": ("1 = on the trunk, not reverted", "0 = reverted or not on the trunk"),
    "verifier": ("1 = every verifier passed", "0 = every verifier failed"),
    "tests": ("1 = every reported test flag true", "0 = every reported flag false"),
    "correction_pressure": ("1 = no retries, corrections or tool errors", "-> 0 as they pile up"),
    "scope": ("1 = every changed file in write_scope", "0 = none in write_scope"),
    "hook_outcomes": ("1 = gates allowed", "0 = a gate remediated"),
    "token_efficiency": ("1 = every input token from cache", "0 = no cache reads"),
}

#: Published versions and the fingerprint of their content (see :meth:`fingerprint`).
#: A packaged rubric whose content changed without a new version fails to load.
PUBLISHED_FINGERPRINTS: dict[str, str] = {
    "2.1.0": "25bb8005d10f518b",
    "2.2.0": "c6af00b5797991b0",
}

_RUBRIC_FILE = "outcome.yaml"


# ---------------------------------------------------------------------------
# The rubric as data
# ---------------------------------------------------------------------------


class SignalWeight(BaseModel):
    """One signal of the rubric: its key, its label in scorecards, its nominal weight."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    signal: str
    label: str
    weight: float


class Band(BaseModel):
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


@lru_cache(maxsize=1)
def default_outcome_rubric() -> OutcomeRubric:
    """The packaged rubric (version 2.2.0), checked against its published fingerprint.

    Raises:
        RubricError: the packaged file was changed without a version bump.
    """
    source = resources.files("toolkit.rubrics").joinpath(_RUBRIC_FILE)
    return _parse_packaged(source.read_text(encoding="utf-8"), str(source))


def load_outcome_rubric(source: str | Path | Mapping[str, Any] | None = None) -> OutcomeRubric:
    """The outcome rubric: the packaged one, or ``source`` (a YAML path or a mapping)
    merged over it. Only the keys that change need to be given; a list (``signals``,
    ``bands``) replaces the packaged list whole.

    Raises:
        RubricError: the result is invalid, or it changes a published version's content
            without a new ``version``.
    """
    default = default_outcome_rubric()
    if source is None:
        return default
    spec = load_spec(OutcomeRubric, source, default, {default.version: default})
    pinned = PUBLISHED_FINGERPRINTS.get(spec.version)
    if pinned is not None and pinned != spec.fingerprint():
        # An older published version (2.1.0): its numbers are not packaged any more, so a
        # file naming it cannot be what it says.
        raise RubricError(
            None if isinstance(source, Mapping) else str(source),
            f"the rubric differs from published version {spec.version}; bump its version",
            field="version",
            value=spec.version,
        )
    return spec


# ---------------------------------------------------------------------------
# The result
# ---------------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class OutcomeResult(Shows):
    """Outcome scores of an iteration log.

    Attributes:
        rubric: the rubric that produced them.
        scores: one row per iteration, :data:`toolkit.frames.OUTCOME_SCORES_SCHEMA`
            (iteration, session_id, scored, value, band, signals_present).
        breakdown: one row per iteration and signal,
            :data:`toolkit.frames.OUTCOME_BREAKDOWN_SCHEMA` (iteration, signal, label,
            present, sub_score, detail, nominal_weight, effective_weight, contribution).
        integrity: :data:`toolkit.frames.INTEGRITY_SCHEMA` (iteration, signal, role,
            claimed, observed, delta).
        sessions: :data:`toolkit.frames.SESSION_SCORES_SCHEMA` (session_id, iterations,
            scored_iterations, scored, value, band).
        warnings: load problems and missing evidence the reader must know about.
        objectives: :data:`toolkit.frames.OUTCOME_OBJECTIVES_SCHEMA` (iteration,
            objective, value, detail): what each iteration did, checked from transcripts
            and its diff (:data:`OBJECTIVES`), beside the score and never in it.
    """

    rubric: OutcomeRubric
    scores: pl.DataFrame
    breakdown: pl.DataFrame
    integrity: pl.DataFrame
    sessions: pl.DataFrame
    warnings: tuple[str, ...] = ()
    objectives: pl.DataFrame = field(
        default_factory=lambda: pl.DataFrame(schema=OUTCOME_OBJECTIVES_SCHEMA)
    )

    def _summary(self) -> Summary:
        bands = self.scores.group_by("band", maintain_order=True).len().rows()
        worst = self.scores.drop_nulls("value").sort("value").head(1)
        facts: list[tuple[str, object]] = [
            ("iterations", self.scores.height),
            ("scored", self.scores.filter(pl.col("scored")).height),
            *((f"{band}:", n) for band, n in bands),
            ("over-claims", self.integrity.filter(pl.col("delta") < 0).height),
        ]
        if worst.height:
            facts.append(("worst:", f"#{worst['iteration'][0]} {worst['value'][0]:.3f}"))
        return Summary(
            "OutcomeResult",
            f"rubric {self.rubric.rubric} {self.rubric.version}, "
            f"{plural(self.sessions.height, 'session')}",
            tuple(facts),
            notes=self.warnings,
            notes_title="warnings",
        )

    @property
    def rubric_version(self) -> str:
        """The version of the rubric that produced the scores."""
        return self.rubric.version

    def only(self, iterations: Iterable[int]) -> OutcomeResult:
        """The result restricted to ``iterations`` (and the sessions they belong to)."""
        keep = sorted(set(iterations))
        scores = self.scores.filter(pl.col("iteration").is_in(keep))
        session_ids = scores["session_id"].drop_nulls().unique().to_list()
        return replace(
            self,
            scores=scores,
            breakdown=self.breakdown.filter(pl.col("iteration").is_in(keep)),
            integrity=self.integrity.filter(pl.col("iteration").is_in(keep)),
            sessions=self.sessions.filter(pl.col("session_id").is_in(session_ids)),
            objectives=self.objectives.filter(pl.col("iteration").is_in(keep)),
        )

    def over_claims(self, limit: int | None = None) -> pl.DataFrame:
        """Integrity rows with a negative delta (claimed more than observed), worst first;
        :data:`toolkit.frames.INTEGRITY_SCHEMA`."""
        worst = self.integrity.filter(pl.col("delta") < 0).sort("delta", "iteration")
        return worst if limit is None else worst.head(limit)

    def iteration_dict(self, iteration: int) -> dict[str, Any]:
        """One iteration's score as a JSON-ready dict (iteration, scored, value, band,
        breakdown), then what is reported beside it: ``objectives`` and the derived
        ``linked_traces_to_outcomes`` marker."""
        row = self.scores.filter(pl.col("iteration") == iteration).row(0, named=True)
        breakdown = self.breakdown.filter(pl.col("iteration") == iteration).drop("iteration")
        objectives = self.objectives.filter(pl.col("iteration") == iteration).drop("iteration")
        return {
            "iteration": iteration,
            "scored": row["scored"],
            "value": row["value"],
            "band": row["band"],
            "breakdown": breakdown.to_dicts(),
            "objectives": objectives.to_dicts(),
            "linked_traces_to_outcomes": bool(row["linked_traces_to_outcomes"]),
        }

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of ``toolkit outcome --format json``: rubric_version, iterations
        (each with its breakdown), sessions, integrity, warnings."""
        return {
            "rubric": self.rubric.rubric,
            "rubric_version": self.rubric.version,
            "iterations": [self.iteration_dict(n) for n in self.scores["iteration"].to_list()],
            "sessions": self.sessions.to_dicts(),
            "integrity": self.integrity.to_dicts(),
            "warnings": list(self.warnings),
        }

    def scorecard(self, iteration: int) -> Scorecard:
        """One iteration in the project's :class:`~toolkit.scorecard.Scorecard` shape:
        one dimension per signal (value = sub-score, status = the sub-score's band or
        ``absent``, detail = the evidence); the verdict is the iteration's band."""
        row = self.scores.filter(pl.col("iteration") == iteration)
        if row.height != 1:
            raise KeyError(iteration)
        score = row.row(0, named=True)
        rows = self.breakdown.filter(pl.col("iteration") == iteration)
        status = pl.when(pl.col("present")).then(self.rubric.band_expr(pl.col("sub_score")))
        rows = rows.with_columns(status.otherwise(pl.lit(ABSENT)).alias("status"))
        labels = self.rubric.labels()
        dims = [
            Dimension(
                key=r["signal"],
                name=labels.get(r["signal"], r["signal"]),
                value=r["sub_score"],
                status=r["status"],
                detail=r["detail"] or "",
                green=MEANING.get(r["signal"], ("", ""))[0],
                red=MEANING.get(r["signal"], ("", ""))[1],
            )
            for r in rows.iter_rows(named=True)
        ]
        subject = f"iter-{iteration}"
        absent = [r["signal"] for r in rows.iter_rows(named=True) if not r["present"]]
        if score["scored"]:
            reason = (
                f"value {score['value']:.{self.rubric.decimals}f} from "
                f"{score['signals_present']} of {rows.height} signals"
            )
            if absent:
                reason += f" (absent: {', '.join(absent)})"
        else:
            reason = "no signal present"
        session = f" · session {score['session_id']}" if score["session_id"] else ""
        return Scorecard(
            rubric=self.rubric.rubric,
            rubric_version=self.rubric.version,
            subject=subject,
            title=f"Iteration {iteration}{session}",
            verdict=score["band"],
            verdict_reason=reason,
            dimensions=Scorecard.dimensions_frame(subject, dims),
            warnings=(),
            meta={
                "iteration": iteration,
                "session_id": score["session_id"],
                "value": score["value"],
                "band": score["band"],
            },
        )

    def scorecards(self) -> list[Scorecard]:
        """A :class:`~toolkit.scorecard.Scorecard` per iteration, in iteration order."""
        return [self.scorecard(n) for n in self.scores["iteration"].to_list()]


# ---------------------------------------------------------------------------
# Inputs: one row per iteration with every fact the signals read
# ---------------------------------------------------------------------------

_EPOCH = pl.lit(0).cast(pl.Datetime("us", "UTC"))


def _verifier_facts(log: IterationLog, ev: OutcomeEvidence, rubric: OutcomeRubric) -> pl.DataFrame:
    artifacts = ev.verifier_artifacts.select("iteration", "verifier_index", "artifact_status")
    status = pl.coalesce("artifact_status", "status").str.strip_chars().str.to_lowercase()
    scored = pl.col("v_score").is_not_null()
    has_traces = pl.col("linked_traces").list.len() > 0
    return (
        log.verifiers.join(artifacts, on=["iteration", "verifier_index"], how="left")
        .with_columns(status.alias("v_status"))
        .with_columns(
            pl.col("v_status")
            .replace_strict(rubric.verifier_status_scores, default=None, return_dtype=pl.Float64)
            .alias("v_score")
        )
        .group_by("iteration")
        .agg(
            pl.len().alias("v_total"),
            scored.sum().alias("v_scored"),
            pl.col("v_score").mean().alias("v_mean"),
            pl.col("v_status").filter(scored).str.join(", ").alias("v_statuses"),
            (pl.col("artifact_status").is_not_null() & scored).sum().alias("v_from_artifact"),
            pl.col("retries").sum().alias("v_retries"),
            pl.col("retries").is_not_null().any().alias("v_retries_known"),
            pl.col("tests_total_pass").is_not_null().sum().alias("v_flags_set"),
            pl.col("tests_total_pass").fill_null(False).sum().alias("v_flags_true"),
            (has_traces | pl.col("linked_traces_to_outcomes").fill_null(False))
            .any()
            .alias("v_linked"),
            (has_traces | pl.col("linked_traces_to_outcomes").is_not_null())
            .any()
            .alias("v_linked_reported"),
            has_traces.any().alias("v_traces"),
        )
    )


def _hook_facts(log: IterationLog, rubric: OutcomeRubric) -> pl.DataFrame:
    hooks = log.hook_outcomes
    every = hooks.group_by("iteration").agg(pl.len().alias("h_records"))
    in_scope = hooks.filter(
        pl.col("intervention_class").is_in(list(rubric.hook_intervention_classes))
    ).with_columns(
        pl.col("result")
        .cast(pl.String)
        .replace_strict(rubric.hook_result_scores, return_dtype=pl.Float64)
        .alias("h_score"),
        pl.coalesce("correlation_id", pl.format("record-{}", "record_index")).alias("h_corr"),
    )
    raw = in_scope.group_by("iteration").agg(pl.len().alias("h_raw"))
    collapsed = in_scope.group_by("iteration", "h_corr", "rule_id").agg(
        pl.col("h_score").min(),
        pl.col("result").cast(pl.String).sort_by("h_score").first().alias("h_result"),
    )
    worst = pl.col("h_score") == pl.col("h_score").min()
    summary = collapsed.group_by("iteration").agg(
        pl.len().alias("h_collapsed"),
        pl.col("h_score").min().alias("h_score"),
        pl.col("h_result").sort_by("h_score").first().alias("h_worst"),
        pl.col("rule_id")
        .filter(worst)
        .drop_nulls()
        .unique()
        .sort()
        .str.join(", ")
        .alias("h_rules"),
    )
    return every.join(raw, on="iteration", how="left").join(summary, on="iteration", how="left")


def _transcript_facts(windows: pl.DataFrame, ev: OutcomeEvidence) -> pl.DataFrame:
    tokens = pl.sum_horizontal(
        "input_tokens", "output_tokens", "cache_read_tokens", "cache_creation_tokens"
    )
    spans = windows.filter(pl.col("commit_time").is_not_null()).select(
        "iteration",
        pl.col("window_start").fill_null(_EPOCH).alias("w_start"),
        pl.col("commit_time").alias("w_end"),
    )
    inside = spans.join_where(
        ev.transcript_events,
        pl.col("timestamp") > pl.col("w_start"),
        pl.col("timestamp") <= pl.col("w_end"),
    )
    return inside.group_by("iteration").agg(
        (tokens > 0).sum().alias("t_messages"),
        pl.col("cache_read_tokens").sum().alias("t_cache_read"),
        pl.col("cache_creation_tokens").sum().alias("t_cache_creation"),
        pl.col("tool_calls").sum().alias("t_calls"),
        pl.col("tool_errors").sum().alias("t_errors"),
    )


def _scope_facts(facts: pl.DataFrame) -> pl.DataFrame:
    measured = facts.filter(
        pl.col("changed_files").is_not_null() & pl.col("write_scope").is_not_null()
    ).select("iteration", pl.col("changed_files").alias("file"), "write_scope")
    pairs = (
        measured.explode("file")
        .filter(pl.col("file").is_not_null())
        .explode("write_scope")
        .with_columns(pl.col("write_scope").str.strip_prefix("./").alias("entry"))
    )
    prefix = pl.col("entry").str.ends_with("/")
    inside = (prefix & pl.col("file").str.starts_with(pl.col("entry"))) | (
        ~prefix & (pl.col("file") == pl.col("entry"))
    )
    per_file = pairs.group_by("iteration", "file").agg(inside.any().alias("inside"))
    return per_file.group_by("iteration").agg(
        pl.len().alias("s_files"),
        pl.col("inside").sum().alias("s_inside"),
        pl.col("file").filter(~pl.col("inside")).sort().head(5).str.join(", ").alias("s_outside"),
        (~pl.col("inside")).sum().alias("s_outside_n"),
    )


def _inputs(log: IterationLog, ev: OutcomeEvidence, rubric: OutcomeRubric) -> pl.DataFrame:
    facts = (
        log.iterations.join(ev.commits, on="iteration", how="left")
        .sort("iteration")
        .with_columns(pl.col("commit_time").forward_fill().shift(1).alias("window_start"))
    )
    return (
        facts.join(_verifier_facts(log, ev, rubric), on="iteration", how="left")
        .join(_hook_facts(log, rubric), on="iteration", how="left")
        .join(_transcript_facts(facts, ev), on="iteration", how="left")
        .join(_scope_facts(facts), on="iteration", how="left")
        .sort("iteration")
    )


# ---------------------------------------------------------------------------
# Signals: (sub-score, detail) expressions over the inputs
# ---------------------------------------------------------------------------

Signal = tuple[pl.Expr, pl.Expr]


def _num(expr: pl.Expr, places: int = 3) -> pl.Expr:
    return expr.round(places).cast(pl.String)


def _flag(expr: pl.Expr) -> pl.Expr:
    return (
        pl.when(expr.is_null())
        .then(pl.lit("unreported"))
        .when(expr)
        .then(pl.lit("true"))
        .otherwise(pl.lit("false"))
    )


def _when_fmt(condition: pl.Expr, template: str, *args: pl.Expr | str) -> pl.Expr:
    return pl.when(condition).then(pl.format(template, *args)).otherwise(pl.lit(""))


def _landed() -> Signal:
    sha = pl.col("commit_sha")
    ok = pl.col("on_trunk") & pl.col("reverted_by").is_null()
    score = pl.when(sha.is_not_null()).then(pl.when(ok).then(1.0).otherwise(0.0))
    found = (
        pl.when(pl.col("commit_via") == "summary")
        .then(
            pl.format(
                "logged commit {} not in the repository; {} commit {} has the summary as its "
                "subject:",
                "commit",
                "trunk",
                sha.str.slice(0, 12),
            )
        )
        .otherwise(pl.format("commit {}", sha.str.slice(0, 12)))
    )
    where = (
        pl.when(~pl.col("on_trunk"))
        .then(pl.format("not reachable from {}", "trunk"))
        .when(pl.col("reverted_by").is_not_null())
        .then(pl.format("on {}, reverted by {}", "trunk", pl.col("reverted_by").str.slice(0, 12)))
        .otherwise(pl.format("on {}, not reverted", "trunk"))
    )
    detail = (
        pl.when(sha.is_not_null())
        .then(pl.concat_str([found, where], separator=" "))
        .otherwise(pl.col("git_reason"))
    )
    return score, detail


def _verifier(rubric: OutcomeRubric) -> Signal:
    v2 = pl.col("schema_version") == 2
    total = pl.col("v_total").fill_null(0)
    scored = pl.col("v_scored").fill_null(0)
    v1_flag = pl.col("impl_tests_total_pass")
    score = (
        pl.when(v2)
        .then(pl.when(scored > 0).then(pl.col("v_mean")))
        .otherwise(v1_flag.cast(pl.Float64))
    )
    words = "/".join(rubric.verifier_status_scores)
    overridden = _when_fmt(
        pl.col("v_from_artifact").fill_null(0) > 0,
        "; {} status(es) read from result artifacts",
        "v_from_artifact",
    )
    detail = (
        pl.when(v2 & (scored > 0))
        .then(
            pl.format(
                "mean over {} of {} verifiers ({}){}", scored, total, "v_statuses", overridden
            )
        )
        .when(v2 & (total > 0))
        .then(pl.format("{} verifier(s), none with a {} status", total, pl.lit(words)))
        .when(v2)
        .then(pl.lit("no verifiers recorded"))
        .when(v1_flag.is_not_null())
        .then(pl.format("v1 entry without verifiers: tests_total_pass {}", _flag(v1_flag)))
        .otherwise(pl.lit("v1 entry without verifiers and tests_total_pass unreported"))
    )
    return score, detail


def _tests() -> Signal:
    focused, total = pl.col("impl_focused_tests_pass"), pl.col("impl_tests_total_pass")
    flags_set = (
        focused.is_not_null().cast(pl.Int64)
        + total.is_not_null().cast(pl.Int64)
        + pl.col("v_flags_set").fill_null(0)
    )
    flags_true = (
        focused.fill_null(False).cast(pl.Int64)
        + total.fill_null(False).cast(pl.Int64)
        + pl.col("v_flags_true").fill_null(0)
    )
    score = pl.when(flags_set > 0).then(flags_true / flags_set)
    detail = (
        pl.when(flags_set > 0)
        .then(
            pl.format(
                "{}/{} reported test-pass flags true (impl focused {}, impl total {}, "
                "verifiers {}/{})",
                flags_true,
                flags_set,
                _flag(focused),
                _flag(total),
                pl.col("v_flags_true").fill_null(0),
                pl.col("v_flags_set").fill_null(0),
            )
        )
        .otherwise(pl.lit("no test-pass flag reported"))
    )
    return score, detail


def _correction_pressure(rubric: OutcomeRubric) -> Signal:
    retries_known = pl.col("impl_retries").is_not_null() | pl.col("v_retries_known").fill_null(
        False
    )
    retries = pl.col("impl_retries").fill_null(0) + pl.col("v_retries").fill_null(0)
    corrections_known = pl.col("user_corrections").is_not_null()
    corrections = pl.col("user_corrections").fill_null(0) + pl.col("retries_in_loop").fill_null(0)
    calls = pl.col("t_calls").fill_null(0)
    errors_known = calls > 0
    error_rate = (
        pl.when(errors_known)
        .then(pl.min_horizontal(pl.col("t_errors").fill_null(0) / calls, pl.lit(1.0)))
        .otherwise(0.0)
    )
    present = retries_known | corrections_known | errors_known
    friction = retries + corrections + rubric.tool_error_weight * error_rate
    score = pl.when(present).then(1.0 / (1.0 + friction))
    parts = [
        pl.when(retries_known)
        .then(pl.format("retries {} (impl + verifiers)", retries))
        .otherwise(pl.lit("retries unreported")),
        pl.when(corrections_known)
        .then(
            pl.format(
                "user corrections {} + loop retries {} (review decision)",
                "user_corrections",
                "retries_in_loop",
            )
        )
        .otherwise(pl.format("no user corrections ({})", "decision_artifact_reason")),
        pl.when(errors_known)
        .then(
            pl.format(
                "tool error rate {} ({}/{} calls)", _num(error_rate), pl.col("t_errors"), calls
            )
        )
        .otherwise(pl.lit("no transcript tool calls")),
    ]
    detail = (
        pl.when(present)
        .then(pl.concat_str(parts, separator="; "))
        .otherwise(pl.lit("no retries, review-decision artifact or transcript tool calls"))
    )
    return score, detail


def _scope_note_score(rubric: OutcomeRubric) -> pl.Expr:
    note = pl.col("impl_scope_note").str.strip_chars().str.to_lowercase()
    exact = note.replace_strict(rubric.scope_note_scores, default=None, return_dtype=pl.Float64)
    out: Any = pl.when(exact.is_not_null()).then(exact)
    for prefix, value in rubric.scope_note_prefixes.items():
        out = out.when(note.str.starts_with(prefix.lower())).then(pl.lit(value))
    result: pl.Expr = out.otherwise(None).cast(pl.Float64)
    return result


def _git_scope_score() -> pl.Expr:
    measured = pl.col("changed_files").is_not_null() & pl.col("write_scope").is_not_null()
    empty = pl.col("changed_files").list.len() == 0
    fraction = pl.col("s_inside").fill_null(0) / pl.col("s_files").fill_null(0)
    return pl.when(measured).then(pl.when(empty).then(1.0).otherwise(fraction))


def _scope(rubric: OutcomeRubric) -> Signal:
    git = _git_scope_score()
    note = _scope_note_score(rubric)
    why_no_git = pl.coalesce(
        pl.when(pl.col("commit_sha").is_null()).then(pl.col("git_reason")),
        pl.col("write_scope_reason"),
        pl.lit("no changed files"),
    )
    outside = _when_fmt(
        pl.col("s_outside_n").fill_null(0) > 0,
        "; outside: {}{}",
        "s_outside",
        pl.when(pl.col("s_outside_n") > 5).then(pl.lit(", …")).otherwise(pl.lit("")),
    )
    detail = (
        pl.when(git.is_not_null() & (pl.col("changed_files").list.len() == 0))
        .then(pl.format("commit changed no files (task {})", "task_id"))
        .when(git.is_not_null())
        .then(
            pl.format(
                "{}/{} changed files inside the write_scope of task {} (plan {}){}",
                pl.col("s_inside"),
                pl.col("s_files"),
                "task_id",
                "task_plan",
                outside,
            )
        )
        .when(note.is_not_null())
        .then(
            pl.format(
                'scope_note "{}" (no git measure: {})',
                pl.col("impl_scope_note").str.slice(0, 60),
                why_no_git,
            )
        )
        .otherwise(pl.format("no git measure ({}) and no usable scope_note", why_no_git))
    )
    return pl.coalesce(git, note), detail


def _hook_outcomes(rubric: OutcomeRubric) -> Signal:
    present = pl.col("h_collapsed").fill_null(0) > 0
    classes = ", ".join(rubric.hook_intervention_classes)
    score = pl.when(present).then(pl.col("h_score"))
    detail = (
        pl.when(present)
        .then(
            pl.format(
                "{}: {} (gate records {}, {} after collapsing by correlation_id and rule_id)",
                "h_worst",
                "h_rules",
                "h_raw",
                "h_collapsed",
            )
        )
        .when(pl.col("hook_outcomes_problem").is_not_null())
        .then(pl.col("hook_outcomes_problem"))
        .when(pl.col("hook_outcomes_file").is_null())
        .then(pl.lit("no hook-outcome sidecar"))
        .otherwise(
            pl.format(
                "sidecar has {} record(s), none of class {}",
                pl.col("h_records").fill_null(0),
                pl.lit(classes),
            )
        )
    )
    return score, detail


def _token_efficiency(transcripts_given: bool) -> Signal:
    native = pl.col("cache_hit_rate")
    cached = pl.col("t_cache_read").fill_null(0) + pl.col("t_cache_creation").fill_null(0)
    backfill = pl.when(cached > 0).then(pl.col("t_cache_read") / cached)
    stamp = "%Y-%m-%dT%H:%M:%SZ"
    start = pl.coalesce(pl.col("window_start").dt.strftime(stamp), pl.lit("the start"))
    score = pl.coalesce(native, backfill)
    no_native = "no session_tokens.cache_hit_rate"
    detail = (
        pl.when(native.is_not_null())
        .then(pl.format("session_tokens.cache_hit_rate {}", _num(native)))
        .when(backfill.is_not_null())
        .then(
            pl.format(
                "backfilled from {} transcript messages in ({}, {}]: {} cache-read / "
                "({} + {} cache-creation) tokens",
                "t_messages",
                start,
                pl.col("commit_time").dt.strftime(stamp),
                "t_cache_read",
                "t_cache_read",
                "t_cache_creation",
            )
        )
        .when(pl.lit(not transcripts_given))
        .then(pl.lit(f"{no_native} and no transcripts given (--transcripts)"))
        .when(pl.col("commit_time").is_null())
        .then(pl.format(no_native + "; no commit time to window transcripts ({})", "git_reason"))
        .otherwise(
            pl.format(
                no_native + " and no transcript cache tokens in ({}, {}]",
                start,
                pl.col("commit_time").dt.strftime(stamp),
            )
        )
    )
    return score, detail


def _signals(rubric: OutcomeRubric, transcripts_given: bool) -> dict[str, Signal]:
    return {
        "landed": _landed(),
        "verifier": _verifier(rubric),
        "tests": _tests(),
        "correction_pressure": _correction_pressure(rubric),
        "scope": _scope(rubric),
        "hook_outcomes": _hook_outcomes(rubric),
        "token_efficiency": _token_efficiency(transcripts_given),
    }


# ---------------------------------------------------------------------------
# Combination, integrity, sessions
# ---------------------------------------------------------------------------


def combine(long: pl.DataFrame, rubric: OutcomeRubric) -> pl.DataFrame:
    """The breakdown from per-signal sub-scores.

    Args:
        long: one row per iteration and signal: iteration, signal, sub_score (null when
            absent), detail.
        rubric: gives the weights and the decimals.

    Returns:
        :data:`toolkit.frames.OUTCOME_BREAKDOWN_SCHEMA` (each row with the signal's
        ``label`` from the rubric). The effective weight of a present
        signal is its weight over the sum of present weights (0 when absent). The value is
        the sum of effective weight x sub-score, rounded to ``rubric.decimals``; the
        contributions are rounded by largest remainder so they sum to it exactly.
    """
    order = {s: i for i, s in enumerate(rubric.weights())}
    weights = pl.DataFrame(
        {
            "signal": list(rubric.weights()),
            "label": list(rubric.labels().values()),
            "nominal_weight": list(rubric.weights().values()),
            "_order": list(order.values()),
        },
        schema={
            "signal": pl.String(),
            "label": pl.String(),
            "nominal_weight": pl.Float64(),
            "_order": pl.Int64(),
        },
    )
    scale = 10.0**rubric.decimals
    present = pl.col("sub_score").is_not_null()
    by_iteration = "iteration"
    present_weight = pl.when(present).then(pl.col("nominal_weight")).otherwise(0.0)
    return (
        long.join(weights, on="signal", how="inner")
        .with_columns(present.alias("present"))
        .with_columns(
            pl.when(present)
            .then(pl.col("nominal_weight") / present_weight.sum().over(by_iteration))
            .otherwise(0.0)
            .alias("effective_weight")
        )
        .with_columns(
            (pl.col("effective_weight") * pl.col("sub_score").fill_null(0.0) * scale).alias("_x")
        )
        .with_columns(
            pl.col("_x").floor().alias("_floor"),
            pl.col("_x").sum().over(by_iteration).round(0).alias("_units"),
        )
        .with_columns(
            pl.when(present).then(pl.col("_x") - pl.col("_floor")).otherwise(-1.0).alias("_rem"),
            (pl.col("_units") - pl.col("_floor").sum().over(by_iteration)).alias("_short"),
        )
        .with_columns(
            pl.col("_rem").rank("ordinal", descending=True).over(by_iteration).alias("_rank")
        )
        .with_columns(
            (
                (
                    pl.col("_floor")
                    + pl.when(pl.col("_rank") <= pl.col("_short")).then(1.0).otherwise(0.0)
                )
                / scale
            )
            .round(rubric.decimals)
            .alias("contribution")
        )
        .sort("iteration", "_order")
        .select(list(OUTCOME_BREAKDOWN_SCHEMA))
        .cast(OUTCOME_BREAKDOWN_SCHEMA)  # type: ignore[arg-type]
    )


def _scores(inputs: pl.DataFrame, breakdown: pl.DataFrame, rubric: OutcomeRubric) -> pl.DataFrame:
    scale = 10.0**rubric.decimals
    totals = breakdown.group_by("iteration").agg(
        pl.col("present").sum().alias("signals_present"),
        ((pl.col("contribution") * scale).round(0).sum() / scale).alias("_sum"),
    )
    value = pl.when(pl.col("signals_present") > 0).then(pl.col("_sum").round(rubric.decimals))
    return (
        inputs.select(
            "iteration",
            pl.col("agent_session_id").alias("session_id"),
            pl.col("v_traces").fill_null(False).alias("linked_traces_to_outcomes"),
        )
        .join(totals, on="iteration", how="left")
        .with_columns(value.alias("value"))
        .with_columns(
            pl.col("value").is_not_null().alias("scored"),
            rubric.band_expr(pl.col("value")).alias("band"),
        )
        .sort("iteration")
        .select(list(OUTCOME_SCORES_SCHEMA))
        .cast(OUTCOME_SCORES_SCHEMA)  # type: ignore[arg-type]
    )


def _integrity(inputs: pl.DataFrame, long: pl.DataFrame, rubric: OutcomeRubric) -> pl.DataFrame:
    observed = long.pivot(on="signal", index="iteration", values="sub_score")
    observed = observed.rename(lambda c: c if c == "iteration" else f"obs_{c}")
    x = inputs.join(observed, on="iteration")
    persisted = pl.col("impl_persisted_via_workflow_commands").str.to_lowercase()
    persisted_claim = pl.when(persisted.is_not_null()).then(
        pl.when(persisted.str.contains("yes", literal=True)).then(1.0).otherwise(0.0)
    )
    decision_claim = (
        pl.col("review_overall_decision")
        .str.strip_chars()
        .str.to_lowercase()
        .replace_strict(rubric.review_decision_claims, default=None, return_dtype=pl.Float64)
    )
    impl_linked = pl.col("impl_linked_traces_to_outcomes")
    linked = pl.col("v_linked").fill_null(False) | impl_linked.fill_null(False)
    reported = pl.col("v_linked_reported").fill_null(False) | impl_linked.is_not_null()
    v1 = pl.col("schema_version") == 1
    pairs: dict[str, tuple[pl.Expr, pl.Expr, pl.Expr]] = {
        "landed": (
            pl.lit(TWO_WAY_ROLES["landed"]),
            pl.mean_horizontal(persisted_claim, decision_claim),
            pl.col("obs_landed") if "obs_landed" in x.columns else pl.lit(None),
        ),
        "verifier": (
            pl.when(v1).then(pl.lit("impl")).otherwise(pl.lit(TWO_WAY_ROLES["verifier"])),
            pl.when(linked).then(1.0).when(reported).then(0.0),
            pl.col("obs_verifier") if "obs_verifier" in x.columns else pl.lit(None),
        ),
        "tests": (
            pl.lit(TWO_WAY_ROLES["tests"]),
            pl.mean_horizontal(
                pl.col("impl_focused_tests_pass").cast(pl.Float64),
                pl.col("impl_tests_total_pass").cast(pl.Float64),
            ),
            pl.col("obs_verifier") if "obs_verifier" in x.columns else pl.lit(None),
        ),
        "scope": (
            pl.lit(TWO_WAY_ROLES["scope"]),
            _scope_note_score(rubric),
            _git_scope_score(),
        ),
    }
    frames = [
        x.select(
            "iteration",
            pl.lit(signal).alias("signal"),
            role.alias("role"),
            claimed.cast(pl.Float64).alias("claimed"),
            obs.cast(pl.Float64).alias("observed"),
        )
        for signal, (role, claimed, obs) in pairs.items()
        if signal in rubric.weights()
    ]
    if not frames:
        return pl.DataFrame(schema=INTEGRITY_SCHEMA)
    return (
        pl.concat(frames)
        .filter(pl.col("claimed").is_not_null() | pl.col("observed").is_not_null())
        .with_columns((pl.col("observed") - pl.col("claimed")).alias("delta"))
        .sort("iteration", pl.col("signal").replace_strict(_SIGNAL_ORDER))
        .cast(INTEGRITY_SCHEMA)  # type: ignore[arg-type]
    )


def _sessions(scores: pl.DataFrame, rubric: OutcomeRubric) -> pl.DataFrame:
    value = pl.col("value").mean().round(rubric.decimals)
    return (
        scores.filter(pl.col("session_id").is_not_null() & (pl.col("session_id") != ""))
        .group_by("session_id")
        .agg(
            pl.col("iteration").sort().alias("iterations"),
            pl.col("scored").sum().cast(pl.Int64).alias("scored_iterations"),
            value.alias("value"),
        )
        .with_columns(
            (pl.col("scored_iterations") > 0).alias("scored"),
            rubric.band_expr(pl.col("value")).alias("band"),
        )
        .sort("session_id")
        .select(list(SESSION_SCORES_SCHEMA))
        .cast(SESSION_SCORES_SCHEMA)  # type: ignore[arg-type]
    )


# ---------------------------------------------------------------------------
# Objectives: beside the score, never in it
# ---------------------------------------------------------------------------

#: The objectives reported per iteration, in order, with what 1 means.
OBJECTIVES: dict[str, str] = {
    "ran_cli_command": "a shell command was run in the iteration's window",
    "ran_tests_before_commit": "a test command ran in the window, before the commit",
    "read_loop_state": "the loop-state file was read in the window",
    "tests_added_by_kind_in_diff": "every test named in tests_added_by_kind is in the diff",
}

_STAMP = "%Y-%m-%dT%H:%M:%SZ"


def _transcript_objectives(
    inputs: pl.DataFrame, ev: OutcomeEvidence, rubric: OutcomeRubric
) -> pl.DataFrame:
    """The three transcript checks, one row per iteration and objective."""
    spans = inputs.select(
        "iteration",
        "git_reason",
        pl.col("window_start").fill_null(_EPOCH).alias("w_start"),
        pl.col("commit_time").alias("w_end"),
        pl.format(
            "({}, {}]",
            pl.coalesce(pl.col("window_start").dt.strftime(_STAMP), pl.lit("the start")),
            pl.col("commit_time").dt.strftime(_STAMP),
        ).alias("window"),
    )
    timed = spans.filter(pl.col("w_end").is_not_null())
    inside = [pl.col("timestamp") > pl.col("w_start"), pl.col("timestamp") <= pl.col("w_end")]
    covered = (
        timed.join_where(ev.transcript_turns, *inside)
        .group_by("iteration")
        .agg(pl.len().alias("t_lines"))
    )
    command = pl.col("command")
    is_test = pl.any_horizontal(
        [command.str.contains(p, literal=True) for p in rubric.test_command_patterns]
    ).fill_null(False)
    name = rubric.loop_state_file
    is_read = pl.col("path").str.ends_with(name).fill_null(False) | (
        (pl.col("harness") == "codex") & command.str.contains(name, literal=True).fill_null(False)
    )
    used = (
        timed.join_where(ev.tool_uses, *inside)
        .sort("timestamp")
        .group_by("iteration")
        .agg(
            command.is_not_null().sum().alias("n_cmd"),
            command.drop_nulls().first().alias("first_cmd"),
            is_test.sum().alias("n_test"),
            command.filter(is_test).first().alias("first_test"),
            is_read.sum().alias("n_read"),
            pl.coalesce("path", "command").filter(is_read).first().alias("first_read"),
        )
    )
    x = spans.join(covered, on="iteration", how="left").join(used, on="iteration", how="left")
    given = ev.transcripts_given
    reason = (
        pl.when(pl.lit(not given))
        .then(pl.lit("no transcripts given (--transcripts)"))
        .when(pl.col("w_end").is_null())
        .then(pl.format("no commit time to window transcripts ({})", "git_reason"))
        .when(pl.col("t_lines").fill_null(0) == 0)
        .then(pl.format("no transcript coverage in {}", "window"))
    )

    def check(key: str, n: str, first: str, what: str, no: str) -> pl.DataFrame:
        done = pl.col(n).fill_null(0) > 0
        detail = (
            pl.when(reason.is_not_null())
            .then(reason)
            .when(done)
            .then(pl.format("{} " + what + " in {}; the first: {}", n, "window", first))
            .otherwise(pl.format(no + " in {} ({} transcript lines)", "window", "t_lines"))
        )
        return x.select(
            "iteration",
            pl.lit(key).alias("objective"),
            pl.when(reason.is_null()).then(done.cast(pl.Int64)).alias("value"),
            detail.alias("detail"),
        )

    return pl.concat(
        [
            check("ran_cli_command", "n_cmd", "first_cmd", "shell command(s)", "no shell command"),
            check(
                "ran_tests_before_commit",
                "n_test",
                "first_test",
                "test command(s) before the commit",
                "no test command",
            ),
            check(
                "read_loop_state",
                "n_read",
                "first_read",
                f"read(s) of {name}",
                f"no read of {name}",
            ),
        ]
    )


def _tests_in_diff(log: IterationLog, inputs: pl.DataFrame, ev: OutcomeEvidence) -> pl.DataFrame:
    """``tests_added_by_kind_in_diff``: each named test must appear in the lines the
    commit added (a ``file::test`` name also by its last part)."""
    names = (
        log.verifiers.select("iteration", pl.col("tests_added_by_kind").alias("t"))
        .explode("t")
        .drop_nulls("t")
        .select("iteration", pl.col("t").struct.field("name").alias("name"))
        .drop_nulls("name")
        .unique(maintain_order=True)
    )
    added = pl.DataFrame(
        {"iteration": list(ev.added_lines), "added": list(ev.added_lines.values())},
        schema={"iteration": pl.Int64(), "added": pl.String()},
    )
    short = pl.col("name").str.split("::").list.last()
    checked = (
        names.join(added, on="iteration", how="left")
        .with_columns(
            (
                pl.col("added").str.contains(pl.col("name"), literal=True)
                | pl.col("added").str.contains(short, literal=True)
            ).alias("found")
        )
        .group_by("iteration", maintain_order=True)
        .agg(
            pl.len().alias("named"),
            pl.col("found").sum().alias("found"),
            pl.col("added").is_not_null().any().alias("has_diff"),
            pl.col("name").filter(~pl.col("found").fill_null(False)).str.join(", ").alias("miss"),
        )
    )
    x = inputs.select("iteration", "git_reason", "commit_sha").join(
        checked, on="iteration", how="left"
    )
    sha = pl.col("commit_sha").str.slice(0, 12)
    reason = (
        pl.when(pl.col("named").is_null())
        .then(pl.lit("no tests_added_by_kind named by a verifier"))
        .when(pl.col("commit_sha").is_null())
        .then(pl.format("no commit to check the names against ({})", "git_reason"))
        .when(~pl.col("has_diff"))
        .then(pl.format("the diff of {} could not be read", sha))
    )
    all_found = pl.col("found") == pl.col("named")
    detail = (
        pl.when(reason.is_not_null())
        .then(reason)
        .when(all_found)
        .then(pl.format("{}/{} named tests found in the diff of {}", "found", "named", sha))
        .otherwise(
            pl.format(
                "{}/{} named tests found in the diff of {}; missing: {}",
                "found",
                "named",
                sha,
                "miss",
            )
        )
    )
    return x.select(
        "iteration",
        pl.lit("tests_added_by_kind_in_diff").alias("objective"),
        pl.when(reason.is_null()).then(all_found.cast(pl.Int64)).alias("value"),
        detail.alias("detail"),
    )


def objectives(
    log: IterationLog,
    evidence: OutcomeEvidence,
    rubric: OutcomeRubric | None = None,
    inputs: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """What each iteration did, checked rather than claimed (:data:`OBJECTIVES`).

    Reported beside the score, never in it: ``ran_cli_command``,
    ``ran_tests_before_commit`` and ``read_loop_state`` from the Claude Code transcripts
    and Codex session logs in the iteration's window (the same window as token backfill:
    after the previous resolved commit, up to this commit's time), and
    ``tests_added_by_kind_in_diff`` from the commit's diff.

    Returns:
        :data:`toolkit.frames.OUTCOME_OBJECTIVES_SCHEMA`: value 1 or 0, or null with the
        reason in ``detail`` (no transcripts, no commit time, no transcript line in the
        window, no test names, no commit).
    """
    rubric = rubric or load_outcome_rubric()
    if inputs is None:
        inputs = _inputs(log, evidence, rubric)
    order = {key: i for i, key in enumerate(OBJECTIVES)}
    return (
        pl.concat(
            [
                _transcript_objectives(inputs, evidence, rubric),
                _tests_in_diff(log, inputs, evidence),
            ]
        )
        .sort("iteration", pl.col("objective").replace_strict(order, return_dtype=pl.Int64))
        .select(list(OUTCOME_OBJECTIVES_SCHEMA))
        .cast(OUTCOME_OBJECTIVES_SCHEMA)  # type: ignore[arg-type]
    )


def _clamped(long: pl.DataFrame) -> tuple[pl.DataFrame, list[str]]:
    """Sub-scores clamped to [0, 1], as dot-agents clamps them; each clamp is said in the
    signal's detail and as a warning (an out-of-range input is kept, not dropped)."""
    raw = pl.col("sub_score")
    out = (~raw.is_between(0.0, 1.0)) & raw.is_not_null()
    flagged = long.with_columns(_out=out, _raw=raw)
    clamped = flagged.with_columns(
        pl.when("_out").then(raw.clip(0.0, 1.0)).otherwise(raw).alias("sub_score"),
    ).with_columns(
        pl.when("_out")
        .then(
            pl.format(
                "{} (sub-score {} is outside [0, 1]: clamped to {})",
                "detail",
                pl.col("_raw").round(6).cast(pl.String),
                pl.col("sub_score").cast(pl.String),
            )
        )
        .otherwise(pl.col("detail"))
        .alias("detail")
    )
    warnings = [
        f"iteration {n}: the {signal} sub-score {value:g} is outside [0, 1]; clamped to "
        f"{min(max(value, 0.0), 1.0):g}"
        for n, signal, value in flagged.filter("_out").select("iteration", "signal", "_raw").rows()
    ]
    return clamped.drop("_out", "_raw"), warnings


def score_outcome(
    log: IterationLog, evidence: OutcomeEvidence, rubric: OutcomeRubric | None = None
) -> OutcomeResult:
    """Score every iteration of ``log`` with the outcome rubric.

    Args:
        log: from :func:`toolkit.load_iteration_log`.
        evidence: from :func:`toolkit.collect_outcome_evidence` (git facts, artifacts,
            transcripts); without a repository the git-derived signals are absent.
        rubric: defaults to the packaged rubric (:func:`load_outcome_rubric`).

    Returns:
        The :class:`OutcomeResult` (scores, breakdown, integrity, sessions, warnings).

    Example:
        >>> log = load_iteration_log("sample_runs/iteration_logs/tally-loop")  # doctest: +SKIP
        >>> result = score_outcome(log, collect_outcome_evidence(log, repo="..."))  # doctest: +SKIP
        >>> result.scores.select("iteration", "value", "band")  # doctest: +SKIP
    """
    rubric = rubric or load_outcome_rubric()
    inputs = _inputs(log, evidence, rubric)
    signals = _signals(rubric, evidence.transcripts_given)
    frames = [
        inputs.select(
            "iteration",
            pl.lit(name).alias("signal"),
            signals[name][0].cast(pl.Float64).alias("sub_score"),
            signals[name][1]
            .cast(pl.String)
            .fill_null("no evidence was gathered for this iteration")
            .alias("detail"),
        )
        for name in rubric.weights()
    ]
    long, clamped = _clamped(pl.concat(frames))
    breakdown = combine(long, rubric)
    scores = _scores(inputs, breakdown, rubric)
    warnings = [*log.issue_lines(), *evidence.issue_lines(), *clamped]
    return OutcomeResult(
        rubric=rubric,
        scores=scores,
        breakdown=breakdown,
        integrity=_integrity(inputs, long, rubric),
        sessions=_sessions(scores, rubric),
        warnings=tuple(warnings),
        objectives=objectives(log, evidence, rubric, inputs),
    )
