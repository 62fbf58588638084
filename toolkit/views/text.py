"""Plain-text and JSON renderings of scorecards."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from toolkit.scorecard import Scorecard


def format_value(value: float | None) -> str:
    """A score as shown to people: integers bare, other numbers to three decimals."""
    if value is None:
        return "-"
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.3f}"


def render_text(card: Scorecard) -> str:
    """The scorecard as lines of text: header, one ``[STATUS]`` line per dimension, verdict.

    Example::

        Willowbrook · last 50 ticks
          [OK]   Groundedness          0.960  48/50 grounded
          ...
        Verdict: HEALTHY
    """
    lines = [card.title]
    name_width = max([len(n) for n in card.dimensions["name"].to_list()] + [10])
    tag_width = max([len(s) + 3 for s in card.dimensions["status"].to_list()] + [7])
    for row in card.dimensions.iter_rows(named=True):
        tag = f"[{row['status']}]"
        lines.append(
            f"  {tag:<{tag_width}}{row['name']:<{name_width + 2}}{format_value(row['value']):>7}  "
            f"{row['detail']}"
        )
    verdict = f"Verdict: {card.verdict}"
    if card.verdict_reason:
        verdict += f" ({card.verdict_reason})"
    lines.append(verdict)
    if card.warnings:
        lines.append("Warnings:")
        lines.extend(f"  - {w}" for w in card.warnings)
    return "\n".join(lines)


def render_json(cards: Scorecard | Sequence[Scorecard], **extra: Any) -> str:
    """One scorecard as a JSON object, or several as ``{"scorecards": [...], **extra}``."""
    if isinstance(cards, Scorecard):
        return json.dumps({**cards.to_dict(), **extra}, indent=2, default=str)
    return json.dumps({"scorecards": [c.to_dict() for c in cards], **extra}, indent=2, default=str)
