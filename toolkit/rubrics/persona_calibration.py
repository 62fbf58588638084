"""A rated persona session as a calibration frame: the judge's scores beside the humans'.

The humans rated persona items in the rating server (:mod:`toolkit.rubrics.persona_items`
lists them; each rating records the SHA-256 of the text the rater saw). Here the same
items are rebuilt from the chats, the judge is asked about each rated item through any
:class:`~toolkit.judge.Judge` (a :class:`~toolkit.judge.RecordedJudge` replays a cassette:
no call at all), and the two are joined into the long frame ``calibrate`` reads (item,
rater, score, the groups agent and dimension, and the text columns notes, reasoning,
evidence, source, anchor, text_sha256). The proposition is in the item's id; it is no
group (two items each: a bias per proposition would be noise).

For the PPI++ estimate (``toolkit calibrate --persona ... --estimate``) the frame also
keeps the judge's score on every item nobody rated (``unrated=True``: judge rows without
human rows), so the judge's unrated items enter the estimate; ``calibrate`` (the band,
agreement and bias) is given the rated items only, as before.

A rating whose text hash differs from the text the judge reads now (the chat or a
proposition file changed since it was rated) is refused by name, as is a rating of an
item the chats do not hold: never joined to a judge score about another text.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from toolkit.errors import InputError, InputWarning
from toolkit.frames import CALIBRATION_SCORES_SCHEMA, CALIBRATION_TEXT_SCHEMA
from toolkit.judge import DEFAULT_CONCURRENCY, CassetteMiss, Judge, JudgeUsage, PriceTable
from toolkit.rubrics.persona import DEFAULT_PERSONA_RUBRIC, ENVIRONMENT, PendingRequest, ask_pending
from toolkit.rubrics.persona_items import PersonaItem

__all__ = ["CALIBRATION_FRAME_SCHEMA", "evidence_excerpt", "persona_calibration_frame"]

#: The frame :func:`persona_calibration_frame` returns (the calibration contract).
CALIBRATION_FRAME_SCHEMA: dict[str, pl.DataType] = (
    CALIBRATION_SCORES_SCHEMA
    | {"agent": pl.String(), "dimension": pl.String()}
    | CALIBRATION_TEXT_SCHEMA
)
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


def _judged(
    judge: Judge,
    items: Sequence[PersonaItem],
    *,
    double_check: bool,
    concurrency: int,
    max_cost: float | None,
    prices: PriceTable | str | Path | None,
    progress: bool | None,
) -> tuple[list[dict[str, Any]], JudgeUsage]:
    """Each item's row as the persona rubric fills it (``source``, ``raw``, ``reasoning``,
    ``absent_reason``): the items' requests asked by the rubric's own batching, cost cap
    and answer checks (:func:`toolkit.rubrics.persona.ask_pending`)."""
    pending = [
        PendingRequest(
            {"window": 0, "source": "absent", "raw": None, "reasoning": ""}, item.request
        )
        for item in items
    ]
    usage = ask_pending(
        judge,
        pending,
        DEFAULT_PERSONA_RUBRIC,
        double_check=double_check,
        concurrency=concurrency,
        max_cost=max_cost,
        prices=prices,
        progress=progress,
    )
    return [p.row for p in pending], usage


def persona_calibration_frame(
    items: Sequence[PersonaItem],
    ratings: pl.DataFrame,
    judge: Judge,
    *,
    judge_id: str = "judge",
    ratings_name: str | None = None,
    double_check: bool = False,
    concurrency: int = DEFAULT_CONCURRENCY,
    max_cost: float | None = None,
    prices: PriceTable | str | Path | None = None,
    progress: bool | None = False,
    unrated: bool = False,
) -> pl.DataFrame:
    """The calibration frame of a rated persona session.

    Args:
        items: the session's items, rebuilt from its chats
            (:func:`~toolkit.rubrics.persona_items.items_of_files`).
        ratings: the humans' ratings (:func:`toolkit.load.item_ratings.load_item_ratings`:
            item, rater, score, notes, text_sha256).
        judge: the judge (a :class:`~toolkit.judge.RecordedJudge` in CI and for re-runs:
            zero calls; a live judge, wrapped in a
            :class:`~toolkit.judge.RecordingJudge`, records once).
        judge_id: the judge's rater id in the frame.
        ratings_name: where the ratings came from (named in errors).
        double_check, concurrency, max_cost, prices, progress: as
            :func:`~toolkit.rubrics.persona.score_persona` asks the judge.
        unrated: also ask the judge about every item nobody rated and keep its score
            (a judge row, no human row): the estimate's input. An unrated item a cassette
            holds no answer for is left out (warned with the count), never guessed.

    Returns:
        :data:`CALIBRATION_FRAME_SCHEMA`: one row per human rating (``notes``; no
        ``reasoning``) and one judge row per rated item (``reasoning``; no ``notes``);
        ``evidence`` (:func:`evidence_excerpt`), ``source``, ``anchor`` and
        ``text_sha256`` are the item's on every row. Items nobody rated are left out
        (with ``unrated``: a judge row each); an item the judge gave no usable answer
        for has no judge row (warned).

    Raises:
        InputError: a rating of an item the chats do not hold, a rating of a text that
            differs from the one the judge reads now (named), a rater named like the
            judge, a cassette without the item (:class:`~toolkit.judge.CassetteMiss`).
    """
    by_id = {item.item_id: item for item in items}
    rows = ratings.to_dicts()
    _check_ratings(rows, by_id, judge_id, ratings_name)
    rated_ids = dict.fromkeys(str(r["item"]) for r in rows)
    rated = [by_id[i] for i in rated_ids]
    rest = [item for item in by_id.values() if item.item_id not in rated_ids] if unrated else []
    judged = _judged_all(
        judge, rated, rest, double_check=double_check, concurrency=concurrency,
        max_cost=max_cost, prices=prices, progress=progress,
    )  # fmt: skip
    out = [_human_row(r, by_id[str(r["item"])]) for r in rows]
    unanswered: list[tuple[str, str]] = []
    for item, answer in judged:
        if answer["source"] != "judge":
            unanswered.append((item.item_id, str(answer["absent_reason"])))
            continue
        out.append(_judge_row(item, answer, judge_id))
    if unanswered:
        first, why = unanswered[0]
        warnings.warn(
            InputWarning(
                f"{judge.name}: no judge score for {len(unanswered)} item(s) (first: {first}: "
                f"{why})"
            ),
            stacklevel=2,
        )
    return pl.DataFrame(out, schema=CALIBRATION_FRAME_SCHEMA).sort("item", "rater")


def _judged_all(
    judge: Judge, rated: Sequence[PersonaItem], rest: Sequence[PersonaItem], **ask: Any
) -> list[tuple[PersonaItem, dict[str, Any]]]:
    """Each rated item, then each unrated one in ``rest``, with the judge's answer (as
    :func:`_judged`), asked in one go (one cost cap). A cassette recorded for the rated
    items only misses some unrated ones: then the rated items are asked alone (a miss
    there is refused, as ever), each unrated item alone (a cassette answers without a
    call), and an unrated item it does not hold is left out, warned once with the count
    (the estimate is then over the items the judge scored)."""
    try:
        answers, _usage = _judged(judge, [*rated, *rest], **ask)
        return list(zip([*rated, *rest], answers, strict=True))
    except CassetteMiss:
        if not rest:
            raise
    answers, _usage = _judged(judge, rated, **ask)
    got = list(zip(rated, answers, strict=True))
    missed: list[str] = []
    for item in rest:
        try:
            answers, _usage = _judged(judge, [item], **ask)
        except CassetteMiss:
            missed.append(item.item_id)
            continue
        got.append((item, answers[0]))
    if missed:
        warnings.warn(
            InputWarning(
                f"{judge.name}: no recording for {len(missed)} of {len(rest)} unrated item(s) "
                f"(first: {missed[0]}): left out of the estimate (record the judge on every "
                "item to use them)"
            ),
            stacklevel=3,
        )
    return got


def _check_ratings(
    rows: Sequence[Mapping[str, Any]],
    by_id: Mapping[str, PersonaItem],
    judge_id: str,
    ratings_name: str | None,
) -> None:
    """Refuse a rating of an item the chats do not hold, of a text other than the one
    the judge reads now, or by a rater named like the judge.

    Raises:
        InputError: naming the first such item or the rater.
    """
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


def _about(item: PersonaItem) -> dict[str, object]:
    """The columns every row of ``item`` shares: its groups and its texts."""
    return {
        "agent": item.agent,
        "dimension": item.dimension,
        "evidence": evidence_excerpt(item),
        "source": item.source,
        "anchor": item.anchor,
        "text_sha256": item.text_sha256,
    }


def _human_row(rating: Mapping[str, Any], item: PersonaItem) -> dict[str, object]:
    """A human's rating of ``item`` as a row of the frame (its notes, no reasoning)."""
    return {
        "item": item.item_id,
        "rater": str(rating["rater"]),
        "score": float(rating["score"]),
        "notes": str(rating["notes"] or ""),
        "reasoning": None,
        **_about(item),
    }


def _judge_row(item: PersonaItem, answer: Mapping[str, Any], judge_id: str) -> dict[str, object]:
    """The judge's answer about ``item`` as a row of the frame (its reasoning, no notes)."""
    return {
        "item": item.item_id,
        "rater": judge_id,
        "score": float(answer["raw"]),
        "notes": None,
        "reasoning": str(answer["reasoning"]),
        **_about(item),
    }
