"""The files of a token-world run, as pydantic models: the reading edge's word on what a
tick summary (schema v1 and v2) and a compressed record hold, lenient where the engine is
lenient. The fast tick path (:mod:`toolkit.load._ticks`) and the plain check of a batch
record (:func:`toolkit.load._run_files.plain_record`) turn to these models for a file they
cannot vouch for, so that a refusal names the file, the field and the value.

Importing this module costs nine model classes (about 13 ms of CPU) and pydantic itself
where nothing else has imported it (about 0.1 s): a well-formed run never imports it
(issue 38; ``tests/test_startup_imports.py``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from toolkit.load._run_files import tick_id_number

__all__ = [
    "ClassifiedAction",
    "CompressedRecord",
    "Mutations",
    "Observation",
    "TickV1",
    "TickV2",
]


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore")


class ClassifiedAction(_Model):
    """``classified_action``: what the classifier understood the agent to do."""

    verb: str | None = None
    actor: str | None = None
    target: str | None = None


class Mutations(_Model):
    """``mutations``: ``{"count": int, "list": [[target, property, old, new], ...]}``."""

    count: int | None = None
    changes: list[list[Any]] = Field(default=[], alias="list")


class Observation(_Model):
    """v2 ``observation``: the observer's text and the changes it claims happened."""

    text: str | None = None
    claimed_changes: list[list[Any]] | None = None


class _TickBase(_Model):
    tick_id: str | int | None = None
    timestamp_iso: str | None = None
    action_text: str | None = None
    classified_action: ClassifiedAction | None = None
    matched_mechanic_id: str | None = None
    refusal_reason: str | None = None
    mutations: Mutations = Mutations()
    duration_ms: float | None = None
    llm_tokens_by_stage: dict[str, dict[str, float | None] | None] | None = None

    @field_validator("mutations", mode="before")
    @classmethod
    def _bare_list(cls, value: Any) -> Any:
        # Some writers store the list alone; the engine reads both.
        if value is None:
            return {}
        if isinstance(value, list):
            return {"list": value}
        return value


class TickV1(_TickBase):
    """Tick summary schema v1, as the engine writes it today."""

    schema_version: Literal[1] = 1
    yielded: bool = False
    refused: bool = False
    observation_text: str | None = None
    llm_cost_usd_by_stage: dict[str, float | None] | None = None


class TickV2(_TickBase):
    """Tick summary schema v2: the pipeline design's shape, with observer claims."""

    schema_version: Literal[2]
    actor_id: str | None = None
    kind: Literal["execute", "yield", "refuse"]
    conservation_verdict: Literal["ok", "violated"] | None = None
    observation: Observation | None = None
    cost_usd: float | None = None


#: A tick number or count of a batch record: whole, non-negative, within 64 bits.
Tick = Annotated[int, Field(ge=0, le=2**63 - 1)]


class CompressedRecord(_Model):
    """A ``batch_<n>.json`` or ``epoch_<n>.json`` record."""

    kind: str | None = None
    batch_id: str | int | None = None
    first_tick: Tick | None = None
    last_tick: Tick | None = None
    tick_count: Tick | None = None
    key_events: list[Any] = []
    mechanic_ids_used: list[str] = []
    total_mutations: Tick | None = None
    agent_id: str | None = None

    @field_validator("first_tick", "last_tick", mode="before")
    @classmethod
    def _tick_number(cls, value: Any) -> Any:
        return tick_id_number(value)
