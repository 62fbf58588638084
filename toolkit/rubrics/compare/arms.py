"""The two arms of a comparison: their scores frames checked, keyed by the pairing
column and averaged per unit, and the units they share."""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from toolkit.errors import InputError
from toolkit.frames import COMPARE_SCORES_SCHEMA


def check_scores(frame: pl.DataFrame, arm: str) -> pl.DataFrame:
    """``frame`` with the :data:`COMPARE_SCORES_SCHEMA` columns cast; extra String
    columns (pairing keys) kept.

    Raises:
        InputError: a column is missing, or the arm holds no row.
    """
    missing = [c for c in COMPARE_SCORES_SCHEMA if c not in frame.columns]
    if missing:
        raise InputError(None, f"arm {arm}: no column {missing[0]!r} in the scores frame")
    if frame.is_empty():
        raise InputError(None, f"arm {arm}: nothing was scored")
    cast = frame.with_columns([pl.col(c).cast(t) for c, t in COMPARE_SCORES_SCHEMA.items()])
    return cast.with_columns(pl.col("value").fill_nan(None))  # NaN is no score, as null


def rekey(frame: pl.DataFrame, pair_by: str | None, arm: str) -> pl.DataFrame:
    """``frame`` paired by column ``pair_by`` instead of ``unit`` (a run without that
    key keeps its run id, so it stays unpaired and is listed)."""
    if pair_by is None or pair_by == "unit":
        return frame
    if pair_by not in frame.columns:
        keys = [c for c in frame.columns if c not in COMPARE_SCORES_SCHEMA or c == "run"]
        raise InputError(
            None,
            f"arm {arm} has no such pairing key (it has: {', '.join(sorted(keys)) or 'none'})",
            field="--pair-by",
            value=pair_by,
        )
    key = pl.col(pair_by).cast(pl.String)
    return frame.with_columns(pl.coalesce(key, pl.col("run")).alias("unit"))


def unit_means(frame: pl.DataFrame) -> pl.DataFrame:
    """Per unit and dimension: the mean value over its runs, the runs and the passes."""
    return frame.group_by("unit", "dimension", maintain_order=True).agg(
        pl.col("value").drop_nulls().mean().alias("value"),
        pl.col("value").drop_nulls().len().alias("runs"),
        pl.col("passed").drop_nulls().len().alias("judged"),
        pl.col("passed").drop_nulls().sum().cast(pl.Int64).alias("passes"),
    )


@dataclass(frozen=True)
class Arms:
    """Arms A and B checked and keyed, their per-unit means (:func:`unit_means`), and
    their units: those in both (the pairs) and those of one arm only.

    Attributes:
        a, b: the checked, keyed scores frames.
        family: the family compared.
        means_a, means_b: :func:`unit_means` of each arm.
        shared: the units in both arms, in A's order.
        only_a, only_b: the units of one arm only.
    """

    a: pl.DataFrame
    b: pl.DataFrame
    family: str
    means_a: pl.DataFrame
    means_b: pl.DataFrame
    shared: tuple[str, ...]
    only_a: tuple[str, ...]
    only_b: tuple[str, ...]

    @property
    def mode(self) -> str:
        """``"paired"``, or ``"unpaired"`` when no unit is in both arms."""
        return "paired" if self.shared else "unpaired"

    def notes(self) -> list[str]:
        """What the reader must know about the pairing (a fallback, units left out)."""
        if self.mode == "unpaired":
            return [
                "no unit is in both arms: unpaired tests (Mann-Whitney / Welch, Fisher) over "
                "all units; pairing would be more sensitive (--pair-by FIELD)"
            ]
        if self.only_a or self.only_b:
            return [
                f"{len(self.only_a)} unit(s) only in A and {len(self.only_b)} only in B are "
                "not in the paired tests (listed under unpaired)"
            ]
        return []

    def runs_per_unit(self) -> dict[str, dict[str, int]]:
        """Per arm (``"A"``, ``"B"``): unit -> the number of its runs."""
        return {
            arm: dict(frame.group_by("unit").agg(pl.col("run").n_unique()).iter_rows())
            for arm, frame in (("A", self.a), ("B", self.b))
        }

    def binary(self) -> set[str]:
        """The pass/fail dimensions (those with a ``passed`` value in either arm)."""
        return set(
            pl.concat([self.a, self.b], how="diagonal_relaxed")
            .filter(pl.col("passed").is_not_null())["dimension"]
            .unique()
            .to_list()
        )

    def dimensions(self, binary: set[str]) -> list[str]:
        """Every dimension of either arm in order of appearance, numeric ones first, then
        the pass/fail ones (``binary``)."""
        dims = list(dict.fromkeys([*self.a["dimension"].to_list(), *self.b["dimension"].to_list()]))
        return [d for d in dims if d not in binary] + [d for d in dims if d in binary]


def pair_arms(a: pl.DataFrame, b: pl.DataFrame, family: str | None, pair_by: str | None) -> Arms:
    """Check both arms (:func:`check_scores`), key them by ``pair_by`` (:func:`rekey`)
    and find the units they share.

    Raises:
        InputError: a missing column, an empty arm, a pairing key that is not there, or
            arms of two families.
    """
    a = rekey(check_scores(a, "A"), pair_by, "A")
    b = rekey(check_scores(b, "B"), pair_by, "B")
    fam = family or str(a["family"][0])
    other = str(b["family"][0])
    if other != fam:
        raise InputError(
            None, f"arm A is {fam} but arm B is {other}: compare the same family",
            field="--family", value=other,
        )  # fmt: skip
    units_a = list(dict.fromkeys(a["unit"].to_list()))
    units_b = list(dict.fromkeys(b["unit"].to_list()))
    shared = [u for u in units_a if u in set(units_b)]
    only_a = tuple(u for u in units_a if u not in set(shared))
    only_b = tuple(u for u in units_b if u not in set(shared))
    return Arms(a, b, fam, unit_means(a), unit_means(b), tuple(shared), only_a, only_b)
