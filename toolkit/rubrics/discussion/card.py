"""The scorecard of one game: its metric rows (and the judge's beside them), verdict,
warnings and the facts a page, a gate or the success check reads."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from toolkit.load.discussion import Discussion
from toolkit.rubrics.discussion._values import METRIC_KEYS
from toolkit.rubrics.discussion.schemas import FAIL, PASS
from toolkit.rubrics.discussion.verdict import decide_verdict
from toolkit.scorecard import NA, Dimension, Scorecard

if TYPE_CHECKING:  # the judge's machinery is imported only when a judge is asked
    from toolkit.rubrics.discussion.judge import JudgedDiscussion
    from toolkit.rubrics.discussion.spec import DiscussionSpec

__all__ = ["game_card", "game_cards"]


def game_cards(
    game_ids: list[str],
    metrics: pl.DataFrame,
    table: pl.DataFrame,
    discussion: Discussion,
    spec: DiscussionSpec,
    require_cost: bool = False,
    judged: JudgedDiscussion | None = None,
) -> list[Scorecard]:
    """The scorecard of each game of ``game_ids``, in that order (as :func:`game_card`
    of each): every frame is split by game once, not filtered once per game (four
    queries a game before; issue 38)."""
    rows_of = _rows_by_game(metrics)
    facts_of = _first_rows(table)
    game_of = _first_rows(discussion.games)
    return [
        _card(
            gid,
            rows_of.get(gid, metrics.clear()),
            facts_of[gid],
            game_of[gid],
            discussion,
            spec,
            require_cost,
            judged,
        )
        for gid in game_ids
    ]


def game_card(
    gid: str,
    metrics: pl.DataFrame,
    table: pl.DataFrame,
    discussion: Discussion,
    spec: DiscussionSpec,
    require_cost: bool = False,
    judged: JudgedDiscussion | None = None,
) -> Scorecard:
    """The scorecard of game ``gid`` from its metric rows and its tallies."""
    return game_cards([gid], metrics, table, discussion, spec, require_cost, judged)[0]


def _rows_by_game(metrics: pl.DataFrame) -> dict[str | None, pl.DataFrame]:
    """Each game's rows of ``metrics``, by game id: a slice of the frame where they are
    together (as :func:`~.metrics.metrics_frame` writes them: no query, where a
    ``partition_by`` is one a game; issue 38), else a ``partition_by``."""
    spans: dict[str | None, list[int]] = {}
    for i, gid in enumerate(metrics.get_column("game_id").to_list()):
        span = spans.setdefault(gid, [i, 0])
        if span[0] + span[1] != i:  # a game's rows apart: split the frame by game
            parts = metrics.partition_by("game_id", as_dict=True, maintain_order=True)
            return {key[0]: part for key, part in parts.items()}
        span[1] += 1
    return {gid: metrics.slice(start, n) for gid, (start, n) in spans.items()}


def _first_rows(frame: pl.DataFrame) -> dict[str, dict[str, Any]]:
    """Each game's first row of ``frame`` (named), by game id."""
    first: dict[str, dict[str, Any]] = {}
    for row in frame.iter_rows(named=True):
        first.setdefault(row["game_id"], row)
    return first


