"""the-office's other tables: run transcripts, its own judge scores, correction and
intervention logs, and experiments, each read with only the rows and columns needed.

* ``runs`` + ``run_messages``: ``run_messages`` has no agent column; the agent and the
  channel come from ``runs``, joined on ``run_id``. Each message gets a ``part``:
  ``said`` (a ``send_message`` tool call: what the agent posted), ``thinking``,
  ``tool`` (other tool calls and every tool return), ``assistant`` (text the agent did
  not post), ``prompt`` (system and user messages) or ``other`` (a type the schema did
  not list; kept, and counted in a warning).
* ``evaluation_runs`` + ``evaluation_scores``: the system's own judge scores (0-9; a
  count for ``ideas_quantity``).
* ``correction_logs``, ``intervention_logs``: every row, every column, in the table shape.
* ``experiments``, ``experiment_environments`` and their ``evaluation_scores``
  (proposition id ``experiment-<id>-<dimension>``): treatment-vs-control scores.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import polars as pl

from toolkit.errors import InputError
from toolkit.load.experiments import ExperimentScores
from toolkit.load.persona.office_db import (
    SYSTEM,
    Tables,
    Window,
    as_text,
    office_tables,
    parse_window,
    resolve_channels,
)
from toolkit.load.persona.office_summaries import experiment_scores
from toolkit.load.persona.propositions import PropositionSet

RUN_COLUMNS = ("id", "agent_id", "channel_id", "created_at")
RUN_MESSAGE_COLUMNS = (
    "id",
    "run_id",
    "step_id",
    "message_type",
    "content",
    "tool_name",
    "tool_input",
    "created_at",
)
EVALUATION_RUN_COLUMNS = (
    "id",
    "agent_id",
    "status",
    "window_start",
    "window_end",
    "is_baseline",
    "experiment_id",
    "created_at",
)
EVALUATION_SCORE_COLUMNS = (
    "evaluation_run_id",
    "dimension",
    "proposition_id",
    "score",
    "reasoning",
)
CORRECTION_COLUMNS = (
    "id",
    "agent_id",
    "run_id",
    "channel_id",
    "original_text",
    "final_text",
    "stage",
    "attempt_number",
    "outcome",
    "dimension_scores",
    "similarity_score",
    "total_score",
    "token_usage",
    "duration_ms",
    "created_at",
)
INTERVENTION_COLUMNS = (
    "id",
    "agent_id",
    "channel_id",
    "intervention_type",
    "textual_precondition",
    "textual_precondition_result",
    "functional_precondition_result",
    "propositional_precondition_result",
    "fired",
    "nudge_text",
    "token_usage",
    "created_at",
)
EXPERIMENT_COLUMNS = ("id", "scenario_id", "status")
ENVIRONMENT_COLUMNS = ("experiment_id", "environment_index", "group", "channel_id", "agent_ids")

#: message_type -> part of a run transcript.
PARTS = {
    "thinking_message": "thinking",
    "assistant_message": "assistant",
    "tool_call_message": "tool",
    "tool_return_message": "tool",
    "system_message": "prompt",
    "user_message": "prompt",
}

_NO_EXPERIMENT = "00000000-0000-0000-0000-000000000000"

#: the ids pushed into one ``= ANY(...)`` parameter at a time.
ID_CHUNK = 10_000


def _json(value: Any) -> Any:
    """A jsonb value as Python (the source may give it as text or parsed)."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _chunks(ids: Sequence[Any]) -> list[list[Any]]:
    return [list(ids[i : i + ID_CHUNK]) for i in range(0, len(ids), ID_CHUNK)] or [[]]


def _in(
    tables: Tables,
    table: str,
    columns: Sequence[str],
    column: str,
    ids: Sequence[Any],
    order_by: Sequence[str] = (),
) -> pl.DataFrame:
    """Rows of ``table`` whose ``column`` is one of ``ids`` (in chunks of ids)."""
    parts = [
        tables.frame(table, columns, where=[(column, "in", chunk)], order_by=order_by)
        for chunk in _chunks(ids)
        if chunk
    ]
    if not parts:
        return tables.frame(table, columns, where=[(column, "in", [])])
    return pl.concat(parts, how="vertical_relaxed")


