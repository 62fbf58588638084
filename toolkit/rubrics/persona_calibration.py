"""A rated persona session as a calibration frame: the judge's scores beside the humans'.

The humans rated persona items in the rating server (:mod:`toolkit.rubrics.persona_items`
lists them; each rating records the SHA-256 of the text the rater saw). Here the same
items are rebuilt from the chats, the judge is asked about each rated item through any
:class:`~toolkit.judge.Judge` (a :class:`~toolkit.judge.RecordedJudge` replays a cassette:
no call at all), and the two are joined into the long frame ``calibrate`` reads (item,
rater, score, the groups agent and dimension, and the text columns notes, reasoning,
evidence, source, anchor, text_sha256). The proposition is in the item's id; it is no
group (two items each: a bias per proposition would be noise).

A rating whose text hash differs from the text the judge reads now (the chat or a
proposition file changed since it was rated) is refused by name, as is a rating of an
item the chats do not hold: never joined to a judge score about another text.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import polars as pl

from toolkit.errors import InputError, InputWarning
from toolkit.judge import MAX_BATCH, Judge, JudgeResult
from toolkit.rubrics.persona import ENVIRONMENT
from toolkit.rubrics.persona_items import PersonaItem

__all__ = ["CALIBRATION_FRAME_SCHEMA", "evidence_excerpt", "persona_calibration_frame"]

#: The frame :func:`persona_calibration_frame` returns (the calibration contract).
CALIBRATION_FRAME_SCHEMA: dict[str, pl.DataType] = {
    "item": pl.String(),
    "rater": pl.String(),
    "score": pl.Float64(),
    "agent": pl.String(),
    "dimension": pl.String(),
    "notes": pl.String(),
    "reasoning": pl.String(),
    "evidence": pl.String(),
    "source": pl.String(),
    "anchor": pl.String(),
    "text_sha256": pl.String(),
}
#: An evidence excerpt keeps this many lines, each cut to this many characters.
EXCERPT_LINES, EXCERPT_CHARS = 3, 200


def evidence_excerpt(item: PersonaItem) -> str:
    """A short excerpt of the text the item was judged on: the subject's last
    :data:`EXCERPT_LINES` lines of its own (``Name acts: ...``; for the environment, the
    last lines), each cut to :data:`EXCERPT_CHARS` characters. The whole text is the
    item's ``anchor`` in its ``source``."""
    lines = [line for line in item.request.trajectory.splitlines() if line.strip()]
    if item.subject != ENVIRONMENT:
        own = [line for line in lines if line.startswith(f"{item.agent} acts: ")]
        lines = own or lines
    kept = lines[-EXCERPT_LINES:]
    cut = [line if len(line) <= EXCERPT_CHARS else line[: EXCERPT_CHARS - 1] + "…" for line in kept]
    return "\n".join(cut)


def _ask(judge: Judge, items: Sequence[PersonaItem]) -> list[JudgeResult]:
    """The judge's result per item, asked as the persona rubric asks (items sharing a
    text go together, at most :data:`MAX_BATCH` a call)."""
    groups: dict[tuple[str, str | None, str, str | None], list[int]] = {}
    for i, item in enumerate(items):
        r = item.request
        groups.setdefault((r.trajectory, r.persona, r.kind, r.evidence), []).append(i)
    results: list[JudgeResult | None] = [None] * len(items)
    for members in groups.values():
        for start in range(0, len(members), MAX_BATCH):
            chunk = members[start : start + MAX_BATCH]
            answers = judge.judge([items[i].request for i in chunk])
            if len(answers) != len(chunk):
                raise InputError(
                    None, f"the judge returned {len(answers)} results for {len(chunk)} requests",
                    field="judge", value=judge.name,
                )  # fmt: skip
            for i, answer in zip(chunk, answers, strict=True):
                results[i] = answer
    return [r for r in results if r is not None]


