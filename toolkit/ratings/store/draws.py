"""How a session's units came into the raters' queues: the order (``random`` or
``informative``), each unit's probability of being drawn, whether it was, and the judge's
score and predicted error it was drawn by (:mod:`toolkit.ratings.informative`).

Recorded once, when the session is created (``draw_events``, append-only, matched by
``uid`` on a restore: the ``draws`` part of a backup). The estimate weighs each rated unit
by the inverse of its probability of being rated (:meth:`Draws.rating_probabilities`).
"""

from __future__ import annotations

import math
import sqlite3
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from toolkit.errors import InputError
from toolkit.ratings.store.connection import Connections
from toolkit.ratings.store.rows import now_stamp

#: The columns of :meth:`Draws.draws`.
DRAWS_SCHEMA: dict[str, pl.DataType] = {
    "unit_id": pl.Utf8(), "draw_order": pl.Utf8(), "probability": pl.Float64(),
    "drawn": pl.Boolean(), "judge_score": pl.Float64(), "uncertainty": pl.Float64(),
}  # fmt: skip
#: The columns of the ``draws`` export: every recorded draw with its unique id, when it
#: was recorded and its ``origin`` ("" for this store's session).
DRAW_EXPORT_SCHEMA: dict[str, pl.DataType] = {
    "event_id": pl.Int64(), "uid": pl.Utf8(), **DRAWS_SCHEMA, "created_at": pl.Utf8(),
    "origin": pl.Utf8(),
}  # fmt: skip
#: The columns an import writes (the ``draws`` part), origin last.
DRAW_COLUMNS: tuple[str, ...] = (
    "uid", "unit_id", "draw_order", "probability", "drawn", "judge_score", "uncertainty",
    "created_at", "origin",
)  # fmt: skip
#: An imported draw: added unless the store holds its uid (importing twice adds nothing).
MERGE_DRAW = (
    f"INSERT INTO draw_events ({', '.join(DRAW_COLUMNS)}) "
    f"VALUES ({', '.join('?' for _ in DRAW_COLUMNS)}) ON CONFLICT (uid) DO NOTHING"
)


@dataclass(frozen=True)
class Draw:
    """One unit's draw into the queues.

    Attributes:
        unit_id: the game or persona item.
        probability: its probability of being drawn, in (0, 1] (1: every unit is queued,
            the random order).
        drawn: whether it was drawn (is in some rater's queue).
        judge_score: the judge's score of it, when the session was given one.
        uncertainty: the judge's predicted error of it, when given.
    """

    unit_id: str
    probability: float = 1.0
    drawn: bool = True
    judge_score: float | None = None
    uncertainty: float | None = None


def insert_draws(con: sqlite3.Connection, order: str, draws: Iterable[Draw]) -> None:
    """Record a new session's draws (inside the caller's write transaction)."""
    stamp = now_stamp()
    con.executemany(
        f"INSERT INTO draw_events ({', '.join(DRAW_COLUMNS[:-1])}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (str(uuid.uuid4()), d.unit_id, order, float(d.probability), int(d.drawn),
             d.judge_score, d.uncertainty, stamp)
            for d in draws
        ],
    )  # fmt: skip


@dataclass(frozen=True)
class HeldDraw(Draw):
    """A draw the store holds, with the order it was drawn in."""

    order: str = "random"


def held_draws(con: sqlite3.Connection, unit_ids: Iterable[str]) -> dict[str, HeldDraw]:
    """The latest draw this store holds (``origin`` "", a restored backup's included) of
    each of ``unit_ids`` that has one, with its order: unit -> its draw."""
    wanted = set(unit_ids)
    held: dict[str, HeldDraw] = {}
    for unit, order, probability, drawn in con.execute(
        "SELECT unit_id, draw_order, probability, drawn FROM draw_events WHERE event_id IN "
        "(SELECT max(event_id) FROM draw_events WHERE origin = '' GROUP BY unit_id)"
    ):
        if unit in wanted:
            held[str(unit)] = HeldDraw(str(unit), float(probability), bool(drawn), order=str(order))
    return held


def other_draws(held: Mapping[str, Draw], draws: Iterable[Draw]) -> list[tuple[Draw, Draw]]:
    """The (held, new) pairs of the units whose new draw differs from the one held: another
    probability (beyond float rounding) or another drawn flag."""
    differ = []
    for new in draws:
        old = held.get(new.unit_id)
        if old is not None and (
            old.drawn != new.drawn
            or not math.isclose(old.probability, new.probability, rel_tol=1e-9)
        ):
            differ.append((old, new))
    return differ