def _scope(
    tables: Tables,
    *,
    channel: str | Sequence[str] | None,
    window: Window | None,
    agents: Sequence[str] | None,
) -> list[tuple[str, str, Any]]:
    where: list[tuple[str, str, Any]] = [*(window or Window()).where("created_at")]
    if channel is not None:
        where.append(("channel_id", "in", resolve_channels(tables, channel)["id"].to_list()))
    if agents:
        where.append(("agent_id", "in", list(agents)))
    return where


def run_transcripts(
    tables: Tables,
    *,
    channel: str | Sequence[str] | None = None,
    window: Window | None = None,
    agents: Sequence[str] | None = None,
) -> tuple[pl.DataFrame, list[str]]:
    """The run transcripts of the runs in scope (channel, window on ``runs.created_at``,
    agents), one row per ``run_messages`` row.

    Returns:
        The frame (run_id, agent_id, channel_id, step_id, message_type, part, text,
        tool_name, tool_input as JSON text, time) ordered by the runs' start, then by
        time within a run; and warnings.
    """
    for table, cols in (("runs", RUN_COLUMNS), ("run_messages", RUN_MESSAGE_COLUMNS)):
        tables.require(table, cols, system=SYSTEM)
    runs = tables.frame(
        "runs", RUN_COLUMNS, where=_scope(tables, channel=channel, window=window, agents=agents)
    )
    rows = _in(
        tables,
        "run_messages",
        RUN_MESSAGE_COLUMNS,
        "run_id",
        as_text(runs, ("id",))["id"].to_list(),
        order_by=("run_id", "created_at", "id"),
    )
    return transcripts_from_rows(runs, rows)


def transcripts_from_rows(runs: pl.DataFrame, rows: pl.DataFrame) -> tuple[pl.DataFrame, list[str]]:
    """Join ``run_messages`` rows to their ``runs`` and name each message's part (pure)."""
    owners = as_text(runs, ("id", "agent_id", "channel_id")).select(
        pl.col("id").alias("run_id"), "agent_id", "channel_id", pl.col("created_at").alias("_at")
    )
    out: list[dict[str, Any]] = []
    other: dict[str, int] = {}
    for r in rows.iter_rows(named=True):
        kind, tool = r["message_type"], r["tool_name"]
        tool_input = _json(r["tool_input"])
        text = r["content"]
        if kind == "tool_call_message" and tool == "send_message":
            part = "said"
            if isinstance(tool_input, dict) and isinstance(tool_input.get("text"), str):
                text = tool_input["text"]
        else:
            part = PARTS.get(kind, "other")
            if part == "other":
                other[str(kind)] = other.get(str(kind), 0) + 1
        out.append(
            {
                "run_id": str(r["run_id"]),
                "step_id": None if r["step_id"] is None else str(r["step_id"]),
                "message_type": kind,
                "part": part,
                "text": text,
                "tool_name": tool,
                "tool_input": None
                if tool_input is None
                else json.dumps(tool_input, ensure_ascii=False),
                "time": r["created_at"],
            }
        )
    schema = {
        "run_id": pl.String(),
        "step_id": pl.String(),
        "message_type": pl.String(),
        "part": pl.String(),
        "text": pl.String(),
        "tool_name": pl.String(),
        "tool_input": pl.String(),
        "time": pl.Datetime("us", "UTC"),
    }
    frame = pl.DataFrame(out, schema=schema).join(owners, on="run_id", how="left")
    frame = frame.sort("_at", "run_id", "time", maintain_order=True).select(
        "run_id", "agent_id", "channel_id", *[c for c in schema if c != "run_id"]
    )
    warnings = [
        f"{n} run message(s) of type {k!r} (not in the schema) kept as part 'other'"
        for k, n in sorted(other.items())
    ]
    return frame, warnings


