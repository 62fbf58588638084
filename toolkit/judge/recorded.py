"""Recorded judges: replay a cassette (deterministic, free) or record one from any judge."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toolkit._atomic import write_text_atomic
from toolkit.errors import InputError
from toolkit.judge._protocol import Judge, JudgeRequest, JudgeResult

CASSETTE_FORMAT = "toolkit-judge-cassette"
CASSETTE_VERSION = 1


class CassetteMiss(InputError):
    """A request the cassette has no recording for."""


def _read_cassette(path: Path) -> dict[str, Any]:
    from toolkit.load._common import read_json

    data = read_json(path)
    if not isinstance(data, dict) or data.get("format") != CASSETTE_FORMAT:
        raise InputError(
            path,
            f"not a judge cassette (expected format {CASSETTE_FORMAT!r})",
            field="format",
            value=data.get("format") if isinstance(data, dict) else data,
        )
    if data.get("version") != CASSETTE_VERSION:
        raise InputError(
            path,
            f"unsupported cassette version (this toolkit reads {CASSETTE_VERSION})",
            field="version",
            value=data.get("version"),
        )
    recordings = data.get("recordings")
    if not isinstance(recordings, dict):
        raise InputError(path, "recordings must be an object", field="recordings", value=recordings)
    for key, entry in recordings.items():
        value = entry.get("value") if isinstance(entry, dict) else None
        whole = type(value) is int and 0 <= value <= 2**63 - 1
        if not isinstance(entry, dict) or not (value is None or whole):
            raise InputError(
                path,
                "a recording needs a non-negative whole number (or null) value",
                field=f"recordings.{key}.value",
                value=value,
            )
    return data


class RecordedJudge:
    """Replays judge results from a cassette file, keyed by a hash of each request.

    A request the cassette does not hold raises :class:`CassetteMiss`: a changed claim,
    trajectory or persona must be re-recorded, never guessed.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        data = _read_cassette(self.path)
        self.recorded_by: str = str(data.get("judge", "unknown"))
        self.name = f"recorded:{self.path.name} (from {self.recorded_by})"
        self._recordings: dict[str, dict[str, Any]] = data["recordings"]

    def __len__(self) -> int:
        return len(self._recordings)

    def judge(
        self, requests: Sequence[JudgeRequest], *, double_check: bool = False
    ) -> list[JudgeResult]:
        """The recorded result of each request; raises :class:`CassetteMiss` on a miss."""
        results = []
        for request in requests:
            key = request.key(double_check=double_check)
            entry = self._recordings.get(key)
            if entry is None:
                raise CassetteMiss(
                    self.path,
                    f"no recording for proposition {request.proposition_id!r} about "
                    f"{request.subject!r} (key {key}{', double-check' if double_check else ''}); "
                    "the claim, trajectory or persona changed: re-record the cassette",
                    field="request",
                    value=request.proposition_id,
                )
            results.append(
                JudgeResult(
                    value=entry.get("value"),
                    reasoning=str(entry.get("reasoning", "")),
                    error=entry.get("error"),
                    raw=entry.get("raw"),
                )
            )
        return results


class RecordingJudge:
    """Wraps any judge and records every answer into a cassette file (atomically).

    Existing recordings in the file are kept; new answers are added after each call.
    """

    def __init__(self, inner: Judge, path: str | Path) -> None:
        self.inner = inner
        self.path = Path(path)
        self.name = f"recording:{inner.name}"
        self._recordings: dict[str, dict[str, Any]] = {}
        if self.path.exists():
            self._recordings = dict(_read_cassette(self.path)["recordings"])

    def judge(
        self, requests: Sequence[JudgeRequest], *, double_check: bool = False
    ) -> list[JudgeResult]:
        """Ask the wrapped judge, record its answers, return them."""
        results = self.inner.judge(requests, double_check=double_check)
        for request, result in zip(requests, results, strict=True):
            self._recordings[request.key(double_check=double_check)] = {
                "proposition": request.proposition_id,
                "subject": request.subject,
                "dimension": request.dimension,
                "value": result.value,
                "reasoning": result.reasoning,
                "error": result.error,
                "raw": result.raw,
            }
        self.save()
        return results

    def save(self) -> Path:
        """Write the cassette (sorted keys, so re-recording gives small diffs)."""
        payload = {
            "format": CASSETTE_FORMAT,
            "version": CASSETTE_VERSION,
            "judge": self.inner.name,
            "recordings": dict(sorted(self._recordings.items())),
        }
        return write_text_atomic(
            self.path, json.dumps(payload, indent=1, ensure_ascii=False) + "\n"
        )
