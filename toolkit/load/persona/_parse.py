"""What the persona loaders share: the first validation error as one line, UTC
timestamps, the lenient line model and the file read through the reading edge.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from toolkit.io import edge


def first_error(exc: ValidationError) -> tuple[str, Any, str]:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"]) or "(top level)"
    return where, err.get("input"), err["msg"]


def utc(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


class Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)


def read_text(path: Path, within: Path | None = None) -> str:
    return edge.read_text(path, within=within)
