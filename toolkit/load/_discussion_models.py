"""The 2L readers' file-boundary pydantic models: the lenient base, the role field's
reading, the one-line form of a refusal, and the transcript's models.

Importing this module costs pydantic itself and the transcript's six model classes (about
0.1 s of CPU with the field types of :mod:`toolkit.load._fields`; issue 38). A well-formed
transcript never needs it: :mod:`toolkit.load._discussion_plain` checks the exact JSON
types these models accept on the common path and hands anything else here, so every
refusal stays the models' own. The database readers (:mod:`toolkit.load.discussion_db`)
build their models on these.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from toolkit.errors import InputError
from toolkit.load._fields import Int64

__all__ = ["Lenient", "RoleModel", "Transcript", "validate"]


class Lenient(BaseModel):
    """File-boundary models: unknown keys are kept out of the frames, never an error."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)


class RoleModel(Lenient):
    @field_validator("role", mode="before", check_fields=False)
    @classmethod
    def _upper(cls, value: Any) -> Any:
        return value.strip().upper() if isinstance(value, str) else value


def validate(model: type[BaseModel], data: Any, path: str, where: str) -> Any:
    """``data`` validated by ``model``; a refusal is one line naming the file (``path``),
    the field (under ``where``) and the value."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"])
        field_name = f"{where}.{loc}" if loc else where
        raise InputError(path, err["msg"], field=field_name, value=err.get("input")) from exc


class _Cost(Lenient):
    totalCost: float | None = None
    totalInputTokens: Int64 | None = None
    totalCachedTokens: Int64 | None = None
    totalOutputTokens: Int64 | None = None
    cacheHitRate: float | str | None = None
    avgCostPerTurn: float | None = None


class _Metadata(Lenient):
    playerCount: Int64 | None = None
    mafiaCount: Int64 | None = None
    villagerCount: Int64 | None = None
    totalTurns: Int64 | None = None
    durationSeconds: float | None = None
    avgMessageLength: float | None = None
    cost: _Cost | None = None


class _TPlayer(RoleModel):
    name: str = Field(min_length=1)
    role: str
    personality: str | None = None
    isAlive: bool = True
    position: Int64 | None = None


class _TMessage(Lenient):
    id: str | None = None
    turn: Int64
    roundNumber: Int64
    playerName: str = Field(min_length=1)
    message: str
    timestamp: str | int | None = None
    inReplyToId: str | None = None
    inReplyToPlayer: str | None = None


class _TVote(Lenient):
    roundNumber: Int64
    voterName: str = Field(min_length=1)
    targetName: str | None = None
    justification: str | None = None
    timestamp: str | int | None = None


def _no_votes() -> list[_TVote]:
    # not ``default_factory=list``: pydantic reads the factory's signature, and for the
    # built-in ``list`` that means parsing its text signature with ``tokenize``, whose
    # regexes cost ~12 ms of CPU to compile on every discussion run (issue 38)
    return []


class Transcript(Lenient):
    """A 2L transcript (``discussion-<ts>.json``) as the loader reads it."""

    gameId: str = Field(min_length=1)
    timestamp: str | int | None = None
    metadata: _Metadata = Field(default_factory=_Metadata)
    players: list[_TPlayer]
    messages: list[_TMessage]
    votes: list[_TVote] = Field(default_factory=_no_votes)
