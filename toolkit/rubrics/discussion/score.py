"""Scoring games against the discussion rubric: evidence, tallies, metrics, scorecards.

:func:`score_discussion` gathers every metric's evidence (:mod:`.evidence`), tallies it
per game (:mod:`.tallies`), scores the seven metrics (:mod:`.metrics`) and builds a
scorecard per game (:mod:`.card`), each step column-wise over all games at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import polars as pl

from toolkit.epoch import stamp
from toolkit.load.discussion import Discussion
from toolkit.rubrics.discussion._values import DEFAULT_VALUES as DEFAULT_DISCUSSION_SPEC
from toolkit.rubrics.discussion.card import game_cards
from toolkit.rubrics.discussion.epoch import discussion_epoch, game_digests
from toolkit.rubrics.discussion.evidence import gather_evidence
from toolkit.rubrics.discussion.labels import reviewer_labels
from toolkit.rubrics.discussion.metrics import metrics_frame
from toolkit.rubrics.discussion.report import DiscussionReport
from toolkit.rubrics.discussion.tallies import game_tallies

if TYPE_CHECKING:  # the judge's machinery is imported only when a judge is asked
    # (and the ratings files' reader, ~1.5 ms of CPU and csv, only when --ratings asks)
    from toolkit.load.ratings import RatingSource
    from toolkit.rubrics.discussion.judge import JudgedDiscussion
    from toolkit.rubrics.discussion.spec import DiscussionSpec

__all__ = ["score_discussion"]


def score_discussion(
    discussion: Discussion,
    *,
    ratings: RatingSource | pl.DataFrame | None = None,
    spec: DiscussionSpec = DEFAULT_DISCUSSION_SPEC,
    labels: pl.DataFrame | None = None,
    require_cost: bool = False,
    judged: JudgedDiscussion | None = None,
    engagement: Literal["humans", "judge"] = "humans",
) -> DiscussionReport:
    """Score every game of ``discussion`` against the discussion rubric.

    Args:
        discussion: the loaded games (see :func:`toolkit.load_discussion`).
        ratings: engagement ratings (game_id, rater, score 1-5): a frame or any
            :class:`~toolkit.load.ratings.RatingSource` (a ratings file, later a store).
        spec: the rubric data; rubric 1.2.0 by default.
        labels: reviewer labels (game_id, kind, item_id, label) over the automatic ones:
            kind ``memory`` (item = reference id; True = accurate), ``strategic`` (item
            = message id; True = strategic), ``role`` (True = role-consistent),
            ``diversity`` (item = player name; True = a reviewer can tell the player
            apart by style, over the similarity measure), ``fascinating`` (item
            ``game``; the "fascinating to watch" sign-off the success check needs).
            When not given and ``ratings`` is also a label source (the ratings store),
            its labels.
        require_cost: a game whose cost is unknown (the database forms record none)
            FAILs; by default its cost is shown as unknown and does not decide.
        judged: the judge's readings (:func:`toolkit.rubrics.discussion.judge.
            judge_discussion`), each shown beside its metric as an informational row
            ``<key>_judge`` ("Engagement (judge)") that never decides the verdict.
        engagement: ``humans`` (default): engagement is people's ratings only, a game
            without one is PENDING_RATING. ``judge``: a game without a human rating takes
            the judge's engagement reading, stamped on its card (title, engagement
            detail, verdict reasons, a warning, ``meta["engagement_source"]``); human
            ratings, where there are any, still decide.

    Returns:
        A :class:`DiscussionReport`: a scorecard per game, the metrics frame (game_id,
        key, name, score, threshold, passed, status, detail) and the evidence. Each card
        carries the measurement epoch (rubric data, options and, with ``judged``, the
        judge's basis) and its game's input digest in ``meta`` (:mod:`.epoch`).

    Raises:
        ValueError: ``engagement="judge"`` without ``judged`` engagement readings.
    """
    _check_engagement(engagement, judged)
    game_ids = [str(g) for g in discussion.games["game_id"].to_list()]
    labels = reviewer_labels(game_ids, ratings, labels)
    evidence, phrase_counts, overridden = gather_evidence(
        discussion, spec, labels, ratings, game_ids
    )
    stands_in = judged if engagement == "judge" else None
    table = game_tallies(
        discussion.games, evidence, phrase_counts, overridden, labels, spec, stands_in
    )
    metrics = metrics_frame(table, spec, game_ids)
    # the epoch hashed once, not once a card
    epoch = discussion_epoch(spec, judged.basis if judged is not None else None,
                             require_cost=require_cost, engagement=engagement).id  # fmt: skip
    digests = game_digests(discussion, evidence.ratings, labels)
    cards = [
        stamp(card, epoch, digests.get(gid))
        for gid, card in zip(
            game_ids,
            game_cards(game_ids, metrics, table, discussion, spec, require_cost, judged),
            strict=True,
        )
    ]
    return DiscussionReport(
        scorecards=cards,
        metrics=metrics,
        evidence=evidence,
        spec=spec,
        judged=judged,
        engagement_source=engagement,
    )


def _check_engagement(engagement: str, judged: JudgedDiscussion | None) -> None:
    """Who decides engagement must be people or the judge, and the judge must have read it.

    Raises:
        ValueError: another source, or ``judge`` without the judge's engagement readings.
    """
    if engagement not in ("humans", "judge"):
        raise ValueError(f"engagement must be 'humans' or 'judge', not {engagement!r}")
    if engagement == "judge" and (
        judged is None or judged.readings.filter(pl.col("key") == "engagement").height == 0
    ):
        raise ValueError("engagement='judge' needs the judge's engagement readings (judged=)")
