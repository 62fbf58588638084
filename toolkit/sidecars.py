"""Score sidecars written beside an iteration log.

``iter-N.score.yaml`` holds one iteration's score, breakdown and objectives as dot-agents'
``da score`` writes them (0 where it writes 0: an unscored value, an absent signal's
sub-score, an absent objective), and, when a verifier links traces to outcomes, its derived
``linked_traces_to_outcomes: true`` marker; what the toolkit adds (signal labels,
integrity rows, clamping reports) is under the ``toolkit`` key. ``session-<id>.score.yaml``
holds a session's mean. Each is stamped with the rubric and the version dot-agents
published, and written atomically (a temporary file in the same folder, then a rename): a
crash mid-write leaves the previous file whole. The loader never reads them as iterations
(only their ``rubric_version``).

``toolkit discussion --write`` saves each game's scorecard JSON in an ``evaluations/``
folder beside the game's source file, the same way (see :func:`discussion_sidecar_path`).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import polars as pl
import yaml

from toolkit.errors import InputError
from toolkit.io.atomic import safe_file_name, write_text_atomic
from toolkit.io.js_json import js_json
from toolkit.io.source import disk_path
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
        InputError: a sidecar could not be written, or ``log_dir`` is a URL or not an
            existing folder (sidecars are written only into a local log folder that is
            there; it is never created, so a name taken from data, such as a remote
            log's ``bucket/key``, cannot make one).
    """
    folder = disk_path(log_dir)
    if folder is None:
        raise InputError(
            log_dir, "score sidecars are written only into a local log folder, not a URL"
        )
    log_dir = folder
    if not log_dir.is_dir():
        raise InputError(
            log_dir, "no such local log folder: score sidecars are written only beside a log "
            "on this machine",
        )  # fmt: skip
    wanted = result.scores["iteration"].to_list() if iterations is None else list(iterations)
    written = [
        _write(iteration_sidecar_path(log_dir, n), iteration_sidecar(result, n)) for n in wanted
    ]
    if sessions:
        for session in result.sessions.iter_rows(named=True):
            data = session_sidecar(result, session["session_id"])
            written.append(_write(session_sidecar_path(log_dir, session["session_id"]), data))
    return written


def _zero(value: float | None) -> float:
    """dot-agents writes 0 where the toolkit holds null (unscored, absent)."""
    return 0.0 if value is None else value


def iteration_sidecar(result: OutcomeResult, iteration: int) -> dict[str, Any]:
    """``iter-N.score.yaml`` as ``da score`` writes it, value for value: an unscored
    iteration's ``value``, an absent signal's ``sub_score`` and an absent objective's
    ``value`` are 0 (with ``scored: false`` / ``present: false`` beside them), and
    ``linked_traces_to_outcomes: true`` only when true; each breakdown row holds the
    signal's ``label`` as dot-agents' ``PersistedContribution`` does. What the toolkit
    adds (the labels again by signal, integrity rows, clamping reports) is under the
    ``toolkit`` key and never changes a number above it."""
    row = result.iteration_dict(iteration)
    breakdown = [  # dot-agents' PersistedContribution: signal, label, present, ...
        r | {"sub_score": _zero(r["sub_score"])} for r in row["breakdown"]
    ]
    objectives = [
        {
            "objective": o["objective"],
            "present": o["value"] is not None,
            "value": 0 if o["value"] is None else o["value"],
            "detail": o["detail"],
        }
        for o in row["objectives"]
    ]
    data: dict[str, Any] = {
        **_header(result),
        "iteration": iteration,
        "scored": row["scored"],
        "value": _zero(row["value"]),
        "band": row["band"],
        "breakdown": breakdown,
        "objectives": objectives,
    }
    if row["linked_traces_to_outcomes"]:
        data["linked_traces_to_outcomes"] = True  # omitempty, as dot-agents writes it
    integrity = result.integrity.filter(pl.col("iteration") == iteration).drop("iteration")
    clamped = [w for w in result.warnings if w.startswith(f"iteration {iteration}: the ")]
    data["toolkit"] = {
        "labels": {r["signal"]: r["label"] for r in row["breakdown"]},
        "integrity": integrity.to_dicts(),
        "clamped": clamped,
    }
    if result.epoch:  # the measurement epoch (toolkit.epoch), under the toolkit's key
        data["toolkit"]["epoch"] = result.epoch
    if iteration in result.input_digests:
        data["toolkit"]["input_digest"] = result.input_digests[iteration]
    return data


def session_sidecar(result: OutcomeResult, session_id: str) -> dict[str, Any]:
    """``session-<id>.score.yaml`` as dot-agents writes it: the session's value (0 when
    unscored) and band, and each iteration's value (0 when unscored) and band."""
    session = result.sessions.filter(pl.col("session_id") == session_id).row(0, named=True)
    members = result.scores.filter(pl.col("iteration").is_in(session["iterations"]))
    per_iteration = [
        {**m, "value": _zero(m["value"])}
        for m in members.select("iteration", "scored", "value", "band").to_dicts()
    ]
    return {
        **_header(result),
        **session,
        "value": _zero(session["value"]),
        "per_iteration": per_iteration,
    }


