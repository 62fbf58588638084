"""The result of scoring a set of games: their scorecards, metrics frame and evidence."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field
from typing import TYPE_CHECKING

import polars as pl

from toolkit._record import FieldsEqual, record
from toolkit.rubrics.discussion._values import DEFAULT_VALUES as DEFAULT_DISCUSSION_SPEC
from toolkit.rubrics.discussion._values import METRIC_KEYS
from toolkit.rubrics.discussion.evidence import DiscussionEvidence
from toolkit.scorecard import Scorecard
from toolkit.summary import Shows, Summary, plural

if TYPE_CHECKING:  # the judge's machinery is imported only when a judge is asked
    from toolkit.rubrics.discussion.judge import JudgedDiscussion
    from toolkit.rubrics.discussion.spec import DiscussionSpec

__all__ = ["DiscussionReport", "Games", "report_cards"]


@record  # eq, hash: toolkit._record
class DiscussionReport(FieldsEqual, Shows):
    """The result of :func:`score_discussion` over a set of games.

    Attributes:
        scorecards: one :class:`~toolkit.Scorecard` per game, in load order.
        metrics: :data:`METRIC_SCHEMA`, one row per game and metric.
        evidence: the per-message / per-reference evidence.
        spec: the rubric data used.
        judged: the judge's readings shown beside the keyword and human ones (None
            without a judge).
        engagement_source: ``humans`` (engagement is people's ratings only) or ``judge``
            (a game without a rating takes the judge's reading, stamped on its card).
    """

    scorecards: list[Scorecard]
    metrics: pl.DataFrame
    evidence: DiscussionEvidence
    spec: DiscussionSpec = field(default=DEFAULT_DISCUSSION_SPEC)
    judged: JudgedDiscussion | None = None
    engagement_source: str = "humans"

    def _summary(self) -> Summary:
        verdicts: dict[str, int] = {}
        for card in self.scorecards:
            verdicts[card.verdict] = verdicts.get(card.verdict, 0) + 1
        return Summary(
            "DiscussionReport",
            f"{plural(len(self.scorecards), 'game')}, rubric {self.spec.rubric} "
            f"{self.spec.version}",
            tuple((f"{v}:", n) for v, n in verdicts.items()),
            columns=("game", "verdict", "passed"),
            rows=tuple(
                (c.subject, c.verdict, f"{c.meta.get('passed_count')}/{len(METRIC_KEYS)}")
                for c in self.scorecards
            ),
        )

    def scorecard(self, game_id: str) -> Scorecard:
        """The scorecard of one game."""
        for card in self.scorecards:
            if card.subject == game_id:
                return card
        raise KeyError(game_id)


#: Games to compare or check: their scorecards, or the report that holds them.
Games = Sequence[Scorecard] | DiscussionReport


def report_cards(games: Games) -> list[Scorecard]:
    """The scorecards of ``games``, in order."""
    return list(games.scorecards) if isinstance(games, DiscussionReport) else list(games)
