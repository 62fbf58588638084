"""The outcome result: scores, breakdown, integrity, sessions and objectives of an
iteration log, with its JSON shape and its scorecards.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import polars as pl

from toolkit.frames import OUTCOME_OBJECTIVES_SCHEMA
from toolkit.rubrics.outcome.labels import LABEL_VIEW_SCHEMA
from toolkit.rubrics.outcome.spec import ABSENT, MEANING, OutcomeRubric
from toolkit.scorecard import Dimension, Scorecard
from toolkit.summary import Shows, Summary, plural


@dataclass(frozen=True, repr=False)
class OutcomeResult(Shows):
    """Outcome scores of an iteration log.

    Attributes:
        rubric: the rubric that produced them.
        scores: one row per iteration, :data:`toolkit.frames.OUTCOME_SCORES_SCHEMA`
            (iteration, session_id, scored, value, band, signals_present).
        breakdown: one row per iteration and signal,
            :data:`toolkit.frames.OUTCOME_BREAKDOWN_SCHEMA` (iteration, signal, label,
            present, sub_score, detail, nominal_weight, effective_weight, contribution).
        integrity: :data:`toolkit.frames.INTEGRITY_SCHEMA` (iteration, signal, role,
            claimed, observed, delta).
        sessions: :data:`toolkit.frames.SESSION_SCORES_SCHEMA` (session_id, iterations,
            scored_iterations, scored, value, band).
        warnings: load problems and missing evidence the reader must know about.
        objectives: :data:`toolkit.frames.OUTCOME_OBJECTIVES_SCHEMA` (iteration,
            objective, value, detail): what each iteration did, checked from transcripts
            and its diff (:data:`OBJECTIVES`), beside the score and never in it.
        labels: reviewers' labels, who said what per iteration,
            :data:`toolkit.rubrics.outcome.labels.LABEL_VIEW_SCHEMA` (iteration, actor,
            role, admin_override, the three answers, free_text, sub_score, counted,
            why_not, updated_at); they feed ``human_label`` under rubric 3.0.0 and are
            shown beside the score under any rubric.
    """

    rubric: OutcomeRubric
    scores: pl.DataFrame
    breakdown: pl.DataFrame
    integrity: pl.DataFrame
    sessions: pl.DataFrame
    warnings: tuple[str, ...] = ()
    objectives: pl.DataFrame = field(
        default_factory=lambda: pl.DataFrame(schema=OUTCOME_OBJECTIVES_SCHEMA)
    )
    labels: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=LABEL_VIEW_SCHEMA))
    #: The measurement epoch (:mod:`toolkit.epoch`) and each iteration's input digest.
    epoch: str = ""
    input_digests: Mapping[int, str] = field(default_factory=dict)

    def _summary(self) -> Summary:
        bands = self.scores.group_by("band", maintain_order=True).len().rows()
        worst = self.scores.drop_nulls("value").sort("value").head(1)
        facts: list[tuple[str, object]] = [
            ("iterations", self.scores.height),
            ("scored", self.scores.filter(pl.col("scored")).height),
            *((f"{band}:", n) for band, n in bands),
            ("over-claims", self.integrity.filter(pl.col("delta") < 0).height),
        ]
        if worst.height:
            facts.append(("worst:", f"#{worst['iteration'][0]} {worst['value'][0]:.3f}"))
        return Summary(
            "OutcomeResult",
            f"rubric {self.rubric.rubric} {self.rubric.version}, "
            f"{plural(self.sessions.height, 'session')}",
            tuple(facts),
            notes=self.warnings,
            notes_title="warnings",
        )

    @property
    def rubric_version(self) -> str:
        """The version of the rubric that produced the scores."""
        return self.rubric.version

    def only(self, iterations: Iterable[int]) -> OutcomeResult:
        """The result restricted to ``iterations`` (and the sessions they belong to)."""
        keep = sorted(set(iterations))
        scores = self.scores.filter(pl.col("iteration").is_in(keep))
        session_ids = scores["session_id"].drop_nulls().unique().to_list()
        return replace(
            self,
            scores=scores,
            breakdown=self.breakdown.filter(pl.col("iteration").is_in(keep)),
            integrity=self.integrity.filter(pl.col("iteration").is_in(keep)),
            sessions=self.sessions.filter(pl.col("session_id").is_in(session_ids)),
            objectives=self.objectives.filter(pl.col("iteration").is_in(keep)),
            labels=self.labels.filter(pl.col("iteration").is_in(keep)),
        )

    def over_claims(self, limit: int | None = None) -> pl.DataFrame:
        """Integrity rows with a negative delta (claimed more than observed), worst first;
        :data:`toolkit.frames.INTEGRITY_SCHEMA`."""
        worst = self.integrity.filter(pl.col("delta") < 0).sort("delta", "iteration")
        return worst if limit is None else worst.head(limit)

    def iteration_dict(self, iteration: int) -> dict[str, Any]:
        """One iteration's score as a JSON-ready dict (iteration, scored, value, band,
        breakdown), then what is reported beside it: ``objectives`` and the derived
        ``linked_traces_to_outcomes`` marker."""
        row = self.scores.filter(pl.col("iteration") == iteration).row(0, named=True)
        breakdown = self.breakdown.filter(pl.col("iteration") == iteration).drop("iteration")
        objectives = self.objectives.filter(pl.col("iteration") == iteration).drop("iteration")
        return {
            "iteration": iteration,
            "scored": row["scored"],
            "value": row["value"],
            "band": row["band"],
            "breakdown": breakdown.to_dicts(),
            "objectives": objectives.to_dicts(),
            "linked_traces_to_outcomes": bool(row["linked_traces_to_outcomes"]),
        }

    def labels_of(self, iteration: int) -> list[dict[str, Any]]:
        """Who said what about ``iteration``: its reviewers' labels as JSON-ready dicts."""
        rows = self.labels.filter(pl.col("iteration") == iteration).drop("iteration")
        return [
            {**r, "updated_at": None if r["updated_at"] is None else r["updated_at"].isoformat()}
            for r in rows.to_dicts()
        ]

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of ``toolkit outcome --format json``: rubric_version, iterations
        (each with its breakdown), sessions, integrity, warnings."""
        return {
            "rubric": self.rubric.rubric,
            "rubric_version": self.rubric.version,
            "epoch": self.epoch or None,
            "iterations": [
                {
                    **self.iteration_dict(n),
                    "input_digest": self.input_digests.get(n),
                    "labels": self.labels_of(n),
                }
                for n in self.scores["iteration"].to_list()
            ],
            "sessions": self.sessions.to_dicts(),
            "integrity": self.integrity.to_dicts(),
            "warnings": list(self.warnings),
        }

    def scorecard(self, iteration: int) -> Scorecard:
        """One iteration in the project's :class:`~toolkit.scorecard.Scorecard` shape:
        one dimension per signal (value = sub-score, status = the sub-score's band or
        ``absent``, detail = the evidence); the verdict is the iteration's band."""
        row = self.scores.filter(pl.col("iteration") == iteration)
        if row.height != 1:
            raise KeyError(iteration)
        score = row.row(0, named=True)
        rows = self.breakdown.filter(pl.col("iteration") == iteration)
        status = pl.when(pl.col("present")).then(self.rubric.band_expr(pl.col("sub_score")))
        rows = rows.with_columns(status.otherwise(pl.lit(ABSENT)).alias("status"))
        labels = self.rubric.labels()
        dims = [
            Dimension(
                key=r["signal"],
                name=labels.get(r["signal"], r["signal"]),
                value=r["sub_score"],
                status=r["status"],
                detail=r["detail"] or "",
                green=MEANING.get(r["signal"], ("", ""))[0],
                red=MEANING.get(r["signal"], ("", ""))[1],
            )
            for r in rows.iter_rows(named=True)
        ]
        subject = f"iter-{iteration}"
        absent = [r["signal"] for r in rows.iter_rows(named=True) if not r["present"]]
        if score["scored"]:
            reason = (
                f"value {score['value']:.{self.rubric.decimals}f} from "
                f"{score['signals_present']} of {rows.height} signals"
            )
            if absent:
                reason += f" (absent: {', '.join(absent)})"
        else:
            reason = "no signal present"
        session = f" · session {score['session_id']}" if score["session_id"] else ""
        return Scorecard(
            rubric=self.rubric.rubric,
            rubric_version=self.rubric.version,
            subject=subject,
            title=f"Iteration {iteration}{session}",
            verdict=score["band"],
            verdict_reason=reason,
            dimensions=Scorecard.dimensions_frame(subject, dims),
            warnings=(),
            meta={
                "iteration": iteration,
                "session_id": score["session_id"],
                "value": score["value"],
                "band": score["band"],
                **({"epoch": self.epoch} if self.epoch else {}),
                **(
                    {"input_digest": self.input_digests[iteration]}
                    if iteration in self.input_digests
                    else {}
                ),
            },
        )

    def scorecards(self) -> list[Scorecard]:
        """A :class:`~toolkit.scorecard.Scorecard` per iteration, in iteration order."""
        return [self.scorecard(n) for n in self.scores["iteration"].to_list()]