# ---------------------------------------------------------------------------
# Discussion scorecards (``toolkit discussion --write``)
# ---------------------------------------------------------------------------

#: The folder, beside a game's source file, that holds its saved scorecards (2L's
#: evaluate script keeps its evaluations in a folder of this name too).
DISCUSSION_SIDECAR_FOLDER = "evaluations"


def _safe_part(text: str, limit: int = 80) -> str:
    """``text`` as one file-name part: unsafe characters -> ``_``, no leading dot, capped
    (a capped or rewritten part keeps a short hash of the original, so two ids stay two)."""
    safe = safe_file_name(text)
    if safe != text or len(safe) > limit:
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        safe = f"{safe[: limit - 9]}-{digest}"
    return safe


def discussion_sidecar_path(source_file: str | Path, game_id: str, *, per_game: bool) -> Path:
    """Where ``--write`` saves one game's scorecard JSON.

    ``<folder>/evaluations/<stem>.score.json`` for a transcript (one game per file);
    ``<folder>/evaluations/<stem>.<game id>.score.json`` for each game of a database
    export or SQLite database (``per_game``). ``<folder>`` is the source file's folder; the
    stem and the game id are sanitised, so the path never leaves that folder.
    """
    source = Path(source_file)
    name = _safe_part(source.stem)
    if per_game:
        name = f"{name}.{_safe_part(game_id)}"
    return source.parent / DISCUSSION_SIDECAR_FOLDER / f"{name}.score.json"


def two_l_evaluation_path(source_file: str | Path, game_id: str, *, per_game: bool) -> Path:
    """Where ``--write --compat 2l`` saves one game's evaluation, named as 2L's evaluate
    script names it: ``<folder>/evaluations/<name>-evaluation.json``, ``<name>`` the
    transcript's file name without a final lower-case ``.json`` (``path.basename(file,
    '.json')``: spaces and accents kept, ``game.JSON`` stays whole); a name too long for
    the atomic write's temporary file is shortened as :func:`discussion_sidecar_path`
    shortens it. For each game of a database export or SQLite database (which 2L's script
    does not read), ``<folder>/evaluations/<file stem>.<game id>-evaluation.json``."""
    source = Path(source_file)
    if per_game:
        name = f"{_safe_part(source.stem)}.{_safe_part(game_id)}"
    else:
        # a file's own name cannot leave its folder; keep it as 2L does
        name = source.name.removesuffix(".json") if source.name != ".json" else source.name
        if len(os.fsencode(name)) > _LONGEST_2L_NAME:
            name = _safe_part(source.stem)
    return source.parent / DISCUSSION_SIDECAR_FOLDER / f"{name}-evaluation.json"


#: The longest transcript name kept whole in 2L's file name: with ``-evaluation.json``
#: (16 bytes), within what :func:`toolkit.io.atomic.atomic_path` takes (220 bytes).
_LONGEST_2L_NAME = 200


def write_json_sidecar(path: Path, document: Mapping[str, Any], *, compat_2l: bool = False) -> Path:
    """Write ``document`` as indented JSON to ``path`` atomically, inside its folder only.

    ``path`` is ``<folder>/<sidecar folder>/<file>``; the sidecar folder is created when
    missing and refused when it is a link or not a folder, so a planted link cannot carry
    the write outside ``<folder>``.

    With ``compat_2l`` the file is written as 2L's evaluate script writes its own
    (:func:`toolkit.io.js_json.js_json`: two-space indented, no trailing newline, non-ASCII
    kept, numbers as JavaScript prints them, and ``fs.writeFileSync``'s mode: the usual
    mode for a new file, 0644 under the common umask 022, not a temporary file's 0600,
    and the mode of a file it replaces kept); still atomically.

    Raises:
        InputError: the sidecar folder is unusable or the file cannot be written.
    """
    folder = path.parent
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise InputError(folder, "refusing to write scorecards here: not a plain folder")
    try:
        folder.mkdir(exist_ok=True)
        if folder.resolve().parent != folder.parent.resolve():
            raise InputError(folder, "refusing to write scorecards outside the input's folder")
        if compat_2l:  # as 2L writes it: JSON.stringify(result, null, 2)
            # writeFileSync's mode: the usual one for a new file, a replaced file's own
            # (atomic_path's default, so no mode is passed)
            return write_text_atomic(path, js_json(document, non_finite="null"))
        text = json.dumps(document, indent=2, default=str) + "\n"
        return write_text_atomic(path, text)
    except OSError as exc:
        raise InputError(path, f"cannot write the scorecard ({exc.strerror or exc})") from exc
