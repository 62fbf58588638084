"""The files of a dot-agents iteration log as pydantic models, typed at the reading
edge: an ``iter-N.yaml`` entry of schema v1 (:class:`V1Entry`) or v2 (:class:`V2Entry`)
and a hook-outcome record (:class:`HookRecord`), lenient where dot-agents is lenient."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, field_validator

from toolkit.load._fields import Count, Date, Number, Text, Timestamp, TriState

__all__ = [
    "Agent",
    "HookRecord",
    "Impl",
    "LinkedTrace",
    "Review",
    "SelfAssessment",
    "SessionTokens",
    "TestByKind",
    "V1Entry",
    "V2Entry",
    "Verifier",
    "VerifierSelfAssessment",
]


class _Lenient(BaseModel):
    """Unknown extra keys are tolerated (real logs carry keys no schema names)."""

    model_config = ConfigDict(extra="ignore", frozen=True)


class SelfAssessment(_Lenient):
    persisted_via_workflow_commands: Text = None
    linked_traces_to_outcomes: TriState = None


class _Header(_Lenient):
    """The header fields both schema versions share."""

    iteration: Count = None
    date: Date = None
    wave: Text = None
    task_id: Text = None
    commit: Text = None
    files_changed: Count = None
    lines_added: Count = None
    lines_removed: Count = None
    first_commit: Text = None


class V1Entry(_Header):
    """Schema v1: one flat mapping per iteration."""

    schema_version: Literal[1]
    summary: Text = None
    scope_note: Text = None
    retries: Count = None
    tests_added: Count = None
    tests_total_pass: TriState = None
    self_assessment: SelfAssessment | None = None


class Agent(_Lenient):
    session_id: Text = None
    harness: Text = None
    model: Text = None


class SessionTokens(_Lenient):
    input_tokens: Count = None
    output_tokens: Count = None
    cache_read_tokens: Count = None
    cache_creation_tokens: Count = None
    # Read as any finite number: the outcome rubric clamps one outside [0, 1] and says so.
    cache_hit_rate: Number = None


class Impl(_Lenient):
    summary: Text = None
    scope_note: Text = None
    retries: Count = None
    focused_tests_added: Count = None
    focused_tests_pass: TriState = None
    tests_total_pass: TriState = None
    self_assessment: SelfAssessment | None = None


def _trace_item(value: Any) -> Any:
    return {"trace_ref": value} if isinstance(value, str) else value


def _kind_item(value: Any) -> Any:
    return {"name": value} if isinstance(value, str) else value


def _none_to_list(value: Any) -> Any:
    return [] if value is None or value == "" else value


class LinkedTrace(_Lenient):
    trace_ref: Text = None
    outcome_ref: Text = None


class TestByKind(_Lenient):
    name: Text = None
    kind: Text = None


class VerifierSelfAssessment(_Lenient):
    linked_traces_to_outcomes: TriState = None


class Verifier(_Lenient):
    type: Text = None
    status: Text = None
    gate_passed: TriState = None
    tests_added: Count = None
    tests_total_pass: TriState = None
    retries: Count = None
    result_artifact: Text = None
    linked_traces: Annotated[
        list[Annotated[LinkedTrace, BeforeValidator(_trace_item)]], BeforeValidator(_none_to_list)
    ] = []
    tests_added_by_kind: Annotated[
        list[Annotated[TestByKind, BeforeValidator(_kind_item)]], BeforeValidator(_none_to_list)
    ] = []
    self_assessment: VerifierSelfAssessment | None = None


class Review(_Lenient):
    phase_1_decision: Text = None
    phase_2_decision: Text = None
    overall_decision: Text = None
    failed_gates: Annotated[list[Text], BeforeValidator(_none_to_list)] = []
    decision_artifact: Text = None


class V2Entry(_Header):
    """Schema v2: a header plus blocks owned by role (agent, impl, verifiers, review)."""

    schema_version: Literal[2]
    checkpoint_at: Timestamp = None
    agent: Agent | None = None
    session_tokens: SessionTokens | None = None
    impl: Impl | None = None
    verifiers: Annotated[list[Verifier], BeforeValidator(_none_to_list)] = []
    review: Review | None = None


class HookRecord(_Lenient):
    """One hook-outcome record; ``result`` is required and must be a known word."""

    sentinel_id: Text = None
    skill: Text = None
    lifecycle_point: Text = None
    intervention_class: Text = None
    result: Literal["allow", "advise", "remediate"]
    rule_id: Text = None
    platform: Text = None
    ts: Timestamp = None
    correlation_id: Text = None

    @field_validator("result", mode="before")
    @classmethod
    def _lower(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value
