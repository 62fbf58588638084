"""The measurement epoch of a discussion score and each game's input digest
(:mod:`toolkit.epoch`).

The epoch hashes the rubric's data (every threshold, cue list and the engagement
instrument), the options that change a verdict (``require_cost``, who decides
engagement) and, with a judge, the judge's part (:attr:`JudgedDiscussion.basis
<toolkit.rubrics.discussion.judge.JudgedDiscussion.basis>`: provider, model, prompt
template, cassette, the judge's questions and their version). A game's input digest hashes
what it was scored from: its game, player, message and vote rows, the engagement ratings
and reviewer labels of that game, as JSON lines, without the path and the kind of source
they were read from (a copied transcript keeps its digest, and so does one game read from
2L's database and from its export).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import polars as pl

from toolkit.epoch import Epoch, input_digest
from toolkit.frames import ENGINE
from toolkit.load.discussion import Discussion

if TYPE_CHECKING:  # the rubric's pydantic models: only named in annotations
    from toolkit.rubrics.discussion.spec import DiscussionSpec

__all__ = ["discussion_epoch", "game_digests"]


def discussion_epoch(
    spec: DiscussionSpec,
    judge: Mapping[str, Any] | None,
    *,
    require_cost: bool,
    engagement: str,
) -> Epoch:
    """The epoch of a discussion score: ``spec``'s data, the options that change a
    verdict and the judge's basis (``None`` or empty without a judge)."""
    data = spec.model_dump(mode="json", exclude={"rubric", "version"})
    options = {"require_cost": require_cost, "engagement": engagement}
    return Epoch(spec.rubric, spec.version, {**data, **options}, dict(judge or {}))


def game_digests(
    discussion: Discussion, ratings: pl.DataFrame, labels: pl.DataFrame | None
) -> dict[str, str]:
    """Each game's input digest: its rows of every frame it was scored from (games,
    players, messages, votes, ratings, labels), as JSON lines
    (:func:`toolkit.epoch.rows_bytes`), without the columns naming where a row was read
    from (``source_kind``, ``*_file``, ``*_path``)."""
    frames: dict[str, pl.DataFrame] = {
        "games": discussion.games,
        "players": discussion.players,
        "messages": discussion.messages,
        "votes": discussion.votes,
        "ratings": ratings,
    }
    if labels is not None:
        frames["labels"] = labels
    parts: dict[str, list[tuple[str, bytes]]] = {g: [] for g in discussion.game_ids}
    names: list[str] = []
    plans: list[pl.LazyFrame] = []
    for name, frame in frames.items():
        if "game_id" not in frame.columns or frame.is_empty():
            continue
        # where and from what kind of file a row was read is not its content: a copied
        # transcript, or one game read from its database and from an export, keeps it
        where = [c for c in frame.columns if c == "source_kind" or c.endswith(("_file", "_path"))]
        names.append(name)
        plans.append(_game_texts(frame.lazy().drop(where)))
    # every frame's games in one call (issue 38: a sink a frame cost three times as much,
    # and started Polars' streaming executor and its threads for four small writes)
    for name, texts in zip(names, pl.collect_all(plans, engine=ENGINE), strict=True):
        for gid, text in texts.iter_rows():  # game_id as text (_game_texts)
            if gid in parts:
                parts[gid].append((name, text.encode("utf-8")))
    return {g: input_digest(p) for g, p in parts.items()}


def _game_texts(plan: pl.LazyFrame) -> pl.LazyFrame:
    """A row a game of ``plan``: ``game_id`` (as text) and ``_text``, its rows as
    :func:`toolkit.epoch.rows_bytes` writes them (``DataFrame.write_ndjson``: a JSON object
    a row, each line ended by a newline). Polars' JSON encoding of a row as a struct is
    the same text (``tests/rubrics/test_discussion_digests.py`` holds it to that over
    generated rows); a newline in a value is escaped, so a game's text is its rows' lines
    joined: the whole frame encoded once and shared out by a group-by, not a
    ``partition_by`` and a write per game (issue 38)."""
    line = pl.struct(pl.all()).struct.json_encode()
    return (
        plan.with_columns(pl.col("game_id").cast(pl.String))
        .select("game_id", line.alias("_text"))
        .group_by("game_id", maintain_order=True)
        .agg(pl.col("_text").str.join("\n") + "\n")
    )
