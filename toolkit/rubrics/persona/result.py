"""The persona result: everything a persona evaluation produced."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import polars as pl

from toolkit.frames import PERSONA_BASELINE_SCHEMA, PERSONA_SCORES_SCHEMA
from toolkit.judge import JudgeUsage
from toolkit.rubrics.persona.spec import ENVIRONMENT, PersonaRubric
from toolkit.rubrics.persona_evidence import PersonaEvidence
from toolkit.scorecard import Scorecard
from toolkit.summary import Shows, Summary


@dataclass(frozen=True, repr=False)
class PersonaResult(Shows):
    """Everything a persona evaluation produced.

    Attributes:
        run: the run id.
        rubric: the rubric used (its version is stamped in every scorecard).
        judge: the judge's name.
        scores: the tidy per-proposition frame, :data:`toolkit.frames.PERSONA_SCORES_SCHEMA`
            (run, window, target_type, agent_id, agent_name, dimension, proposition,
            claim, weight, inverted, hard, raw, score, contribution, source,
            absent_reason, reasoning, recommendation). Window 0 is the whole run; 1..k
            are the successive message windows when ``windows`` was given.
        dimensions: :data:`toolkit.frames.PERSONA_DIMENSIONS_SCHEMA`.
        scorecards: one :class:`Scorecard` per agent (key: agent id) and one for the
            environment dimensions (key ``"environment"``), window 0.
        comparison: the baseline comparison (:data:`toolkit.frames.PERSONA_BASELINE_SCHEMA`)
            or ``None`` without baselines.
        evidence: the algorithmic evidence.
        warnings: what the reader must know.
        usage: the judge calls' account (tokens, cost, per dimension and agent).
    """

    run: str
    rubric: PersonaRubric
    judge: str
    scores: pl.DataFrame
    dimensions: pl.DataFrame
    scorecards: dict[str, Scorecard]
    comparison: pl.DataFrame | None
    evidence: PersonaEvidence
    warnings: tuple[str, ...] = field(default=())
    usage: JudgeUsage | None = None

    def _summary(self) -> Summary:
        agents = [a for a in self.scorecards if a != ENVIRONMENT]
        regressions = self.regressions
        return Summary(
            "PersonaResult",
            f"run {self.run}, judge {self.judge}, rubric {self.rubric.rubric} "
            f"{self.rubric.version}",
            (
                ("agents", len(agents)),
                ("dimensions", self.dimensions["dimension"].n_unique()),
                ("scores", self.scores.height),
                ("regressions", regressions.height if self.comparison is not None else "-"),
            ),
            notes=tuple(
                f"regression: {a} {d} ({s:.2f} against baseline {b:.2f})"
                for a, d, s, b in regressions.select(
                    "agent_id", "dimension", "score", "baseline"
                ).rows()
            )
            + self.warnings,
            notes_title="regressions and warnings",
        )

    @property
    def regressions(self) -> pl.DataFrame:
        """The rows of the comparison that regressed (empty without baselines)."""
        if self.comparison is None:
            return pl.DataFrame(schema=PERSONA_BASELINE_SCHEMA)
        return self.comparison.filter(pl.col("regression"))

    def agent_view(self) -> pl.DataFrame:
        """Window-0 dimension scores per agent, environment dimensions repeated per agent.

        Columns: agent_id, agent_name, dimension, target_type, score.
        """
        whole = self.dimensions.filter(pl.col("window") == 0)
        agents = whole.filter(pl.col("target_type") == "agent")
        env = whole.filter(pl.col("target_type") == ENVIRONMENT).drop("agent_id", "agent_name")
        names = (
            self.scores.filter(pl.col("agent_id").is_not_null())
            .select("agent_id", "agent_name")
            .unique(maintain_order=True)
        )
        env_rows = names.join(env, how="cross")
        cols = ["agent_id", "agent_name", "dimension", "target_type", "score"]
        return pl.concat([agents.select(cols), env_rows.select(cols)])


def persona_scores_frame(results: Iterable[PersonaResult]) -> pl.DataFrame:
    """Stack the tidy per-proposition frames of several results (same schema)."""
    frames = [r.scores for r in results]
    if not frames:
        return pl.DataFrame(schema=PERSONA_SCORES_SCHEMA)
    return pl.concat(frames, how="vertical")
