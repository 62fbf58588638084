"""Scorecards in the JSON shape token-world's own ``quality --format json`` prints.

Used by ``toolkit quality RUN --format json --compat token-world``, for CI scripts and
dashboards written against token-world. The shape is token-world's: ``slug, window,
tick_count, verdict, dimensions[{name, status, score, detail}]`` and nothing else. Two
conventions differ from the toolkit's own JSON:

* every ``score`` is a number: a dimension without evidence (our ``N/A``, score
  ``null``) is ``UNKNOWN`` with score ``0.0``; its ``detail`` keeps the reason;
* the status vocabulary is token-world's ``OK | WARN | FAIL | UNKNOWN``.

A run with no ticks to score is ``{verdict: INSUFFICIENT_DATA, tick_count: 0,
dimensions: []}``. The verdict follows token-world's own rule over the statuses printed
beside it, so it always follows from them: any ``FAIL`` is ``FAILED``, else any ``WARN``
(informational dimensions included, as token-world counts all eight) is ``DEGRADED``,
else ``HEALTHY`` (``UNKNOWN`` does not degrade: token-world scores a dimension without
evidence ``OK``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from toolkit.scorecard import FAIL, NA, OK, WARN, Scorecard

#: Our status → token-world's status.
TOKEN_WORLD_STATUS: dict[str, str] = {OK: "OK", WARN: "WARN", FAIL: "FAIL", NA: "UNKNOWN"}

#: The score token-world reports where there is no evidence.
UNKNOWN_SCORE = 0.0

INSUFFICIENT_DATA = "INSUFFICIENT_DATA"


def insufficient_data(slug: str, window: int) -> dict[str, Any]:
    """The document token-world prints for a run with nothing to score."""
    return {
        "slug": slug,
        "window": window,
        "tick_count": 0,
        "verdict": INSUFFICIENT_DATA,
        "dimensions": [],
    }


def token_world_dict(card: Scorecard) -> dict[str, Any]:
    """A simulation scorecard as token-world's JSON object."""
    slug = str(card.meta.get("slug", card.subject))
    window = int(card.meta.get("window") or 0)
    if card.verdict == INSUFFICIENT_DATA:
        return insufficient_data(slug, window)
    dimensions = [
        {
            "name": row["name"],
            "status": TOKEN_WORLD_STATUS.get(row["status"], "UNKNOWN"),
            "score": UNKNOWN_SCORE if row["value"] is None else float(row["value"]),
            "detail": row["detail"],
        }
        for row in card.dimensions.iter_rows(named=True)
    ]
    return {
        "slug": slug,
        "window": window,
        "tick_count": int(card.meta.get("tick_count") or 0),
        "verdict": token_world_verdict([d["status"] for d in dimensions]),
        "dimensions": dimensions,
    }


def token_world_verdict(statuses: list[str]) -> str:
    """token-world's verdict rule: any FAIL is FAILED, any WARN DEGRADED, else HEALTHY."""
    if "FAIL" in statuses:
        return "FAILED"
    if "WARN" in statuses:
        return "DEGRADED"
    return "HEALTHY"


def render_token_world_json(card: Scorecard | dict[str, Any]) -> str:
    """token-world's JSON text for ``card`` (or for a document already built)."""
    data = card if isinstance(card, dict) else token_world_dict(card)
    return json.dumps(data, indent=2)


# ---------------------------------------------------------------------------
# 2L's evaluation file (``toolkit discussion --write --compat 2l``)
# ---------------------------------------------------------------------------

#: Our metric keys -> 2L's (its ``EvaluationResult.metrics`` keys, camelCase).
TWO_L_METRICS: dict[str, str] = {
    "memory_accuracy": "memoryAccuracy",
    "strategic_depth": "strategicDepth",
    "coherence": "coherence",
    "role_consistency": "roleConsistency",
    "personality_diversity": "personalityDiversity",
    "anti_repetition": "antiRepetition",
    "engagement": "engagement",
}