def stored_scores(
    tables: Tables,
    *,
    agents: Sequence[str] | None = None,
    window: Window | None = None,
    evaluation_runs: Sequence[str] | None = None,
    experiment: str | None = None,
) -> pl.DataFrame:
    """the-office's own judge scores with their evaluation runs.

    Args:
        agents: only these agents' evaluation runs.
        window: only evaluation runs whose window overlaps it (``window_end`` after its
            start, ``window_start`` before its end).
        evaluation_runs: only these evaluation runs (ids).
        experiment: only the runs of this experiment; ``None``: only runs of no
            experiment.

    Returns:
        One row per score: evaluation_run_id, agent_id, status, window_start, window_end,
        is_baseline, experiment_id, created_at, dimension, proposition_id, score,
        reasoning.
    """
    tables.require("evaluation_runs", EVALUATION_RUN_COLUMNS, system=SYSTEM)
    tables.require("evaluation_scores", EVALUATION_SCORE_COLUMNS, system=SYSTEM)
    where: list[tuple[str, str, Any]] = []
    if window is not None and window.start is not None:
        where.append(("window_end", ">", window.start))
    if window is not None and window.end is not None:
        where.append(("window_start", "<", window.end))
    if agents:
        where.append(("agent_id", "in", list(agents)))
    if evaluation_runs:
        where.append(("id", "in", list(evaluation_runs)))
    if experiment is not None:
        where.append(("experiment_id", "=", experiment))
    runs = tables.frame("evaluation_runs", EVALUATION_RUN_COLUMNS, where=where)
    if experiment is None:
        runs = runs.filter(pl.col("experiment_id").is_null())
    runs = as_text(runs, ("id", "experiment_id"))
    scores = _in(
        tables,
        "evaluation_scores",
        EVALUATION_SCORE_COLUMNS,
        "evaluation_run_id",
        runs["id"].to_list(),
    )
    score = scores["score"]
    if not score.dtype.is_numeric() and score.dtype != pl.Null():
        raise InputError(
            tables.url(),
            f"expected a number in evaluation_scores.score ({SYSTEM})",
            field="evaluation_scores.score",
            value=score[0],
        )
    scores = as_text(scores, ("evaluation_run_id",)).with_columns(pl.col("score").cast(pl.Float64))
    joined = runs.rename({"id": "evaluation_run_id"}).join(
        scores, on="evaluation_run_id", how="inner"
    )
    return joined.sort("created_at", "evaluation_run_id", "dimension", "proposition_id")


def correction_logs(
    tables: Tables,
    *,
    channel: str | Sequence[str] | None = None,
    window: Window | None = None,
    agents: Sequence[str] | None = None,
) -> pl.DataFrame:
    """``correction_logs`` rows in scope, every column kept (the table shape:
    ``dimension_scores`` and ``token_usage`` as JSON text), ordered by time."""
    tables.require("correction_logs", CORRECTION_COLUMNS, system=SYSTEM)
    frame = tables.frame(
        "correction_logs",
        CORRECTION_COLUMNS,
        order_by=("created_at", "id"),
        where=_scope(tables, channel=channel, window=window, agents=agents),
    )
    return _json_text(_ids_text(frame, ("id", "run_id")), ("dimension_scores", "token_usage"))


def intervention_logs(
    tables: Tables,
    *,
    channel: str | Sequence[str] | None = None,
    window: Window | None = None,
    agents: Sequence[str] | None = None,
) -> pl.DataFrame:
    """``intervention_logs`` rows in scope, every column kept, ordered by time."""
    tables.require("intervention_logs", INTERVENTION_COLUMNS, system=SYSTEM)
    frame = tables.frame(
        "intervention_logs",
        INTERVENTION_COLUMNS,
        order_by=("created_at", "id"),
        where=_scope(tables, channel=channel, window=window, agents=agents),
    )
    frame = _json_text(_ids_text(frame, ("id",)), ("token_usage",))
    fired = frame["fired"]
    if fired.dtype not in (pl.Boolean(), pl.Null()):
        raise InputError(
            tables.url(),
            f"expected a boolean in intervention_logs.fired ({SYSTEM})",
            field="intervention_logs.fired",
            value=fired[0],
        )
    return frame


def _ids_text(frame: pl.DataFrame, columns: Sequence[str]) -> pl.DataFrame:
    return as_text(frame, columns)


def _json_text(frame: pl.DataFrame, columns: Sequence[str]) -> pl.DataFrame:
    """jsonb columns as JSON text, whatever form the source gave them in."""
    return frame.with_columns(
        pl.Series(
            c,
            [
                None if v is None else json.dumps(_json(v), ensure_ascii=False)
                for v in frame[c].to_list()
            ],
            dtype=pl.String,
        )
        for c in columns
    )


