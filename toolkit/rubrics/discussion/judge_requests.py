"""What the judge reads and is asked about each game: the game as one text, and one
request per game (engagement), per message (strategic depth), per reference (memory)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import polars as pl

from toolkit.judge import JudgeRequest
from toolkit.load.discussion import Discussion
from toolkit.rubrics.discussion._values import DEFAULT_VALUES as DEFAULT_DISCUSSION_SPEC
from toolkit.rubrics.discussion.judge_spec import (
    DEFAULT_DISCUSSION_JUDGE_SPEC,
    JUDGED_METRICS,
    DiscussionJudgeSpec,
)
from toolkit.rubrics.discussion.memory import memory_references

if TYPE_CHECKING:  # the rubric's pydantic models: only named in annotations
    from toolkit.rubrics.discussion.spec import DiscussionSpec, EngagementScale

__all__ = [
    "JudgeItem",
    "discussion_requests",
    "engagement_bands",
    "engagement_claim",
    "game_text",
    "judge_items",
]


def game_text(discussion: Discussion, game_id: str) -> str:
    """One game as the judge reads it: players, then per round its messages (turn,
    speaker, whom it replies to) and its votes. Roles are not shown (raters do not see
    them either).

    Raises:
        KeyError: no such game.
    """
    game = discussion.game(game_id)
    players = game.players.sort("position")["name"].to_list()
    lines = [f"Players: {', '.join(str(p) for p in players)}"]
    votes = game.votes
    rounds = sorted(set(game.messages["round"].to_list()) | set(votes["round"].to_list()))
    for rnd in rounds:
        lines += ["", f"Round {rnd}"]
        for m in game.messages.filter(pl.col("round") == rnd).iter_rows(named=True):
            reply = f", replying to {m['in_reply_to_player']}" if m["in_reply_to_player"] else ""
            lines.append(f"[turn {m['turn']}] {m['speaker']}{reply}: {m['text']}")
        cast = votes.filter(pl.col("round") == rnd)
        if cast.height:
            shown = "; ".join(
                f"{v['voter']} -> {v['target'] or 'no one'}" for v in cast.iter_rows(named=True)
            )
            lines.append(f"Votes: {shown}")
    if game.messages.height == 0:
        lines += ["", "(no discussion messages)"]
    return "\n".join(lines)


def engagement_bands(scale: EngagementScale) -> tuple[str, ...]:
    """The instrument's 1-5 levels as the judge's scale lines (``3 (Acceptable): ...``)."""
    return tuple(f"{lv.score} ({lv.label}): {lv.description}" for lv in scale.levels)


def engagement_claim(scale: EngagementScale, judge_spec: DiscussionJudgeSpec) -> str:
    """The engagement question, then the instrument's own yes/no questions and hint."""
    questions = "\n".join(f"- {q.text}" for q in scale.questions)
    return (
        f"{judge_spec.engagement_question}\nA person rating it answers these questions "
        f"first:\n{questions}\n({scale.hint})"
    )


@dataclass(frozen=True)
class JudgeItem:
    """One judge request and where it belongs: game, metric, item (``game``, a message id
    or a reference id) and the turns it is about."""

    game_id: str
    metric: str
    item_id: str
    anchor: str
    request: JudgeRequest


def discussion_requests(
    discussion: Discussion,
    *,
    spec: DiscussionSpec = DEFAULT_DISCUSSION_SPEC,
    judge_spec: DiscussionJudgeSpec = DEFAULT_DISCUSSION_JUDGE_SPEC,
    metrics: Sequence[str] = JUDGED_METRICS,
) -> list[tuple[str, str, str, str, JudgeRequest]]:
    """Every judge request of ``discussion``: ``(game_id, metric, item_id, anchor,
    request)``, games in load order, then engagement, messages, references.

    Raises:
        ValueError: a metric that has no judged reading.
    """
    items = judge_items(discussion, spec, judge_spec, metrics)
    return [(i.game_id, i.metric, i.item_id, i.anchor, i.request) for i in items]


def judge_items(
    discussion: Discussion,
    spec: DiscussionSpec,
    judge_spec: DiscussionJudgeSpec,
    metrics: Sequence[str],
) -> list[JudgeItem]:
    """Every judge request of ``discussion`` with where it belongs (see
    :func:`discussion_requests`).

    Raises:
        ValueError: a metric that has no judged reading.
    """
    unknown = [m for m in metrics if m not in JUDGED_METRICS]
    if unknown:
        raise ValueError(f"no judged reading of {unknown}; judged: {list(JUDGED_METRICS)}")
    refs = (
        memory_references(discussion.messages, discussion.players, discussion.votes, spec)
        if "memory_accuracy" in metrics
        else None
    )
    scale = spec.engagement_scale
    out: list[JudgeItem] = []
    for gid in discussion.game_ids:
        text = game_text(discussion, gid)
        msgs = discussion.messages.filter(pl.col("game_id") == gid)
        if "engagement" in metrics and msgs.height:
            turns = [int(t) for t in msgs["turn"].to_list()]
            request = JudgeRequest(
                proposition_id="discussion.engagement",
                dimension="engagement",
                subject=gid,
                claim=engagement_claim(scale, judge_spec),
                trajectory=text,
                scale=(1, 5),
                bands=engagement_bands(scale),
            )
            anchor = f"turns {min(turns)}-{max(turns)}"
            out.append(JudgeItem(gid, "engagement", "game", anchor, request))
        if "strategic_depth" in metrics:
            for m in msgs.iter_rows(named=True):
                claim = judge_spec.strategic_claim.format(
                    turn=m["turn"], speaker=m["speaker"], text=m["text"]
                )
                request = JudgeRequest(
                    proposition_id=f"discussion.strategic_depth:{m['message_id']}",
                    dimension="strategic_depth",
                    subject=gid,
                    claim=claim,
                    trajectory=text,
                )
                out.append(
                    JudgeItem(gid, "strategic_depth", m["message_id"], f"turn {m['turn']}", request)
                )
        if refs is not None:
            for r in refs.filter(pl.col("game_id") == gid).iter_rows(named=True):
                claim = judge_spec.memory_claim.format(
                    turn=r["turn"], speaker=r["speaker"], sentence=r["sentence"]
                )
                request = JudgeRequest(
                    proposition_id=f"discussion.memory_accuracy:{r['reference_id']}",
                    dimension="memory_accuracy",
                    subject=gid,
                    claim=claim,
                    trajectory=text,
                )
                out.append(
                    JudgeItem(
                        gid, "memory_accuracy", r["reference_id"], f"turn {r['turn']}", request
                    )
                )
    return out
