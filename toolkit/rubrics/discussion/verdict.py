"""The verdict rule: a game's verdict from its metric statuses, engagement and cost."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from toolkit.rubrics.discussion._values import DEFAULT_VALUES as DEFAULT_DISCUSSION_SPEC
from toolkit.rubrics.discussion.schemas import FAIL, PASS, PENDING_RATING
from toolkit.scorecard import NA

if TYPE_CHECKING:  # the rubric's pydantic models: only named in annotations
    from toolkit.rubrics.discussion.spec import DiscussionSpec

__all__ = ["decide_verdict"]


def decide_verdict(
    statuses: Mapping[str, str],
    engagement: float | None,
    cost: float | None,
    spec: DiscussionSpec = DEFAULT_DISCUSSION_SPEC,
    names: Mapping[str, str] | None = None,
    *,
    require_cost: bool = False,
    engagement_by_judge: bool = False,
) -> tuple[str, list[str], int]:
    """The verdict of one game from its metric statuses, engagement and cost.

    Args:
        statuses: metric key -> ``PASS`` / ``FAIL`` / ``PENDING`` / ``N/A``.
        engagement: the mean rating, or None when no rating exists.
        cost: the metadata cost in dollars, or None when unknown.
        spec: the rubric data.
        names: metric key -> display name (the spec's names by default).
        require_cost: an unknown cost fails the game (``--require-cost``); by default
            it is reported as unknown and does not decide the verdict.
        engagement_by_judge: ``engagement`` is the judge's reading standing in for a
            missing human rating (``--engagement judge``); every reason naming it says so.

    Returns:
        ``(verdict, reasons, passed_count)``. FAIL names each reason; engagement below
        its threshold fails whatever else passed; cost over the budget fails as
        "caching broken". An unknown cost is not over the budget: the reasons say
        "cost unknown" and the verdict follows the other rules, unless
        ``require_cost``, where it fails. PENDING_RATING when the game could still
        pass and only the rating is missing.
    """
    names = names or {k: spec.metrics[k].name for k in spec.metrics}
    passed = sum(1 for s in statuses.values() if s == PASS)
    total = len(statuses)
    need = spec.min_passed
    eng_thr = spec.threshold("engagement")
    failing = [names.get(k, k) for k, s in statuses.items() if s == FAIL and k != "engagement"]
    absent = [names.get(k, k) for k, s in statuses.items() if s == NA]
    budget = f"${spec.max_cost_usd:.2f}"
    fails: list[str] = []
    if cost is None and require_cost:
        fails.append(f"cost unknown: the {budget} budget cannot be checked (cost required)")
    elif cost is not None and cost > spec.max_cost_usd:
        fails.append(f"cost ${cost:.2f} over {budget}: caching broken")
    by = " (the judge's, no human rating: --engagement judge)" if engagement_by_judge else ""
    if engagement is not None and engagement < eng_thr:
        fails.append(f"engagement {engagement:.2f} below {eng_thr:.1f}{by}")
    if passed + (1 if engagement is None else 0) < need:
        text = f"only {passed}/{total} metrics passed ({need} needed)"
        if engagement is None:
            text += "; even a good rating cannot make up for it"
        fails.append(text)
    if fails:  # decided whatever a rating would say
        if failing:
            fails.append("failed: " + ", ".join(failing))
        if absent:
            fails.append("no evidence: " + ", ".join(absent))
        return FAIL, fails, passed
    within = (
        f"cost unknown: the {budget} budget not checked"
        if cost is None
        else f"cost ${cost:.2f} <= {budget}"
    )
    if engagement is None:
        reasons = ["no engagement rating yet", f"{passed}/{total} metrics passed so far", within]
    else:
        reasons = [
            f"{passed}/{total} metrics passed",
            f"engagement {engagement:.2f} >= {eng_thr:.1f}{by}",
        ]
        reasons.append(within)
    if failing:
        reasons.append("failed: " + ", ".join(failing))
    if absent:
        reasons.append("no evidence: " + ", ".join(absent))
    return (PENDING_RATING if engagement is None else PASS), reasons, passed
