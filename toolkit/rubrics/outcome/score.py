"""Scoring an iteration log with the outcome rubric: the inputs, the signals, their
combination, the integrity track, the sessions and the objectives in one result.
"""

from __future__ import annotations

import polars as pl

from toolkit.epoch import input_digest, rows_bytes, spec_epoch
from toolkit.load.iterlog import IterationLog
from toolkit.load.outcome_evidence import OutcomeEvidence
from toolkit.rubrics.outcome.combine import clamped_scores, combine, combined_scores
from toolkit.rubrics.outcome.inputs import signal_inputs
from toolkit.rubrics.outcome.integrity import integrity_rows
from toolkit.rubrics.outcome.labels import label_view
from toolkit.rubrics.outcome.objectives import objectives
from toolkit.rubrics.outcome.result import OutcomeResult
from toolkit.rubrics.outcome.sessions import session_scores
from toolkit.rubrics.outcome.signals import signal_specs
from toolkit.rubrics.outcome.spec import (
    NAMED_RUBRICS,
    UNPUBLISHED_VERSIONS,
    OutcomeRubric,
    load_outcome_rubric,
)


def score_outcome(
    log: IterationLog, evidence: OutcomeEvidence, rubric: OutcomeRubric | None = None
) -> OutcomeResult:
    """Score every iteration of ``log`` with the outcome rubric.

    Args:
        log: from :func:`toolkit.load_iteration_log`.
        evidence: from :func:`toolkit.collect_outcome_evidence` (git facts, artifacts,
            transcripts); without a repository the git-derived signals are absent.
        rubric: defaults to the packaged rubric (:func:`load_outcome_rubric`).

    Returns:
        The :class:`OutcomeResult` (scores, breakdown, integrity, sessions, warnings).

    Example:
        >>> log = load_iteration_log("sample_runs/iteration_logs/tally-loop")  # doctest: +SKIP
        >>> result = score_outcome(log, collect_outcome_evidence(log, repo="..."))  # doctest: +SKIP
        >>> result.scores.select("iteration", "value", "band")  # doctest: +SKIP
    """
    rubric = rubric or load_outcome_rubric()
    inputs = signal_inputs(log, evidence, rubric)
    signals = signal_specs(rubric, evidence.transcripts_given)
    frames = [
        inputs.select(
            "iteration",
            pl.lit(name).alias("signal"),
            signals[name][0].cast(pl.Float64).alias("sub_score"),
            signals[name][1]
            .cast(pl.String)
            .fill_null("no evidence was gathered for this iteration")
            .alias("detail"),
        )
        for name in rubric.weights()
    ]
    long, clamped = clamped_scores(pl.concat(frames))
    breakdown = combine(long, rubric)
    scores = combined_scores(inputs, breakdown, rubric)
    warnings = [*log.issue_lines(), *evidence.issue_lines(), *clamped, *rubric_hints(log, rubric)]
    return OutcomeResult(
        rubric=rubric,
        scores=scores,
        breakdown=breakdown,
        integrity=integrity_rows(inputs, long, rubric),
        sessions=session_scores(scores, rubric),
        warnings=tuple(warnings),
        objectives=objectives(log, evidence, rubric, inputs),
        labels=label_view(log.labels, rubric),
        epoch=spec_epoch(rubric, transcripts_given=evidence.transcripts_given).id,
        input_digests=iteration_digests(inputs),
    )


def iteration_digests(inputs: pl.DataFrame) -> dict[int, str]:
    """Each iteration's input digest: the rows its signals were computed from (the
    iteration's record and its evidence, as loaded, without the paths they were read
    from), as JSON lines (:func:`toolkit.epoch.rows_bytes`)."""
    out: dict[int, str] = {}
    if inputs.is_empty():
        return out
    # where a file was read from is not its content: a log moved or copied keeps its digest
    where = [c for c in inputs.columns if c.endswith(("_file", "_path"))]
    for (n,), rows in inputs.drop(where).partition_by("iteration", as_dict=True).items():
        out[int(n)] = input_digest([("signal_inputs", rows_bytes(rows))])
    return out


def rubric_hints(log: IterationLog, rubric: OutcomeRubric) -> list[str]:
    """What the reader should know about the version: the log's existing score sidecars
    were written under another version, or it holds reviewers' labels that this rubric
    does not score; each says how to score it that way."""
    hints: list[str] = []
    others = sorted({v for v in log.score_versions.values() if v != rubric.version})
    for version in others:
        files = [n for n, v in log.score_versions.items() if v == version]
        name = f"dot-agents-{version}"
        same = UNPUBLISHED_VERSIONS.get(version)
        if name in NAMED_RUBRICS:
            how = f"score it the same way with --rubric {name}"
        elif same is not None:
            how = (
                f"dot-agents never published {version} (an earlier toolkit's stamp on "
                f"{same}'s numbers): --rubric dot-agents-{same} scores it the same way"
            )
        else:
            how = "dot-agents never published that version"
        hints.append(
            f"this log's iter-N.score.yaml sidecars ({len(files)}, the first "
            f"iter-{files[0]}.score.yaml) were written under rubric {version}, these scores "
            f"are {rubric.version}'s: {how}"
        )
    if log.labels.height and "human_label" not in rubric.weights():
        iterations = sorted(set(log.labels["iteration"].to_list()))
        hints.append(
            f"this log's reviewers' labels (iter-N.labels.yaml) on {len(iterations)} "
            f"iteration(s) are shown beside the score but not in it under rubric "
            f"{rubric.version}: --rubric dot-agents-3.0.0 scores them as human_label"
        )
    return hints
