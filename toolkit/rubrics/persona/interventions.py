"""Intervention logs: how often each intervention fired and what each precondition said.

the-office checks an intervention's preconditions in order (functional, textual,
propositional), stops at the first that fails, and fires when every one checked passed;
a null result is a precondition not checked. The report counts, per intervention type,
the evaluations and how many fired; per precondition, how often it passed, failed, was not
checked, and how often it was the one that stopped an intervention; per textual claim,
what the judge said; and the rows whose ``fired`` contradicts their results.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from toolkit.summary import Shows, Summary, plural

#: the-office's order of checking; the first that fails stops the rest.
PRECONDITION_ORDER = ("functional", "textual", "propositional")


@dataclass(frozen=True, repr=False)
class InterventionReport(Shows):
    """What an intervention log says.

    Attributes:
        by_type: intervention_type, evaluated, fired, fired_rate (fired / evaluated);
            types in the schema's order (anti_convergence, variety, custom).
        preconditions: intervention_type, precondition (functional | textual |
            propositional), passed, failed, not_checked, stopped (evaluations this
            precondition was the first to fail, so the intervention did not fire).
        claims: textual_precondition (the claim), evaluated, held, did_not_hold,
            not_checked: what the judge said of each textual precondition.
        inconsistent: rows whose ``fired`` contradicts their results (fired with a failed
            precondition, or not fired with none failed), with their line.
        input_tokens, output_tokens: summed over the rows that record them (None if none).
    """

    by_type: pl.DataFrame
    preconditions: pl.DataFrame
    claims: pl.DataFrame
    inconsistent: pl.DataFrame
    input_tokens: int | None = None
    output_tokens: int | None = None

    def _summary(self) -> Summary:
        evaluated = int(self.by_type["evaluated"].sum())
        return Summary(
            "InterventionReport",
            plural(evaluated, "evaluation"),
            tuple(
                (f"{t}:", f"fired {f}/{n} ({r:.0%})")
                for t, n, f, r in self.by_type.select(
                    "intervention_type", "evaluated", "fired", "fired_rate"
                ).rows()
            ),
            notes=tuple(
                f"line {line}: fired={fired} contradicts its preconditions"
                for line, fired in self.inconsistent.select("line", "fired").rows()
            ),
            notes_title="inconsistent rows",
        )


def _result(name: str) -> pl.Expr:
    return pl.col(f"{name}_precondition_result")


def intervention_report(log: pl.DataFrame) -> InterventionReport:
    """Fired rate by intervention type and what each precondition said, from an
    intervention log (:func:`toolkit.load_intervention_log`)."""
    kind = pl.col("intervention_type")  # an Enum: sorts in the schema's order
    by_type = (
        log.group_by(kind)
        .agg(
            pl.len().cast(pl.Int64).alias("evaluated"),
            pl.col("fired").sum().cast(pl.Int64).alias("fired"),
        )
        .with_columns((pl.col("fired") / pl.col("evaluated")).alias("fired_rate"))
        .sort("intervention_type")
        .with_columns(kind.cast(pl.String))
    )
    any_failed = pl.any_horizontal(
        *(_result(p).not_().fill_null(False) for p in PRECONDITION_ORDER)
    )
    first_failed = pl.coalesce(
        *(pl.when(_result(p).not_()).then(pl.lit(p)) for p in PRECONDITION_ORDER)
    )
    rows = log.with_columns(_stopped_by=first_failed)
    parts = [
        rows.group_by(kind).agg(
            pl.lit(p).alias("precondition"),
            _result(p).sum().cast(pl.Int64).alias("passed"),
            _result(p).not_().sum().cast(pl.Int64).alias("failed"),
            _result(p).is_null().sum().cast(pl.Int64).alias("not_checked"),
            (pl.col("_stopped_by") == p).sum().cast(pl.Int64).alias("stopped"),
        )
        for p in PRECONDITION_ORDER
    ]
    order = {p: i for i, p in enumerate(PRECONDITION_ORDER)}
    preconditions = (
        pl.concat(parts)
        .with_columns(_order=pl.col("precondition").replace_strict(order, return_dtype=pl.Int64))
        .sort("intervention_type", "_order")
        .drop("_order")
        .with_columns(kind.cast(pl.String))
    )
    claims = (
        log.filter(pl.col("textual_precondition").is_not_null())
        .group_by("textual_precondition", maintain_order=True)
        .agg(
            pl.len().cast(pl.Int64).alias("evaluated"),
            _result("textual").sum().cast(pl.Int64).alias("held"),
            _result("textual").not_().sum().cast(pl.Int64).alias("did_not_hold"),
            _result("textual").is_null().sum().cast(pl.Int64).alias("not_checked"),
        )
    )
    inconsistent = log.filter(pl.col("fired") == any_failed).select(
        "line", "agent_id", pl.col("intervention_type").cast(pl.String), "fired"
    )
    tokens = {
        name: int(log[name].sum()) if log[name].drop_nulls().len() else None
        for name in ("input_tokens", "output_tokens")
    }
    return InterventionReport(by_type, preconditions, claims, inconsistent, **tokens)
