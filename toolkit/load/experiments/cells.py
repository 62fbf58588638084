"""The cells both experiment formats share: a score, a group name, a renamed metric."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolkit.errors import InputError

GROUPS = ("treatment", "control")


def score_of(path: Path, where: str, value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(path, "a score must be a number or null", field=where, value=value)
    number = float(value)
    if math.isinf(number):
        raise InputError(path, "a score must be finite", field=where, value=value)
    return None if math.isnan(number) else number


def group_name(name: str) -> str | None:
    key = name.strip().lower()
    return key if key in GROUPS else None


def renamed(metric: str, rename: Mapping[str, str] | None) -> str:
    return rename.get(metric, metric) if rename else metric
