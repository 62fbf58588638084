"""Score sidecars written beside an iteration log.

``iter-N.score.yaml`` holds one iteration's score and breakdown; ``session-<id>.score.yaml``
holds a session's mean. Each is stamped with the rubric and its version, and written
atomically (a temporary file in the same folder, then a rename): a crash mid-write
leaves the previous file whole. The loader never reads them as iterations.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import polars as pl
import yaml

from toolkit._atomic import safe_file_name, write_text_atomic
from toolkit.errors import InputError
from toolkit.rubrics.outcome import OutcomeResult

SIDECAR_SCHEMA_VERSION = 1


def iteration_sidecar_path(log_dir: str | Path, iteration: int) -> Path:
    """``<log_dir>/iter-<N>.score.yaml``."""
    return Path(log_dir) / f"iter-{iteration}.score.yaml"


def session_sidecar_path(log_dir: str | Path, session_id: str) -> Path:
    """``<log_dir>/session-<id>.score.yaml``; characters other than letters, digits,
    ``.``, ``_`` and ``-`` in the id become ``_`` (an id can never leave the folder)."""
    return Path(log_dir) / f"session-{safe_file_name(session_id)}.score.yaml"


def _header(result: OutcomeResult) -> dict[str, Any]:
    return {
        "schema_version": SIDECAR_SCHEMA_VERSION,
        "rubric": result.rubric.rubric,
        "rubric_version": result.rubric.version,
    }


def _dump(data: dict[str, Any]) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


def _write(path: Path, data: dict[str, Any]) -> Path:
    try:
        return write_text_atomic(path, _dump(data))
    except OSError as exc:
        raise InputError(path, f"cannot write the score sidecar ({exc.strerror or exc})") from exc


def write_score_sidecars(
    result: OutcomeResult,
    log_dir: str | Path,
    *,
    iterations: Iterable[int] | None = None,
    sessions: bool = True,
) -> list[Path]:
    """Write score sidecars beside the log, atomically.

    Args:
        result: from :func:`toolkit.score_outcome`.
        log_dir: the iteration log folder.
        iterations: only these iterations' sidecars (default: every scored iteration of
            ``result``). Re-scoring one iteration rewrites only its sidecar.
        sessions: also write a sidecar per session in ``result.sessions``.

    Returns:
        The paths written.

    Raises:
        InputError: a sidecar could not be written.
    """
    wanted = result.scores["iteration"].to_list() if iterations is None else list(iterations)
    written: list[Path] = []
    integrity = result.integrity
    for n in wanted:
        data = {
            **_header(result),
            **result.iteration_dict(n),
            "integrity": integrity.filter(pl.col("iteration") == n).drop("iteration").to_dicts(),
        }
        written.append(_write(iteration_sidecar_path(log_dir, n), data))
    if sessions:
        per_iteration = result.scores.select("iteration", "scored", "value", "band")
        for session in result.sessions.iter_rows(named=True):
            members = per_iteration.filter(pl.col("iteration").is_in(session["iterations"]))
            data = {**_header(result), **session, "per_iteration": members.to_dicts()}
            written.append(_write(session_sidecar_path(log_dir, session["session_id"]), data))
    return written