def two_l_timestamp(now: datetime | None = None) -> str:
    """An instant as JavaScript's ``new Date().toISOString()`` writes it
    (``2026-11-24T08:05:12.345Z``: UTC, milliseconds, ``Z``)."""
    when = (now or datetime.now(UTC)).astimezone(UTC)
    return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"


#: The number 2L's script writes for a metric with nothing to measure (no reference to the
#: past: memory 1; fewer than two messages: coherence 1; no phrases: anti-repetition 1;
#: no messages: strategic depth, role consistency and diversity 0; engagement its
#: constant 3, the placeholder for a human rating). Written where this rubric has no
#: score, so 2L's readers (``score.toFixed(2)``) always find a number; the toolkit's own
#: state is under :data:`TWO_L_OWN_KEY`.
TWO_L_PLACEHOLDERS: dict[str, int] = {
    "memoryAccuracy": 1,
    "strategicDepth": 0,
    "coherence": 1,
    "roleConsistency": 0,
    "personalityDiversity": 0,
    "antiRepetition": 1,
    "engagement": 3,
}

#: The key of the toolkit's own state in 2L's file (2L's readers ignore it).
TWO_L_OWN_KEY = "toolkit"


def two_l_evaluation(
    card: Scorecard, thresholds: Mapping[str, float], now: datetime | None = None
) -> dict[str, Any]:
    """One game's scorecard in the shape of 2L's ``evaluations/<stem>-evaluation.json``.

    ``{metrics: {memoryAccuracy: {score, threshold, pass}, ...7}, passCount, totalMetrics,
    overallPass, timestamp}`` as 2L writes it, then the toolkit's own state under
    ``toolkit``: ``{verdict, verdictReason, rubricVersion, placeholders: {<2L key>: why},
    epoch, inputDigest}`` (the measurement epoch and the game's input digest, when stamped).
    Scripts written against 2L's file read it unchanged. The numbers and the verdict are
    this rubric's (see ``docs/rubrics/discussion.md``): ``pass`` is a metric's PASS; a
    metric without evidence (N/A, or engagement still waiting for a rating) carries 2L's
    own placeholder (:data:`TWO_L_PLACEHOLDERS`, never null: 2L's display code calls
    ``score.toFixed(2)``) with ``pass`` false, and is named under ``toolkit.placeholders``;
    ``overallPass`` is the verdict PASS, which also needs engagement and the cost budget
    (2L's script passes at 5 of 7).

    Args:
        card: a discussion scorecard.
        thresholds: each metric's pass threshold (the rubric's, by our metric key).
        now: when the evaluation was made (default: now).
    """
    rows = {r["dimension"]: r for r in card.dimensions.iter_rows(named=True)}
    metrics: dict[str, Any] = {}
    placeholders: dict[str, str] = {}
    for ours, theirs in TWO_L_METRICS.items():
        row = rows.get(ours, {})
        score = row.get("value")
        if score is None:
            score = TWO_L_PLACEHOLDERS[theirs]
            placeholders[theirs] = str(row.get("detail") or "no score")
        metrics[theirs] = {
            "score": score,
            "threshold": thresholds[ours],
            "pass": row.get("status") == "PASS",
        }
    passed = sum(1 for m in metrics.values() if m["pass"])
    return {
        "metrics": metrics,
        "passCount": passed,
        "totalMetrics": len(TWO_L_METRICS),
        "overallPass": card.verdict == "PASS",
        "timestamp": two_l_timestamp(now),
        TWO_L_OWN_KEY: {
            "verdict": card.verdict,
            "verdictReason": card.verdict_reason,
            "rubricVersion": card.rubric_version,
            "placeholders": placeholders,
            # the measurement epoch and input digest (toolkit.epoch), in the toolkit's key
            **{
                k: card.meta[m]
                for k, m in (("epoch", "epoch"), ("inputDigest", "input_digest"))
                if card.meta.get(m)
            },
        },
    }