def persona_calibration_frame(
    items: Sequence[PersonaItem],
    ratings: pl.DataFrame,
    judge: Judge,
    *,
    judge_id: str = "judge",
    ratings_name: str | None = None,
) -> pl.DataFrame:
    """The calibration frame of a rated persona session.

    Args:
        items: the session's items, rebuilt from its chats
            (:func:`~toolkit.rubrics.persona_items.items_of_files`).
        ratings: the humans' ratings (:func:`toolkit.load.item_ratings.load_item_ratings`:
            item, rater, score, notes, text_sha256).
        judge: the judge (a :class:`~toolkit.judge.RecordedJudge` in CI and for re-runs:
            zero calls).
        judge_id: the judge's rater id in the frame.
        ratings_name: where the ratings came from (named in errors).

    Returns:
        :data:`CALIBRATION_FRAME_SCHEMA`: one row per human rating (``notes``; no
        ``reasoning``) and one judge row per rated item (``reasoning``; no ``notes``);
        ``evidence`` (:func:`evidence_excerpt`), ``source``, ``anchor`` and
        ``text_sha256`` are the item's on every row. Items nobody rated are left out;
        an item the judge gave no usable answer for has no judge row (warned).

    Raises:
        InputError: a rating of an item the chats do not hold, a rating of a text that
            differs from the one the judge reads now (named), a rater named like the
            judge, a cassette without the item (:class:`~toolkit.judge.CassetteMiss`).
    """
    by_id = {item.item_id: item for item in items}
    rows = ratings.to_dicts()
    unknown = sorted({str(r["item"]) for r in rows} - set(by_id))
    if unknown:
        raise InputError(
            ratings_name,
            f"{len(unknown)} rated item(s) are not among the items of these chats and "
            "propositions (another session's ratings, or a chat missing)",
            field="item",
            value=unknown[0],
        )
    changed = sorted(
        {str(r["item"]) for r in rows if r["text_sha256"] != by_id[str(r["item"])].text_sha256}
    )
    if changed:
        raise InputError(
            ratings_name,
            f"{len(changed)} item(s) were rated on a text that differs from the one the judge "
            "reads now (the chat or a proposition changed since): refused, never joined",
            field="item",
            value=changed[0],
        )
    if any(str(r["rater"]) == judge_id for r in rows):
        raise InputError(
            ratings_name, "a human rater has the judge's id: give another --judge-id",
            field="rater", value=judge_id,
        )  # fmt: skip
    rated = [by_id[i] for i in dict.fromkeys(str(r["item"]) for r in rows)]
    answers = _ask(judge, rated)
    out: list[dict[str, object]] = []

    def about(item: PersonaItem) -> dict[str, object]:
        return {
            "agent": item.agent,
            "dimension": item.dimension,
            "evidence": evidence_excerpt(item),
            "source": item.source,
            "anchor": item.anchor,
            "text_sha256": item.text_sha256,
        }

    for r in rows:
        item = by_id[str(r["item"])]
        out.append(
            {
                "item": item.item_id,
                "rater": str(r["rater"]),
                "score": float(r["score"]),
                "notes": str(r["notes"] or ""),
                "reasoning": None,
                **about(item),
            }
        )
    unanswered: list[str] = []
    for item, answer in zip(rated, answers, strict=True):
        if answer.value is None or not 0 <= answer.value <= 9:
            unanswered.append(item.item_id)
            continue
        out.append(
            {
                "item": item.item_id,
                "rater": judge_id,
                "score": float(answer.value),
                "notes": None,
                "reasoning": answer.reasoning,
                **about(item),
            }
        )
    if unanswered:
        warnings.warn(
            InputWarning(
                f"{judge.name}: no usable 0-9 answer for {len(unanswered)} item(s) (first: "
                f"{unanswered[0]}); they have no judge score"
            ),
            stacklevel=2,
        )
    return pl.DataFrame(out, schema=CALIBRATION_FRAME_SCHEMA).sort("item", "rater")
