"""dot-agents eval-harness runs, found, read and scored: what ``toolkit outcome``,
``toolkit compare`` and ``toolkit compare --pass-k`` do with a folder of them.

Each run's one-iteration log is scored with the outcome rubric (the default one unless
given), with no repository: trunk landing does not apply in the harness's sandbox, so
``landed`` is absent. The verifier's verdict (``verify.passed``) is the run's pass/fail;
runs of one ``task_id`` are replicates.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from toolkit.fleet.find import find_eval_runs
from toolkit.io.source import Source
from toolkit.load.eval_runs import EvalRuns, load_eval_runs
from toolkit.load.iterlog import load_iteration_logs
from toolkit.load.outcome_evidence import collect_outcome_evidence
from toolkit.rubrics.outcome import OutcomeRubric, default_outcome_rubric, score_outcome
from toolkit.scorecard import Dimension, Scorecard
from toolkit.summary import Shows, Summary, plural

#: The toolkit's own score of each run's iteration, beside the eval-run.yaml columns.
SCORED_COLUMNS: dict[str, pl.DataType] = {
    "value": pl.Float64(),
    "band": pl.String(),
    "scored": pl.Boolean(),
    "rubric_version": pl.String(),
}


@dataclass(frozen=True, repr=False)
class ScoredEvalRuns(Shows):
    """Eval-harness runs with the toolkit's score of each run's iteration.

    Attributes:
        runs: :data:`toolkit.frames.EVAL_RUNS_SCHEMA` plus ``value``, ``band``,
            ``scored`` and ``rubric_version`` (the toolkit's score; null when the run
            has no iteration log).
        label: what the set is called (its folder's name).
        notes: what was lenient, one line each.
    """

    runs: pl.DataFrame
    label: str
    notes: tuple[str, ...] = ()

    def _summary(self) -> Summary:
        frame = self.runs
        tasks = frame["task_id"].n_unique() if frame.height else 0
        passed = int(frame["passed"].sum()) if frame.height else 0
        return Summary(
            "ScoredEvalRuns",
            f"{self.label}: {plural(frame.height, 'run')} of {plural(tasks, 'task')}",
            (("verify passed:", passed), ("failed:", frame.height - passed)),
            notes=self.notes,
            notes_title="notes",
        )


def _label(source: str | Path | Source) -> str:
    text = source.url() if isinstance(source, Source) else str(source)
    text = text.rstrip("/")
    name = text.rsplit("/", 1)[-1] or text
    return name if name not in (".", "") else Path(text).resolve().name


def score_eval_runs(
    source: str | Path | Source,
    rubric: OutcomeRubric | None = None,
    *,
    storage_options: Mapping[str, Any] | None = None,
) -> ScoredEvalRuns:
    """Find the eval-harness runs under ``source`` (a repository, its
    ``.agents/eval/runs``, a folder of run folders or one run), read them and score
    each run's iteration log with ``rubric`` (default: the outcome rubric's default).

    Raises:
        InputError: no run found, or a run file that cannot be used.
    """
    rule = rubric or default_outcome_rubric()
    loaded: EvalRuns = load_eval_runs(find_eval_runs(source, storage_options), storage_options)
    notes = list(loaded.notes)
    logs = [item.log for item in loaded.items if item.log is not None]
    scored: dict[str, dict[str, Any]] = {}
    for path, log in zip(logs, load_iteration_logs(logs, storage_options=storage_options),
                         strict=True):  # fmt: skip
        notes.extend(log.issue_lines())
        result = score_outcome(log, collect_outcome_evidence(log), rule)
        rows = result.scores.sort("iteration").to_dicts()
        if not rows:
            continue
        row = rows[0]
        scored[path] = {"value": row["value"], "band": row["band"], "scored": row["scored"],
                        "rubric_version": rule.version}  # fmt: skip
        if len(rows) > 1:
            notes.append(f"{path}: {len(rows)} iterations; the first is the run's")
    extra = [scored.get(item.log or "", dict.fromkeys(SCORED_COLUMNS)) for item in loaded.items]
    frame = pl.concat([loaded.runs, pl.DataFrame(extra, schema=SCORED_COLUMNS)], how="horizontal")
    return ScoredEvalRuns(frame, _label(source), tuple(notes))


def replicates(runs: pl.DataFrame) -> pl.DataFrame:
    """Per task (and agent): its replicates, passes, pass rate and mean toolkit score,
    in the order the tasks first appear.

    Returns:
        Columns task_id, language, difficulty, harness, model, runs, passed, pass_rate,
        mean_value.
    """
    keys = ["task_id", "harness", "model"]
    return runs.group_by(keys, maintain_order=True).agg(
        pl.col("language").first(),
        pl.col("difficulty").first(),
        pl.len().cast(pl.Int64).alias("runs"),
        pl.col("passed").sum().cast(pl.Int64).alias("passed"),
        pl.col("passed").mean().alias("pass_rate"),
        pl.col("value").mean().alias("mean_value"),
    )


def eval_scorecards(runs: pl.DataFrame, rubric: OutcomeRubric | None = None) -> list[Scorecard]:
    """One :class:`~toolkit.scorecard.Scorecard` per run (for ``--gate`` and
    ``--format markdown``): the toolkit's score of its iteration as the one dimension,
    whose band is the verdict (``unscored`` without one); the detail says the verifier's
    verdict and the task."""
    rule = rubric or default_outcome_rubric()
    floors = ", ".join(f"{b.band} >= {b.min:g}" for b in rule.bands)
    cards: list[Scorecard] = []
    for r in runs.iter_rows(named=True):
        band = r["band"] if r["scored"] else "unscored"
        verify = "verify passed" if r["passed"] else f"verify failed ({r['verify_phase'] or '?'})"
        detail = f"{r['task_id']}: {verify}"
        dim = Dimension("score", "Outcome score", r["value"], band, detail, floors, "")
        cards.append(
            Scorecard(
                rubric=rule.rubric,
                rubric_version=rule.version,
                subject=r["run_id"],
                title=f"{r['run_id']} · {r['task_id']}",
                verdict=band,
                verdict_reason=detail,
                dimensions=Scorecard.dimensions_frame(r["run_id"], [dim]),
            )
        )
    return cards
