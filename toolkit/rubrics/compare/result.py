"""A comparison's result, :class:`CompareResult`: B against A, per dimension."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl

from toolkit.rubrics.compare.rubric import COMPARE_VERSION
from toolkit.summary import Shows, Summary, plural

#: How the dimensions' interval is adjusted, by correction (named in every output).
INTERVAL_ADJUSTMENTS = {
    "holm": "simultaneous over the dimensions tested (Bonferroni level, as p is Holm-adjusted)",
    "bh": "false-coverage-rate over the dimensions BH selects (Benjamini-Yekutieli level)",
}


def interval_adjustment(correction: str) -> str:
    """How the dimensions' interval is adjusted under ``correction``, in words."""
    return INTERVAL_ADJUSTMENTS.get(correction, f"adjusted as {correction}")


@dataclass(frozen=True, repr=False)
class CompareResult(Shows):
    """B against A, per dimension.

    Attributes:
        family: the rubric family compared.
        mode: ``"paired"`` or ``"unpaired"`` (no unit in both arms).
        test, correction, alpha, level, seed, resamples: how it was computed.
        pairs: units in both arms.
        only_a, only_b: units of one arm only (listed, not compared when paired).
        dimensions: :data:`toolkit.frames.COMPARE_DIMENSIONS_SCHEMA`, one row per
            dimension (numeric first, then pass/fail outcomes).
        flips: :data:`toolkit.frames.COMPARE_FLIPS_SCHEMA` (pass/fail outcomes, paired).
        pass_k: :data:`toolkit.frames.COMPARE_PASS_K_SCHEMA` (when a unit has repeats).
        noise: :data:`toolkit.frames.COMPARE_NOISE_SCHEMA` (when A has repeats).
        runs_a, runs_b: runs read in each arm.
        labels: what A and B are called (folder names).
        notes: what the reader must know (fallbacks, dropped values, keys used).
        strata: :data:`toolkit.frames.COMPARE_STRATA_SCHEMA` (units that carry a
            difficulty or language: eval-harness runs), else ``None``.
        ci_level: the level of the dimensions' ``ci_low``/``ci_high``, adjusted the way
            ``p_adj`` is (:attr:`interval_level`).
    """

    family: str
    mode: str
    test: str
    correction: str
    alpha: float
    level: float
    seed: int
    resamples: int
    pairs: int
    only_a: tuple[str, ...]
    only_b: tuple[str, ...]
    dimensions: pl.DataFrame
    flips: pl.DataFrame
    pass_k: pl.DataFrame
    noise: pl.DataFrame
    runs_a: int = 0
    runs_b: int = 0
    labels: tuple[str, str] = ("A", "B")
    pair_by: str = "unit"
    notes: tuple[str, ...] = ()
    version: str = COMPARE_VERSION
    #: The comparison's measurement epoch (:mod:`toolkit.epoch`): its rubric's data and
    #: every option that changes a number.
    epoch: str = ""
    strata: pl.DataFrame | None = None
    ci_level: float | None = None

    @property
    def interval_level(self) -> float:
        """The level of ``ci_low``/``ci_high``: adjusted like ``p_adj`` over the dimensions
        tested (``level`` when one was; ``ci_low_raw``/``ci_high_raw`` are at ``level``)."""
        return self.level if self.ci_level is None else self.ci_level

    def _summary(self) -> Summary:
        counts = self.dimensions.group_by("outcome", maintain_order=True).len().rows()
        return Summary(
            "CompareResult",
            f"{self.family}: {self.labels[1]} vs {self.labels[0]}, {self.mode}, "
            f"{plural(self.pairs, 'pair')}",
            tuple((f"{o}:", n) for o, n in counts),
            notes=self.notes,
            notes_title="notes",
            columns=("dimension", "diff", "p_adj", "outcome"),
            rows=tuple(
                (
                    r["dimension"],
                    "-" if r["diff"] is None else f"{r['diff']:+.3g}",
                    "-" if r["p_adj"] is None else f"{r['p_adj']:.3g}",
                    r["outcome"],
                )
                for r in self.dimensions.iter_rows(named=True)
            ),
        )

    def outcome_of(self, dimension: str) -> str:
        """The outcome (better, worse, ...) of ``dimension``."""
        row = self.dimensions.filter(pl.col("dimension") == dimension)
        if row.height != 1:
            raise KeyError(dimension)
        return str(row["outcome"][0])

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of everything (the shape of ``--format json``)."""
        return {
            "rubric": "compare",
            "rubric_version": self.version,
            "epoch": self.epoch or None,
            "family": self.family,
            "a": self.labels[0],
            "b": self.labels[1],
            "mode": self.mode,
            "pair_by": self.pair_by,
            "test": self.test,
            "correction": self.correction,
            "alpha": self.alpha,
            "level": self.level,
            "interval_level": self.interval_level,
            "interval_adjustment": interval_adjustment(self.correction),
            "seed": self.seed,
            "resamples": self.resamples,
            "runs_a": self.runs_a,
            "runs_b": self.runs_b,
            "pairs": self.pairs,
            "only_a": list(self.only_a),
            "only_b": list(self.only_b),
            "dimensions": self.dimensions.to_dicts(),
            "flips": self.flips.to_dicts(),
            "pass_k": self.pass_k.to_dicts(),
            "noise": self.noise.to_dicts(),
            "notes": list(self.notes),
            **({"strata": self.strata.to_dicts()} if self.strata is not None else {}),
        }
