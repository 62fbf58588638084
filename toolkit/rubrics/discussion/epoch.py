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

import io
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
    for name, frame in frames.items():
        if "game_id" not in frame.columns or frame.is_empty():
            continue
        # where and from what kind of file a row was read is not its content: a copied
        # transcript, or one game read from its database and from an export, keeps it
        where = [c for c in frame.columns if c == "source_kind" or c.endswith(("_file", "_path"))]
        plan = frame.lazy().drop(where).with_columns(pl.col("game_id").cast(pl.String))
        for gid, part in _lines_by_game(_ndjson(plan), frame.get_column("game_id")).items():
            if gid in parts:
                parts[gid].append((name, part))
    return {g: input_digest(p) for g, p in parts.items()}


def _ndjson(plan: pl.LazyFrame) -> bytes:
    """The rows of ``plan`` as :func:`toolkit.epoch.rows_bytes` writes a frame's (that is
    ``DataFrame.write_ndjson``: a sink to a buffer on Polars' in-memory engine), in one
    query: the frame is not collected first and written after (issue 38)."""
    buffer = io.BytesIO()
    plan.sink_ndjson(buffer, engine=ENGINE)
    return buffer.getvalue()


def _lines_by_game(text: bytes, game_ids: pl.Series) -> dict[str, bytes]:
    """Each game's rows of ``text`` (a frame's JSON lines, a row a line, the row's
    ``game_id`` in ``game_ids``), games in order of first appearance: the whole frame
    written once and its lines shared out, not a ``partition_by`` and a write per game
    (issue 38: 20 Polars queries fewer for the three sample games). A row's JSON line
    depends on its values alone, and a newline in a value is escaped, so the frame's text
    is its rows' lines joined."""
    lines = text.split(b"\n")[:-1]  # each row's line ends in a newline
    ids = game_ids if game_ids.dtype == pl.String else game_ids.cast(pl.String)
    by_game: dict[str, list[bytes]] = {}
    for gid, line in zip(ids.to_list(), lines, strict=True):
        by_game.setdefault(str(gid), []).append(line + b"\n")
    return {gid: b"".join(part) for gid, part in by_game.items()}
