"""The scorecard of a run: its verdict from the counted dimensions, its warnings and
meta; and the CI gate over a card.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from toolkit.rubrics.simulation._values import DEGRADED, FAILED, HEALTHY, INSUFFICIENT
from toolkit.scorecard import FAIL, NA, OK, WARN, Dimension, Scorecard

if TYPE_CHECKING:
    from toolkit.rubrics.simulation.spec import SimulationRubric


def _verdict(dims: list[Dimension], has_ticks: bool, informational: list[str]) -> tuple[str, str]:
    if not has_ticks:
        return INSUFFICIENT, "no ticks to score"
    counted = [d for d in dims if d.key not in informational]
    fails = [d.name.lower() for d in counted if d.status == FAIL]
    warns = [d.name.lower() for d in counted if d.status == WARN]
    unmeasured = [d.name.lower() for d in counted if d.status == NA]
    parts = []
    if fails:
        parts.append("fail: " + ", ".join(fails))
    if warns:
        parts.append("warn: " + ", ".join(warns))
    if unmeasured:  # not measured is not green: the verdict says which were not
        parts.append("not measured: " + ", ".join(unmeasured))
    verdict = FAILED if fails else (DEGRADED if warns else HEALTHY)
    return verdict, "; ".join(parts)


def _scored_span(ticks: int, window: int) -> str:
    """What a card scored: ``last 50 ticks``, or ``all 64 ticks (window 100000)``."""
    if ticks >= window:
        return f"last {window} ticks"
    return f"all {ticks} tick{'' if ticks == 1 else 's'} (window {window})"


def _iso(value: Any) -> str | None:
    return None if value is None else value.strftime("%Y-%m-%dT%H:%M:%SZ")


def run_card(
    slug: str,
    name: str,
    rubric: SimulationRubric,
    w: int,
    row: dict[str, Any] | None,
    issues: list[dict[str, Any]],
    load_warnings: list[str],
    batched: int,
    extent: dict[str, Any],
    series: pl.DataFrame | None,
    scored: tuple[list[Dimension], str, pl.DataFrame, pl.DataFrame],
) -> Scorecard:
    """The scorecard of one run; ``scored``: its dimensions, where groundedness comes
    from, and its dimensions and measures frames (from :func:`score_universe`)."""
    dims, grounded_source, dimensions, measures = scored
    verdict, reason = _verdict(dims, row is not None, rubric.informational())

    warnings = [f"skipped {issue['reason']}" for issue in issues] + load_warnings
    if row is not None and row["n"] < w:
        warnings.append(f"only {row['n']} ticks available: the window holds fewer than {w}")
    if batched:
        note = f"{batched} older ticks exist only in batch records and are not scored per tick"
        if rubric.vocabulary_growth.unit == "verb":
            note += "; batch records list no verbs, so novelty counts from the first tick file"
        warnings.append(note)
    if "proxy" in grounded_source and row is not None:
        warnings.append(
            "groundedness uses the proxy (an executed tick with zero mutations is ungrounded):"
            " these ticks carry no observer claims"
        )
    meta = {
        "slug": slug,
        "name": name,
        "window": w,
        "tick_count": row["n"] if row else 0,
        "first_tick": row["first_tick"] if row else None,
        "last_tick": row["tick"] if row else None,
        "ticks_loaded": int(extent.get("ticks_loaded") or 0),
        "started": _iso(extent.get("started")),
        "ended": _iso(extent.get("ended")),
        "ticks_in_batches": batched,
        "grounded_source": grounded_source,
        "skipped_files": [issue["path"] for issue in issues],
        "informational": rubric.informational(),
    }
    return Scorecard(
        rubric=rubric.rubric,
        rubric_version=rubric.version,
        subject=slug,
        title=f"{name} · {_scored_span(row['n'] if row else 0, w)}",
        verdict=verdict,
        verdict_reason=reason,
        dimensions=dimensions,
        warnings=tuple(warnings),
        meta=meta,
        series=series,
        measures=measures,
    )


#: ``--gate`` modes: ``strict`` passes only when every counted dimension is OK (N/A
#: fails it); ``fail-only`` fails only on a counted FAIL (WARN, N/A and no data pass).
GATE_MODES: tuple[str, ...] = ("strict", "fail-only")


def passes_gate(card: Scorecard, mode: str = "strict") -> bool:
    """Whether ``card`` passes the gate ``mode`` (see :data:`GATE_MODES`).

    Informational dimensions (``card.meta["informational"]``) never decide a gate.
    """
    if mode not in GATE_MODES:
        raise ValueError(f"unknown gate mode {mode!r}")
    skip = set(card.meta.get("informational", ()))
    statuses = [
        s for k, s in card.dimensions.select("dimension", "status").iter_rows() if k not in skip
    ]
    if mode == "fail-only":
        return FAIL not in statuses
    return card.verdict != INSUFFICIENT and all(s == OK for s in statuses)