def draw_values(
    name: str, rec: Mapping[str, Any], line: int | None
) -> tuple[str, float, int, float | None, float | None]:
    """An imported draw's order, probability, drawn flag, judge score and predicted
    error, checked (``name`` and ``line`` name the file in an error).

    Raises:
        InputError: an unknown order, a probability outside (0, 1], a drawn flag that is
            not true or false, a score or error that is not a number (or an error < 0).
    """
    order = str(rec["draw_order"] or "")
    if order not in ("random", "informative"):
        raise InputError(name, "must be random or informative", field="draw_order",
                         value=rec["draw_order"], line=line)  # fmt: skip
    drawn = rec["drawn"]
    if isinstance(drawn, str):
        drawn = {"true": True, "false": False}.get(drawn.strip().lower(), drawn)
    if not isinstance(drawn, bool):
        raise InputError(name, "must be true or false", field="drawn", value=drawn, line=line)
    numbers: list[float | None] = []
    for field in ("probability", "judge_score", "uncertainty"):
        value = rec[field]
        if value is None or value == "":
            numbers.append(None)
            continue
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = math.nan
        low_ok = number > 0 if field == "probability" else field != "uncertainty" or number >= 0
        if not math.isfinite(number) or not low_ok or (field == "probability" and number > 1):
            rule = "a number in (0, 1]" if field == "probability" else "a finite number"
            raise InputError(name, f"must be {rule}", field=field, value=value, line=line)
        numbers.append(number)
    if numbers[0] is None:
        raise InputError(name, "must not be empty", field="probability", value=None, line=line)
    return order, numbers[0], int(drawn), numbers[1], numbers[2]


def effective_probabilities(
    probability: Mapping[str, float], drawn: Iterable[str], rated: Iterable[str]
) -> dict[str, float]:
    """Each unit's probability of being rated so far: its probability of being drawn
    times the share of the drawn units rated (a queue's order is shuffled, so which drawn
    units are rated first is a uniform thinning of the draw).

    Raises:
        InputError: a unit rated that was never drawn: its chance of being rated was 0,
            so no weight is honest for it.
    """
    queued = set(drawn)
    outside = sorted(set(rated) - queued)
    if outside:
        raise InputError(None, f"rated but never drawn into a queue ({len(outside)} unit(s)): "
                         "the weights need every rated unit to come from the draw",
                         field="unit_id", value=outside[0])  # fmt: skip
    done = len(queued & set(rated))
    share = done / len(queued) if queued else 0.0
    return {u: p * share for u, p in probability.items()}


class Draws(Connections):
    """The session's draws read back, and the probability each rated unit was rated with."""

    def draws(self) -> pl.DataFrame:
        """This session's draws, one row per unit (:data:`DRAWS_SCHEMA`), sorted by unit;
        empty for a session created before draws were recorded."""
        with self._connect() as con:
            rows = con.execute(
                "SELECT unit_id, draw_order, probability, drawn, judge_score, uncertainty "
                "FROM draw_events WHERE origin = '' ORDER BY unit_id, event_id"
            ).fetchall()
        frame = pl.DataFrame(rows, schema=DRAWS_SCHEMA, orient="row")
        return frame.unique("unit_id", keep="last", maintain_order=True)

    def draw_order(self) -> str:
        """The order the session hands out its units in: ``random`` or ``informative``
        (``random`` for a session created before the order was recorded)."""
        orders = self.draws()["draw_order"].unique().to_list()
        return "informative" if "informative" in orders else "random"

    def draw_events(self) -> pl.DataFrame:
        """Every draw the store holds, other sessions' included: the ``draws`` export
        (:data:`DRAW_EXPORT_SCHEMA`)."""
        with self._connect() as con:
            rows = con.execute(
                "SELECT event_id, uid, unit_id, draw_order, probability, drawn, judge_score, "
                "uncertainty, created_at, origin FROM draw_events ORDER BY event_id"
            ).fetchall()
        return pl.DataFrame(rows, schema=DRAW_EXPORT_SCHEMA, orient="row")

    def rated_in_order(self, persona: bool) -> list[tuple[str, str, float]]:
        """This session's (rater, unit, score) pairs in the order first submitted, each
        with its latest score: the ratings "so far" at every step."""
        table, unit = ("item_rating_events", "item_id") if persona else (
            "rating_events", "transcript_id")  # fmt: skip
        with self._connect() as con:
            rows = con.execute(
                f"SELECT rater, {unit}, score FROM {table} WHERE origin = '' ORDER BY seq, event_id"
            ).fetchall()
        latest: dict[tuple[str, str], float] = {}
        for rater, unit_id, score in rows:
            latest[(str(rater), str(unit_id))] = float(score)  # insertion order: first seen
        return [(r, u, s) for (r, u), s in latest.items()]

    def rating_probabilities(self, rated: Sequence[str]) -> dict[str, float]:
        """Each unit's probability of being rated, given the ``rated`` units so far
        (:func:`effective_probabilities`); empty when no draw was recorded."""
        frame = self.draws()
        probability = dict(zip(frame["unit_id"], frame["probability"], strict=True))
        drawn = frame.filter(pl.col("drawn"))["unit_id"].to_list()
        return effective_probabilities(probability, drawn, rated)
