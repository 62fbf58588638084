"""Recorded judges: replay a cassette (deterministic, free) or record one from any judge."""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toolkit.epoch import short_hash
from toolkit.errors import InputError
from toolkit.io.atomic import write_text_atomic
from toolkit.io.documents import check_document_header, read_json
from toolkit.judge._protocol import Estimate, Judge, JudgeRequest, JudgeResult

CASSETTE_FORMAT = "toolkit-judge-cassette"
CASSETTE_VERSION = 1


class CassetteMiss(InputError):
    """A request the cassette has no recording for."""


def _read_cassette(path: Path) -> dict[str, Any]:
    data = check_document_header(
        path, read_json(path), what="judge cassette", fmt=CASSETTE_FORMAT, version=CASSETTE_VERSION
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

    def digest(self) -> str:
        """A short hash of the cassette's recordings (what the judge answers), for the
        measurement epoch (:mod:`toolkit.epoch`)."""
        return short_hash(self._recordings)

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
            results.append(_result_of(entry))
        return results


def _result_of(entry: dict[str, Any]) -> JudgeResult:
    return JudgeResult(
        value=entry.get("value"),
        reasoning=str(entry.get("reasoning", "")),
        error=entry.get("error"),
        raw=entry.get("raw"),
    )


class RecordingJudge:
    """Wraps any judge and records every answer into a cassette file (atomically).

    Resumable: a request the cassette already answers is replayed from it, and only the
    others go to the wrapped judge; each batch's new answers are written (the whole
    cassette, through a temporary file and a rename) as soon as they arrive, so a run
    killed half-way loses at most the calls in flight. A transient result (the API
    unreachable, the cost cap) is not recorded: the next run asks again. Safe to call
    from several threads at once: saves are coalesced (while one thread writes, answers
    arriving meanwhile go into its next write), so no call waits for another's save, and
    every answer is on disk before the :meth:`judge` call that recorded it, or the one
    writing at that moment, returns.
    """

    def __init__(self, inner: Judge, path: str | Path) -> None:
        self.inner = inner
        self.path = Path(path)
        self.name = f"recording:{inner.name}"
        self.model: str | None = getattr(inner, "model", None)
        self._lock = threading.Lock()  # guards _recordings and _dirty
        self._writing = threading.Lock()  # one writer at a time
        self._dirty = False
        self._recordings: dict[str, dict[str, Any]] = {}
        if self.path.exists():
            self._recordings = dict(_read_cassette(self.path)["recordings"])

    def _missing(self, requests: Sequence[JudgeRequest], double_check: bool) -> list[int]:
        with self._lock:
            return [
                i
                for i, request in enumerate(requests)
                if request.key(double_check=double_check) not in self._recordings
            ]

    def estimate(self, requests: Sequence[JudgeRequest], *, double_check: bool = False) -> Estimate:
        """The wrapped judge's estimate for the requests the cassette does not answer."""
        missing = [requests[i] for i in self._missing(requests, double_check)]
        inner = getattr(self.inner, "estimate", None)
        if not missing or inner is None:
            return Estimate(0, 0)
        bound: Estimate = inner(missing, double_check=double_check)
        return bound

    def judge(
        self, requests: Sequence[JudgeRequest], *, double_check: bool = False
    ) -> list[JudgeResult]:
        """Replay what the cassette holds, ask the wrapped judge the rest, record it."""
        missing = self._missing(requests, double_check)
        asked = [requests[i] for i in missing]
        fresh = self.inner.judge(asked, double_check=double_check) if asked else []
        if len(fresh) != len(asked):
            raise InputError(
                None,
                f"the judge returned {len(fresh)} results for {len(asked)} requests",
                field="judge",
                value=self.inner.name,
            )
        answers = dict(zip(missing, fresh, strict=True))
        with self._lock:
            for request, result in zip(asked, fresh, strict=True):
                if result.transient:
                    continue
                self._recordings[request.key(double_check=double_check)] = {
                    "proposition": request.proposition_id,
                    "subject": request.subject,
                    "dimension": request.dimension,
                    "value": result.value,
                    "reasoning": result.reasoning,
                    "error": result.error,
                    "raw": result.raw,
                }
                self._dirty = True
            out = [
                answers[i]
                if i in answers
                else _result_of(self._recordings[request.key(double_check=double_check)])
                for i, request in enumerate(requests)
            ]
        self._flush()
        return out

    def _flush(self) -> None:
        """Write the cassette while it has unsaved answers, unless another thread is."""
        while self._writing.acquire(blocking=False):
            try:
                with self._lock:
                    dirty, self._dirty = self._dirty, False
                    snapshot = dict(self._recordings) if dirty else {}
                if dirty:
                    self._write(snapshot)
            finally:
                self._writing.release()
            # an answer recorded while we held the writer's lock is ours to write
            with self._lock:
                if not self._dirty:
                    return

    def save(self) -> Path:
        """Write the cassette (sorted keys, so re-recording gives small diffs)."""
        with self._writing:
            with self._lock:
                self._dirty = False
                snapshot = dict(self._recordings)
            return self._write(snapshot)

    def _write(self, recordings: dict[str, dict[str, Any]]) -> Path:
        payload = {
            "format": CASSETTE_FORMAT,
            "version": CASSETTE_VERSION,
            "judge": self.inner.name,
            "recordings": dict(sorted(recordings.items())),
        }
        return write_text_atomic(
            self.path, json.dumps(payload, indent=1, ensure_ascii=False) + "\n"
        )
