"""Golden baselines: per agent, its dimension and proposition scores, read and written
as one JSON file per agent.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from toolkit.errors import InputError
from toolkit.io.atomic import safe_file_name, write_text_atomic
from toolkit.load._common import parse_json_text
from toolkit.load.persona._parse import first_error, read_text, utc


class Baseline(BaseModel):
    """A golden baseline for one agent (camel-case keys in the file)."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True, frozen=True)

    agent_id: str = Field(min_length=1, alias="agentId")
    captured_at: datetime = Field(alias="capturedAt")
    dimensions: dict[str, float]
    proposition_scores: dict[str, float] = Field(default_factory=dict, alias="propositionScores")

    @field_validator("dimensions", "proposition_scores")
    @classmethod
    def _on_the_scale(cls, value: dict[str, float]) -> dict[str, float]:
        for key, score in value.items():
            if not 0.0 <= score <= 9.0:  # also refuses NaN and infinities
                raise ValueError(f"score {key!r} = {score!r} is not a number from 0 to 9")
        return value

    def to_json(self) -> str:
        """The baseline in its file form (2-space indented JSON)."""
        scores = {
            k: int(v) if float(v).is_integer() else round(v, 4)
            for k, v in self.proposition_scores.items()
        }
        stamp = utc(self.captured_at)
        assert stamp is not None
        payload = {
            "agentId": self.agent_id,
            "capturedAt": stamp.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "dimensions": dict(self.dimensions),
            "propositionScores": scores,
        }
        return json.dumps(payload, indent=2) + "\n"


def load_baseline(path: str | Path, *, within: Path | None = None) -> Baseline:
    """Read one golden baseline JSON file (scores on the judge's 0-9 scale).

    Raises:
        InputError: naming the file, the field and the value.
    """
    source = Path(path)
    data = parse_json_text(source, read_text(source, within))
    if not isinstance(data, dict):
        raise InputError(source, "a baseline must be a JSON object", value=data)
    try:
        return Baseline.model_validate(data)
    except ValidationError as exc:
        loc, value, msg = first_error(exc)
        raise InputError(source, msg, field=loc, value=value) from exc


def load_baselines(path: str | Path) -> dict[str, Baseline]:
    """Read every ``*.json`` baseline of a folder (or one file), keyed by agent id."""
    root = Path(path)
    if root.is_file():
        paths = [root]
    elif root.is_dir():
        paths = sorted(root.glob("*.json"))
    else:
        raise InputError(root, "no such baseline file or folder")
    out: dict[str, Baseline] = {}
    for p in paths:
        baseline = load_baseline(p, within=root if root.is_dir() else None)
        if baseline.agent_id in out:
            raise InputError(
                p, "a second baseline for this agent", field="agentId", value=baseline.agent_id
            )
        out[baseline.agent_id] = baseline
    return out


def write_baselines(baselines: Iterable[Baseline], folder: str | Path) -> list[Path]:
    """Write each baseline atomically to ``<folder>/<agent_id>.json``; returns the paths.

    The agent id comes from the data, so it is made a safe file name first
    (:func:`toolkit.io.atomic.safe_file_name`): a baseline is never written outside
    ``folder``.

    Raises:
        InputError: two agent ids give the same file name.
    """
    chosen: dict[str, str] = {}
    planned: list[tuple[Path, Baseline]] = []
    for b in baselines:
        name = f"{safe_file_name(b.agent_id)}.json"
        if name in chosen and chosen[name] != b.agent_id:
            raise InputError(
                Path(folder) / name,
                f"agent ids {chosen[name]!r} and {b.agent_id!r} give the same file name",
                field="agentId",
                value=b.agent_id,
            )
        chosen[name] = b.agent_id
        planned.append((Path(folder) / name, b))
    return [write_text_atomic(target, b.to_json()) for target, b in planned]