def experiment_frames(
    tables: Tables, *, experiment: str | None = None
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """The experiments (one, or all), their environments and their per-agent scores.

    Returns:
        ``(experiments, environments, scores)``; ``scores`` as :func:`stored_scores`
        gives them, for the experiments' evaluation runs.

    Raises:
        InputError: an experiment id no row has.
    """
    tables.require("experiments", EXPERIMENT_COLUMNS, system=SYSTEM)
    tables.require("experiment_environments", ENVIRONMENT_COLUMNS, system=SYSTEM)
    where = [] if experiment is None else [("id", "=", experiment)]
    exps = tables.frame("experiments", EXPERIMENT_COLUMNS, where=where, order_by=("id",))
    exps = as_text(exps, ("id",))
    if experiment is not None and exps.height == 0:
        raise InputError(
            tables.url(),
            "no such experiment in table experiments",
            field="--experiment",
            value=experiment,
        )
    ids = exps["id"].to_list()
    envs = _in(
        tables,
        "experiment_environments",
        ENVIRONMENT_COLUMNS,
        "experiment_id",
        ids,
        order_by=("experiment_id", "environment_index"),
    )
    envs = as_text(envs, ("experiment_id",))
    if ids:
        scores = pl.concat(
            [stored_scores(tables, experiment=i) for i in ids], how="vertical_relaxed"
        )
    else:
        scores = stored_scores(tables, experiment=_NO_EXPERIMENT)
    return exps, envs, scores


def load_office_transcripts(
    url: str,
    *,
    channel: str | Sequence[str] | None = None,
    window: str | None = None,
    agents: Sequence[str] | None = None,
) -> pl.DataFrame:
    """The run transcripts of the-office's runs (``run_messages`` joined with ``runs``)
    in a channel, window (``7d`` or ``START..END``, on the run's start) and agents.

    Returns:
        One row per run message: run_id, agent_id, channel_id, step_id, message_type,
        part (said | thinking | tool | assistant | prompt | other), text (for ``said``:
        what the agent posted), tool_name, tool_input (JSON text), time.
    """
    with office_tables(url) as tables:
        frame, _ = run_transcripts(
            tables, channel=channel, window=parse_window(window), agents=agents
        )
        return frame


def load_stored_scores(
    url: str,
    *,
    agents: Sequence[str] | None = None,
    window: str | None = None,
    evaluation_runs: Sequence[str] | None = None,
) -> pl.DataFrame:
    """the-office's own judge scores (see :func:`stored_scores`); hand them to
    :class:`toolkit.judge.StoredJudge` to score with them."""
    with office_tables(url) as tables:
        return stored_scores(
            tables, agents=agents, window=parse_window(window), evaluation_runs=evaluation_runs
        )


def proposition_settings(propositions: PropositionSet) -> dict[str, tuple[bool, bool]]:
    """Proposition id -> ``(inverted, hard)``: what :class:`toolkit.judge.StoredJudge`
    needs to undo the-office's storing rule."""
    return {
        str(p): (bool(i), bool(h))
        for p, i, h in propositions.frame().select("proposition", "inverted", "hard").rows()
    }


def load_office_experiments(url: str, *, experiment: str | None = None) -> ExperimentScores:
    """the-office's experiments (all, or one by id) as treatment-vs-control scores per
    dimension, for :func:`toolkit.experiment_stats` and ``toolkit experiment``.

    Each agent's group is that of the environment listing it; its scores are the
    ``evaluation_scores`` of its evaluation run for the experiment (proposition
    ``experiment-<id>-<dimension>``).
    """
    with office_tables(url) as tables:
        exps, envs, scores = experiment_frames(tables, experiment=experiment)
        return experiment_scores(exps, envs, scores, tables.url())


__all__ = [
    "CORRECTION_COLUMNS",
    "INTERVENTION_COLUMNS",
    "PARTS",
    "correction_logs",
    "experiment_frames",
    "intervention_logs",
    "load_office_experiments",
    "load_office_transcripts",
    "load_stored_scores",
    "proposition_settings",
    "run_transcripts",
    "stored_scores",
    "transcripts_from_rows",
]
