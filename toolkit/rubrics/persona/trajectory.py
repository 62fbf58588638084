"""Trajectories: the messages an agent saw or wrote as the lines the judge reads,
their window (the first and last entries) and the values of a claim's variables.
"""

from __future__ import annotations

import polars as pl

from toolkit.load.persona import ChatRun


def trajectory_rows(messages: pl.DataFrame, agent_id: str | None, agent_name: str) -> pl.DataFrame:
    """The messages an agent saw or wrote, each with its trajectory ``line``.

    For an agent: its own actions (``Name acts: text``), other agents' actions in the
    channels it speaks in and stimuli addressed to it or to those channels
    (``--> Name: Other: text`` / ``--> Name: text``). For the environment
    (``agent_id=None``): every message, actions as ``Name acts: text`` and stimuli as
    ``--> Name: text`` or ``--> #channel: text``.
    """
    is_action = pl.col("kind") == "action"
    if agent_id is None:
        line = (
            pl.when(is_action)
            .then(pl.format("{} acts: {}", "agent_name", "text"))
            .when(pl.col("agent_id").is_not_null())
            .then(pl.format("--> {}: {}", "agent_name", "text"))
            .otherwise(pl.format("--> #{}: {}", "channel", "text"))
        )
        return messages.sort("step").with_columns(line.alias("line"))
    own = is_action & (pl.col("agent_id") == agent_id)
    channels = messages.filter(own)["channel"].unique()
    in_channels = pl.col("channel").is_in(channels.implode())
    keep = (
        own
        | (is_action & (pl.col("agent_id") != agent_id) & in_channels)
        | (~is_action & (pl.col("agent_id") == agent_id))
        | (~is_action & pl.col("agent_id").is_null() & in_channels)
    )
    line = (
        pl.when(own)
        .then(pl.format("{} acts: {}", pl.lit(agent_name), "text"))
        .when(is_action)
        .then(pl.format("--> {}: {}: {}", pl.lit(agent_name), "agent_name", "text"))
        .otherwise(pl.format("--> {}: {}", pl.lit(agent_name), "text"))
    )
    return messages.sort("step").filter(keep).with_columns(line.alias("line"))


def window_rows(rows: pl.DataFrame, first_n: int | None, last_n: int | None) -> pl.DataFrame:
    """Keep the first ``first_n`` and the last ``last_n`` rows (all when both are None).

    With only one of them given, only that end is kept.
    """
    if first_n is None and last_n is None:
        return rows
    n = rows.height
    idx = pl.int_range(pl.len())
    head = idx < (first_n or 0)
    tail = idx >= n - (last_n or 0)
    return rows.filter(head | tail)


def format_trajectory(rows: pl.DataFrame, first_n: int | None, last_n: int | None) -> str:
    """The windowed trajectory text, with a marker where entries were left out."""
    kept = window_rows(rows, first_n, last_n)
    lines = [str(x) for x in kept["line"].to_list()]
    omitted = rows.height - kept.height
    if omitted and first_n:
        cut = min(first_n, len(lines))
        lines = [*lines[:cut], f"(... {omitted} entries omitted ...)", *lines[cut:]]
    elif omitted:
        lines = [f"(... {omitted} earlier entries omitted ...)", *lines]
    return "\n".join(lines)


def window_variables(
    run: ChatRun, window: pl.DataFrame, agent_id: str | None, *, action_list: bool = False
) -> tuple[dict[str, str | None], dict[str, str]]:
    """The values of a claim's template variables in ``window`` (and, for a variable with
    none, why). ``{{action}}`` is the agent's last message, or with ``action_list`` (the
    ``tinytroupe`` profile) every message of the agent in the window, one numbered line
    each (``1. ...``), as TinyTroupe's action-level propositions receive the window's
    actions."""
    values: dict[str, str | None] = {}
    reasons: dict[str, str] = {}
    acts = window.filter(pl.col("kind") == "action")
    if agent_id is not None:
        acts = acts.filter(pl.col("agent_id") == agent_id)
        values["agent_name"] = run.name_of(agent_id)
    else:
        values["agent_name"] = None
        reasons["agent_name"] = "an environment dimension judges no single agent"
    channels = [str(c) for c in acts["channel"].unique(maintain_order=True).to_list()]
    values["channel_name"] = ", ".join(channels) if channels else None
    if not channels:
        reasons["channel_name"] = "no message in this window"
    texts = [str(t) for t in acts["text"].to_list()]
    if action_list:
        values["action"] = "\n".join(f"{i}. {t}" for i, t in enumerate(texts, 1)) or None
    else:
        values["action"] = texts[-1] if texts else None
    if not acts.height:
        reasons["action"] = "no message in this window"
    recipients = acts["recipient_id"].drop_nulls()
    values["recipient_name"] = run.name_of(str(recipients[-1])) if recipients.len() else None
    if not recipients.len():
        reasons["recipient_name"] = "no message in this window names a recipient"
    return values, reasons