def _card(
    gid: str,
    rows: pl.DataFrame,
    facts: dict[str, Any],
    game: dict[str, Any],
    discussion: Discussion,
    spec: DiscussionSpec,
    require_cost: bool,
    judged: JudgedDiscussion | None,
) -> Scorecard:
    """The scorecard of game ``gid``: its metric rows, tallies and game row."""
    rounds = facts["rounds"]
    statuses = {r["key"]: r["status"] for r in rows.iter_rows(named=True)}
    engagement = facts["engagement"]
    by_judge = facts["engagement_source"] == "judge"
    cost = facts["cost_usd"]
    verdict, reasons, passed = decide_verdict(
        statuses, engagement, cost, spec, require_cost=require_cost, engagement_by_judge=by_judge
    )
    if facts["messages"] == 0:
        reasons.insert(0, "no discussion messages: nothing to score")
    dims, informational = _dimensions(gid, rows, judged)
    warnings = _warnings(gid, discussion, game["source_file"], facts, by_judge)
    cost_text = "cost unknown" if cost is None else f"${cost:.2f}"
    round_word = "round" if rounds == 1 else "rounds"
    stamp = " · engagement: judge" if by_judge else ""
    return Scorecard(
        rubric="discussion",
        rubric_version=spec.version,
        subject=gid,
        title=f"Game {gid} · {facts['messages']} messages, {rounds} {round_word} · "
        f"{cost_text}{stamp}",
        verdict=verdict,
        verdict_reason="; ".join(reasons),
        dimensions=Scorecard.dimensions_frame(gid, dims),
        warnings=tuple(warnings),
        meta={
            "game_id": gid,
            "passed_count": passed,
            "reasons": reasons,
            "cost": cost,
            "cost_required": require_cost,
            "cache_hit_rate": facts["cache_hit_rate"],
            "engagement": engagement,
            "ratings": facts["ratings"],
            "labels_overridden": {
                k: facts[f"{k}_overridden"] for k in ("strategic", "role", "memory", "diversity")
            },
            "signed_off": facts["signed_off"],
            "thresholds": {k: spec.threshold(k) for k in METRIC_KEYS},
            "source_file": game["source_file"],
            **(_judge_meta(judged, informational, facts) if judged is not None else {}),
        },
    )


def _dimensions(
    gid: str, rows: pl.DataFrame, judged: JudgedDiscussion | None
) -> tuple[list[Dimension], list[str]]:
    """A dimension per metric row, each followed by the judge's reading of it when there
    is one (informational: it never decides); and the keys of those readings."""
    dims: list[Dimension] = []
    informational: list[str] = []
    for r in rows.iter_rows(named=True):
        green, red = f">= {_thr(r['threshold'])}", f"< {_thr(r['threshold'])}"
        dims.append(
            Dimension(
                key=r["key"],
                name=r["name"],
                value=r["score"],
                status=r["status"],
                detail=r["detail"],
                green=green,
                red=red,
            )
        )
        reading = judged.reading(gid, r["key"]) if judged is not None else None
        if reading is not None:  # the judge's reading, beside the metric, never deciding
            value = reading["value"]
            status = NA if value is None else PASS if value >= r["threshold"] else FAIL
            informational.append(f"{r['key']}_judge")
            dims.append(
                Dimension(
                    key=f"{r['key']}_judge",
                    name=f"{r['name']} (judge)",
                    value=value,
                    status=status,
                    detail=reading["detail"],
                    green=green,
                    red=red,
                )
            )
    return dims, informational


def _warnings(
    gid: str, discussion: Discussion, source_file: str, facts: dict[str, Any], by_judge: bool
) -> list[str]:
    """The loader's warnings about the game, then what a reviewer or the judge decided."""
    warnings = [w for w in discussion.warnings if gid in w or w.startswith(source_file)]
    if facts["strategic_overridden"] or facts["role_overridden"]:
        warnings.append(
            f"reviewer labels overrode {facts['strategic_overridden']} strategic and "
            f"{facts['role_overridden']} role label(s)"
        )
    if facts["memory_overridden"]:
        warnings.append(f"reviewer labels decided {facts['memory_overridden']} memory reference(s)")
    if facts["diversity_overridden"]:
        warnings.append(
            f"reviewer labels overrode {facts['diversity_overridden']} speaker(s)' "
            "personality diversity"
        )
    if by_judge:
        warnings.append(
            "engagement by the judge (--engagement judge): no person rated this game; the "
            "verdict rests on the judge's 1-5 reading, not on people's"
        )
    return warnings


def _judge_meta(
    judged: JudgedDiscussion, informational: list[str], facts: dict[str, Any]
) -> dict[str, Any]:
    """What a judged card says of its judge."""
    return {
        "informational": informational,
        "engagement_source": facts["engagement_source"],
        "judge": judged.judge,
        "judge_rubric_version": judged.spec.version,
    }


def _thr(value: float) -> str:
    return f"{value:.2f}" if value < 1 else f"{value:.1f}"
