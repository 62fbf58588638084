"""the-office's experiment reports against a reference table (Table 1 of the TinyTroupe
paper): per metric, whether the direction matches the paper's, and the share reproduced.

the-office's own comparison (``comparison-report.ts``) counts a metric as reproduced when
the paper found it significant and our difference has the same sign (or the paper's
difference is 0); its reproduction score is that count over the paper's significant
metrics. The toolkit's directional check (:func:`compare_to_reference`) asks more (the same
significance too) and is shown beside it.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from toolkit.rubrics.experiment.reference import compare_to_reference
from toolkit.rubrics.experiment.rubric import DEFAULT_RUBRIC, ExperimentRubric
from toolkit.summary import Shows, Summary


def reported_stats(reported: pl.DataFrame, alpha: float) -> pl.DataFrame:
    """Reported rows (``ExperimentScores.reported``) as the columns the directional check
    reads: experiment, metric, delta, significant (p < alpha; null without a p), alpha."""
    return reported.select(
        "experiment",
        "metric",
        "delta",
        significant=pl.when(pl.col("p_value").is_not_null()).then(pl.col("p_value") < alpha),
        alpha=pl.lit(alpha, pl.Float64),
    )


@dataclass(frozen=True, repr=False)
class Reproduction(Shows):
    """How a report's conclusions compare with a reference table's.

    Attributes:
        rows: experiment, metric, delta, ref_delta, same_direction (the-office's rule: the
            same sign, or the reference's difference is 0; null when a side is missing),
            ref_significant (null when the stated p cannot tell), counted (the row is one
            of the reference's significant findings), agrees and detail (the toolkit's
            directional check: same sign and same significance).
        by_experiment: experiment, matched, significant, share (matched / significant;
            null with no significant finding; the-office writes 1 there).
        matched, significant: over every experiment.
    """

    rows: pl.DataFrame
    by_experiment: pl.DataFrame
    matched: int
    significant: int

    @property
    def share(self) -> float | None:
        """The share of the reference's significant findings reproduced in direction."""
        return self.matched / self.significant if self.significant else None

    def _summary(self) -> Summary:
        share = "-" if self.share is None else f"{self.share:.2f}"
        return Summary(
            "Reproduction",
            f"{self.matched}/{self.significant} significant findings in the same direction "
            f"(share {share})",
            tuple(
                (f"{e}:", f"{m}/{n}") for e, m, n in self.by_experiment.select(
                    "experiment", "matched", "significant").rows()
            ),
        )  # fmt: skip


def office_reproduction(
    reported: pl.DataFrame,
    reference: pl.DataFrame,
    rubric: ExperimentRubric = DEFAULT_RUBRIC,
    alpha: float | None = None,
) -> Reproduction:
    """Compare a report's numbers (``ExperimentScores.reported``) with a reference table
    (:func:`toolkit.load_reference_table`), matched by experiment and metric as the
    directional check matches them."""
    stats = reported_stats(reported, rubric.alpha if alpha is None else alpha)
    direction = compare_to_reference(stats, reference, rubric)
    sign = pl.col("delta").sign()
    rows = direction.with_columns(
        same_direction=pl.when(
            pl.col("delta").is_not_null() & pl.col("ref_delta").is_not_null()
        ).then((sign == pl.col("ref_delta").sign()) | (pl.col("ref_delta") == 0))
    ).with_columns(
        counted=pl.col("ref_significant").fill_null(False) & pl.col("delta").is_not_null()
    )
    rows = rows.select(
        "experiment", "metric", "delta", "ref_delta", "same_direction", "ref_p",
        "ref_significant", "counted", "agrees", "detail",
    )  # fmt: skip
    by_experiment = (
        rows.group_by("experiment", maintain_order=True)
        .agg(
            (pl.col("counted") & pl.col("same_direction")).sum().cast(pl.Int64).alias("matched"),
            pl.col("counted").sum().cast(pl.Int64).alias("significant"),
        )
        .with_columns(
            share=pl.when(pl.col("significant") > 0).then(pl.col("matched") / pl.col("significant"))
        )
    )
    return Reproduction(
        rows=rows,
        by_experiment=by_experiment,
        matched=int(by_experiment["matched"].sum()),
        significant=int(by_experiment["significant"].sum()),
    )
