# ruff: noqa: E501  (SQL column lists are kept one statement per line)
"""Write ``sample_runs/persona/the-office-postgres.sql``: the persona samples as the-office
keeps them in PostgreSQL (its Drizzle schema, FORMATS.md section 5), loadable with
``psql -f``.

What goes in, all written for this project (Harbor Hill Community Radio):

* ``agents`` (the four characters, persona = ``system_prompt``; eight generated
  townsfolk of the experiment), ``channels`` (``fundraiser``, ``studio`` and the
  experiment's four), ``messages`` (week 1 and week 2 of ``radio-week*.jsonl``, the
  facilitator's prompts as a person's messages).
* ``runs``, ``run_steps`` and ``run_messages``: one run per agent message (system, user,
  thinking, a ``send_message`` tool call and its return, sometimes a memory lookup);
  ``run_messages`` has no agent column, as upstream.
* ``evaluation_runs`` / ``evaluation_scores``: one evaluation run per agent, week and
  dimension (week 1 the baseline), each score the proposition's final score (after
  inversion and hard mode, as the-office stores it) of the answers the sample cassette
  recorded for the same conversation (``cassette.json``), so ``--judge stored``
  reproduces them.
* ``correction_logs`` (both stages, all six outcomes), ``intervention_logs`` (every
  type, fired and not), one ``experiments`` row with four ``experiment_environments``
  and per-agent ``evaluation_scores`` (proposition id ``experiment-<id>-<dimension>``).

Deterministic (uuid5 ids, fixed times): rerunning gives the same bytes.

Run: ``python sample_runs/make_office_postgres.py [OUT_FILE]``
"""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import polars as pl

import toolkit as tk
from toolkit.judge import RecordedJudge

HERE = Path(__file__).resolve().parent / "persona"
NS = uuid.UUID("5f1c4f0e-7a61-4c55-9d0b-0ff1ce000000")
MODEL = "claude-sonnet-4-5"
TITLES = {
    "mags": "Station Manager",
    "otis": "Sound Engineer",
    "priya": "Volunteer Coordinator",
    "lenny": "Overnight DJ",
}
FACILITATOR = "facilitator"
EXPERIMENT = uuid.uuid5(NS, "experiment-lantern-walk")
DIMENSIONS = ["adherence", "consistency", "fluency", "convergence", "ideas_quantity"]

SCHEMA = """\
-- the-office (persona drift) tables as its Drizzle schema defines them (late 2026),
-- written for the toolkit from FORMATS.md section 5; only what the toolkit reads and a
-- few neighbours. Load with: psql -f the-office-postgres.sql DB
CREATE TABLE agents (id text PRIMARY KEY, display_name text NOT NULL, title text, system_prompt text NOT NULL, model_id text NOT NULL, avatar_color text, is_active boolean NOT NULL DEFAULT true, created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE experiments (id uuid PRIMARY KEY, scenario_id text NOT NULL, seed integer NOT NULL, scale real NOT NULL, mode text NOT NULL, status text NOT NULL, population_source text NOT NULL, source_agent_ids text[], config jsonb, report jsonb, agent_count integer NOT NULL DEFAULT 0, environment_count integer NOT NULL DEFAULT 0, created_at timestamptz NOT NULL DEFAULT now(), completed_at timestamptz);
CREATE TABLE channels (id text PRIMARY KEY, name text NOT NULL, kind text NOT NULL, topic text, experiment_id uuid REFERENCES experiments(id), created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE messages (id uuid PRIMARY KEY, channel_id text NOT NULL REFERENCES channels(id), parent_message_id uuid, user_id text NOT NULL, text text NOT NULL, thinking text, created_at timestamptz NOT NULL DEFAULT now());
CREATE INDEX messages_channel_created ON messages (channel_id, created_at);
CREATE TABLE runs (id uuid PRIMARY KEY, agent_id text NOT NULL REFERENCES agents(id), status text NOT NULL, stop_reason text, channel_id text, trigger_message_id uuid, trigger_prompt text, chain_depth integer NOT NULL DEFAULT 0, created_at timestamptz NOT NULL DEFAULT now(), started_at timestamptz, completed_at timestamptz, token_usage jsonb);
CREATE TABLE run_steps (id uuid PRIMARY KEY, run_id uuid NOT NULL REFERENCES runs(id), step_number integer NOT NULL, status text NOT NULL, model_id text NOT NULL, token_usage jsonb, created_at timestamptz NOT NULL DEFAULT now(), completed_at timestamptz);
CREATE TABLE run_messages (id uuid PRIMARY KEY, run_id uuid NOT NULL REFERENCES runs(id), step_id uuid REFERENCES run_steps(id), message_type text NOT NULL, content text NOT NULL, tool_name text, tool_input jsonb, created_at timestamptz NOT NULL DEFAULT now());
CREATE INDEX run_messages_run ON run_messages (run_id, created_at);
CREATE TABLE evaluation_runs (id uuid PRIMARY KEY, agent_id text NOT NULL REFERENCES agents(id), status text NOT NULL, dimensions text[] NOT NULL, window_start timestamptz, window_end timestamptz, sample_size integer NOT NULL, overall_score real, is_baseline boolean NOT NULL DEFAULT false, token_usage jsonb, experiment_id uuid REFERENCES experiments(id), created_at timestamptz NOT NULL DEFAULT now(), completed_at timestamptz);
CREATE TABLE evaluation_scores (id uuid PRIMARY KEY, evaluation_run_id uuid NOT NULL REFERENCES evaluation_runs(id), dimension text NOT NULL, proposition_id text NOT NULL, score real NOT NULL, reasoning text NOT NULL, context_snippet text, created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE correction_logs (id uuid PRIMARY KEY, agent_id text NOT NULL REFERENCES agents(id), run_id uuid, channel_id text, original_text text NOT NULL, final_text text NOT NULL, stage text NOT NULL, attempt_number integer NOT NULL, outcome text NOT NULL, dimension_scores jsonb NOT NULL, similarity_score real, total_score real NOT NULL, token_usage jsonb, duration_ms integer, created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE intervention_logs (id uuid PRIMARY KEY, agent_id text NOT NULL REFERENCES agents(id), channel_id text, intervention_type text NOT NULL, textual_precondition text, textual_precondition_result boolean, functional_precondition_result boolean, propositional_precondition_result boolean, fired boolean NOT NULL, nudge_text text, token_usage jsonb, created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE experiment_environments (id uuid PRIMARY KEY, experiment_id uuid NOT NULL REFERENCES experiments(id), environment_index integer NOT NULL, "group" text NOT NULL, channel_id text REFERENCES channels(id), agent_ids text[] NOT NULL, trajectory jsonb, created_at timestamptz NOT NULL DEFAULT now());
"""


def lit(value: Any) -> str:
    """``value`` as a SQL literal (text, numbers, booleans, NULL, text[] from a list,
    jsonb from a dict or a list of dicts)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, datetime):
        return "'" + value.isoformat() + "'"
    if isinstance(value, dict) or (
        isinstance(value, list) and value and isinstance(value[0], dict)
    ):
        return lit(json.dumps(value, ensure_ascii=False, sort_keys=True)) + "::jsonb"
    if isinstance(value, list):
        return "ARRAY[" + ", ".join(lit(v) for v in value) + "]::text[]"
    return "'" + str(value).replace("'", "''") + "'"


def insert(table: str, rows: Sequence[dict[str, Any]]) -> list[str]:
    """One INSERT statement per row (readable diffs, ``psql -f`` friendly)."""
    out = []
    for row in rows:
        cols = ", ".join(f'"{c}"' if c == "group" else c for c in row)
        out.append(
            f"INSERT INTO {table} ({cols}) VALUES ({', '.join(lit(v) for v in row.values())});"
        )
    return out


def uid(*parts: object) -> str:
    return str(uuid.uuid5(NS, "/".join(str(p) for p in parts)))


def week_chats() -> list[tk.ChatRun]:
    personas = HERE / "personas.yaml"
    return [tk.load_chat(HERE / f"radio-week{n}.jsonl", personas=personas) for n in (1, 2)]


def agent_rows(chat: tk.ChatRun) -> list[dict[str, Any]]:
    rows = [
        {
            "id": a,
            "display_name": chat.name_of(a),
            "title": TITLES[a],
            "system_prompt": chat.persona_of(a),
            "model_id": MODEL,
            "created_at": datetime.fromisoformat("2026-10-01T09:00:00+00:00"),
        }
        for a in chat.agent_ids
    ]
    for i in range(1, 9):
        rows.append(
            {
                "id": f"lantern-{i}",
                "display_name": f"Townsperson {i}",
                "title": "Lantern Walk volunteer",
                "system_prompt": f"Townsperson {i} of Harbor Hill, planning the winter Lantern Walk. Speaks plainly, in their own voice.",
                "model_id": MODEL,
                "created_at": datetime.fromisoformat("2026-11-15T09:00:00+00:00"),
            }
        )
    return rows


def conversation(chats: Iterable[tk.ChatRun]) -> tuple[list[dict[str, Any]], ...]:
    """messages, runs, run_steps and run_messages of both weeks."""
    messages: list[dict[str, Any]] = []
    runs: list[dict[str, Any]] = []
    steps: list[dict[str, Any]] = []
    run_messages: list[dict[str, Any]] = []
    for chat in chats:
        for row in chat.messages.iter_rows(named=True):
            mid = uid("message", chat.run, row["step"])
            at: datetime = row["time"]
            channel = f"ch-{row['channel']}"
            if row["kind"] == "stimulus":
                text = row["text"].removeprefix("Facilitator: ")
                messages.append(
                    {
                        "id": mid,
                        "channel_id": channel,
                        "user_id": FACILITATOR,
                        "text": text,
                        "thinking": None,
                        "created_at": at,
                    }
                )
                continue
            agent = row["agent_id"]
            thinking = f"{chat.name_of(agent)} weighs what to say in #{row['channel']}."
            messages.append(
                {
                    "id": mid,
                    "channel_id": channel,
                    "user_id": agent,
                    "text": row["text"],
                    "thinking": thinking,
                    "created_at": at,
                }
            )
            rid, sid = uid("run", chat.run, row["step"]), uid("step", chat.run, row["step"])
            start = at - timedelta(seconds=20)
            tokens = {
                "input_tokens": 1800 + 10 * row["step"],
                "output_tokens": 60 + len(row["text"]) // 4,
            }
            runs.append(
                {
                    "id": rid,
                    "agent_id": agent,
                    "status": "completed",
                    "stop_reason": "end_turn",
                    "channel_id": channel,
                    "trigger_prompt": f"New activity in #{row['channel']}",
                    "chain_depth": 0,
                    "created_at": start,
                    "started_at": start,
                    "completed_at": at + timedelta(seconds=1),
                    "token_usage": tokens,
                }
            )
            steps.append(
                {
                    "id": sid,
                    "run_id": rid,
                    "step_number": 1,
                    "status": "completed",
                    "model_id": MODEL,
                    "token_usage": tokens,
                    "created_at": start,
                    "completed_at": at,
                }
            )
            parts: list[tuple[str, str, str | None, dict[str, Any] | None]] = [
                (
                    "system_message",
                    f"You are {chat.name_of(agent)}. Stay in character.",
                    None,
                    None,
                ),
                (
                    "user_message",
                    f"New activity in #{row['channel']}: reply if you have something to add.",
                    None,
                    None,
                ),
                ("thinking_message", thinking, None, None),
            ]
            if row["step"] % 4 == 0:
                parts += [
                    (
                        "tool_call_message",
                        "search_memory",
                        "search_memory",
                        {"query": "transmitter fund total"},
                    ),
                    ("tool_return_message", "Last total: $3,900 of $8,000.", "search_memory", None),
                ]
            parts += [
                (
                    "tool_call_message",
                    "send_message",
                    "send_message",
                    {"channel": row["channel"], "text": row["text"]},
                ),
                ("tool_return_message", "Sent.", "send_message", None),
                ("assistant_message", "Posted my reply.", None, None),
            ]
            for k, (kind, content, tool, tool_input) in enumerate(parts):
                run_messages.append(
                    {
                        "id": uid("rm", rid, k),
                        "run_id": rid,
                        "step_id": sid,
                        "message_type": kind,
                        "content": content,
                        "tool_name": tool,
                        "tool_input": tool_input,
                        "created_at": start + timedelta(seconds=2 * k),
                    }
                )
    return messages, runs, steps, run_messages


def evaluations(chats: Sequence[tk.ChatRun]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """One evaluation run per agent, week and dimension (as the-office's scorers make
    them); each score is what the-office stores: the proposition's final score (after
    inversion and hard mode) of the cassette's answers."""
    propositions = tk.load_propositions(HERE / "propositions")
    judge = RecordedJudge(HERE / "cassette.json")
    eval_runs: list[dict[str, Any]] = []
    eval_scores: list[dict[str, Any]] = []
    for week, chat in enumerate(chats, start=1):
        result = tk.score_persona(chat, propositions, judge)
        start = chat.messages["time"].min().replace(hour=0, minute=0, second=0)  # type: ignore[union-attr]
        end = start + timedelta(days=1)
        scores = result.scores.filter(pl.col("window") == 0, pl.col("source") == "judge")
        overall = result.dimensions.filter(pl.col("window") == 0)
        for agent in chat.agent_ids:
            for k, dim in enumerate(DIMENSIONS):
                erid = uid("evaluation", week, agent, dim)
                mine = overall.filter(
                    pl.col("dimension") == dim,
                    (pl.col("agent_id") == agent) | pl.col("agent_id").is_null(),
                )
                at = end + timedelta(hours=2, minutes=k)
                eval_runs.append(
                    {
                        "id": erid,
                        "agent_id": agent,
                        "status": "completed",
                        "dimensions": [dim],
                        "window_start": start,
                        "window_end": end,
                        "sample_size": chat.messages.filter(pl.col("agent_id") == agent).height,
                        "overall_score": round(float(mine["score"][0]), 3),
                        "is_baseline": week == 1,
                        "token_usage": {"input_tokens": 8200, "output_tokens": 1040},
                        "experiment_id": None,
                        "created_at": at,
                        "completed_at": at + timedelta(seconds=40),
                    }
                )
                rows = scores.filter(
                    pl.col("dimension") == dim,
                    (pl.col("agent_id") == agent) | pl.col("agent_id").is_null(),
                )
                for r in rows.iter_rows(named=True):
                    eval_scores.append(
                        {
                            "id": uid("score", erid, r["proposition"]),
                            "evaluation_run_id": erid,
                            "dimension": dim,
                            "proposition_id": r["proposition"],
                            "score": float(r["score"]),
                            "reasoning": r["reasoning"],
                            "context_snippet": None,
                            "created_at": at + timedelta(seconds=30),
                        }
                    )
    return eval_runs, eval_scores


def corrections() -> list[dict[str, Any]]:
    """Two-stage correction logs: every stage and every outcome at least once."""
    base = datetime.fromisoformat("2026-11-09T18:20:00+00:00")
    plans = [  # (agent, channel, original, final, [(stage, outcome, scores, similarity)])
        (
            "priya",
            "fundraiser",
            "Sponsors: 7 of 12 signed. Deadline Friday.",
            "Sponsors: 7 of 12 signed. Deadline Friday.",
            [("original", "passed", (9, 9, 8, 9), None)],
        ),
        (
            "lenny",
            "fundraiser",
            "Per my last message, let's circle back on deliverables.",
            "My friend, let's get back to that jukebox of ideas, one song at a time.",
            [
                ("original", "regeneration_requested", (2, 4, 7, 6), None),
                ("regeneration", "regeneration_success", (8, 8, 8, 8), 0.31),
            ],
        ),
        (
            "lenny",
            "studio",
            "Action item: align on synergies.",
            "Like Sam Cooke said, a change is gonna come; let's plug that cable in.",
            [
                ("original", "regeneration_requested", (1, 3, 7, 6), None),
                ("regeneration", "regeneration_requested", (3, 4, 7, 6), 0.88),
                ("direct_correction", "direct_correction_success", (7, 7, 8, 8), 0.42),
            ],
        ),
        (
            "lenny",
            "fundraiser",
            "Agreed. Agreed. Let's leverage the pledge funnel.",
            "Agreed. Agreed. Let's leverage the pledge funnel.",
            [
                ("original", "regeneration_requested", (2, 3, 6, 5), None),
                ("regeneration", "forced_through", (3, 3, 6, 5), 0.95),
            ],
        ),
        (
            "otis",
            "studio",
            "Fuse is fine.",
            "Fuse is fine.",
            [("original", "timeout_pass_through", (None, None, None, None), None)],
        ),
    ]
    rows = []
    names = ("persona_adherence", "self_consistency", "fluency", "suitability")
    for i, (agent, channel, original, final, attempts) in enumerate(plans):
        for n, (stage, outcome, scores, similarity) in enumerate(attempts, start=1):
            dims = [
                {
                    "dimension": d,
                    "score": s,
                    "passed": None if s is None else s >= 7,
                    "reasoning": "timed out" if s is None else f"{d} {s}/9",
                }
                for d, s in zip(names, scores, strict=True)
            ]
            total = sum(s for s in scores if s is not None)
            at = base + timedelta(minutes=7 * i, seconds=15 * n)
            rows.append(
                {
                    "id": uid("correction", i, n),
                    "agent_id": agent,
                    "run_id": None,
                    "channel_id": f"ch-{channel}",
                    "original_text": original,
                    "final_text": final if n == len(attempts) else original,
                    "stage": stage,
                    "attempt_number": n,
                    "outcome": outcome,
                    "dimension_scores": dims,
                    "similarity_score": similarity,
                    "total_score": float(total),
                    "token_usage": {"input_tokens": 900, "output_tokens": 120},
                    "duration_ms": 30000 if outcome == "timeout_pass_through" else 1400 + 100 * n,
                    "created_at": at,
                }
            )
    return rows


def interventions() -> list[dict[str, Any]]:
    """Intervention logs: anti_convergence, variety and custom, fired and not."""
    base = datetime.fromisoformat("2026-11-09T18:30:00+00:00")
    plans = [  # (agent, channel, type, textual precondition, text result, functional, propositional, fired, nudge)
        (
            "lenny",
            "fundraiser",
            "anti_convergence",
            "The agent has agreed with the previous speaker three times in a row",
            True,
            True,
            True,
            True,
            "Say what you disagree with, in your own words.",
        ),
        (
            "priya",
            "fundraiser",
            "anti_convergence",
            "The agent has agreed with the previous speaker three times in a row",
            False,
            True,
            None,
            False,
            None,
        ),
        ("mags", "studio", "anti_convergence", None, None, False, None, False, None),
        (
            "lenny",
            "studio",
            "variety",
            "The agent's last three messages open the same way",
            True,
            True,
            True,
            True,
            "Open with something new: a song, a story, a question.",
        ),
        (
            "otis",
            "studio",
            "variety",
            "The agent's last three messages open the same way",
            False,
            None,
            None,
            False,
            None,
        ),
        (
            "mags",
            "fundraiser",
            "custom",
            "The conversation has gone twenty minutes without a concrete fundraising idea",
            True,
            None,
            True,
            True,
            "Propose one concrete way to raise money tonight.",
        ),
        (
            "priya",
            "studio",
            "custom",
            "The conversation has gone twenty minutes without a concrete fundraising idea",
            True,
            None,
            False,
            False,
            None,
        ),
    ]
    return [
        {
            "id": uid("intervention", i),
            "agent_id": agent,
            "channel_id": f"ch-{channel}",
            "intervention_type": kind,
            "textual_precondition": text,
            "textual_precondition_result": text_result,
            "functional_precondition_result": functional,
            "propositional_precondition_result": propositional,
            "fired": fired,
            "nudge_text": nudge,
            "token_usage": {"input_tokens": 400, "output_tokens": 30},
            "created_at": base + timedelta(minutes=3 * i),
        }
        for i, (
            agent,
            channel,
            kind,
            text,
            text_result,
            functional,
            propositional,
            fired,
            nudge,
        ) in enumerate(plans)
    ]


#: Per-agent experiment scores (adherence, consistency, fluency, convergence, ideas):
#: the gate treatment raises adherence and consistency, costs a little fluency.
EXPERIMENT_SCORES: dict[str, tuple[float, float, float, float, float]] = {
    "lantern-1": (8.0, 8.0, 6.0, 6.0, 3.0),
    "lantern-2": (7.0, 8.0, 7.0, 6.0, 2.0),
    "lantern-3": (9.0, 7.0, 6.0, 7.0, 4.0),
    "lantern-4": (8.0, 9.0, 6.0, 7.0, 3.0),
    "lantern-5": (5.0, 6.0, 7.0, 5.0, 2.0),
    "lantern-6": (6.0, 5.0, 8.0, 5.0, 1.0),
    "lantern-7": (4.0, 6.0, 7.0, 4.0, 3.0),
    "lantern-8": (6.0, 5.0, 8.0, 5.0, 2.0),
}


def experiment() -> tuple[list[dict[str, Any]], ...]:
    """One experiment: two treatment and two control environments of two agents each."""
    at = datetime.fromisoformat("2026-11-16T10:00:00+00:00")
    exp = {
        "id": str(EXPERIMENT),
        "scenario_id": "lantern-walk-brainstorm",
        "seed": 42,
        "scale": 0.1,
        "mode": "template",
        "status": "completed",
        "population_source": "generated",
        "source_agent_ids": None,
        "config": {
            "treatment": {"correction_gate": True},
            "control": {"correction_gate": False},
            "turns": 12,
        },
        "report": {"scenario": "lantern-walk-brainstorm", "agentsCount": 8, "environmentsCount": 4},
        "agent_count": 8,
        "environment_count": 4,
        "created_at": at,
        "completed_at": at + timedelta(hours=1),
    }
    channels, envs, eval_runs, eval_scores = [], [], [], []
    for index in range(4):
        group = "treatment" if index < 2 else "control"
        channel = f"ch-lantern-{index + 1}"
        agents = [f"lantern-{2 * index + 1}", f"lantern-{2 * index + 2}"]
        channels.append(
            {
                "id": channel,
                "name": f"lantern-{index + 1}",
                "kind": "public",
                "topic": "Lantern Walk planning",
                "experiment_id": str(EXPERIMENT),
                "created_at": at,
            }
        )
        envs.append(
            {
                "id": uid("environment", index),
                "experiment_id": str(EXPERIMENT),
                "environment_index": index,
                "group": group,
                "channel_id": channel,
                "agent_ids": agents,
                "trajectory": {"turns": 12},
                "created_at": at,
            }
        )
        for agent in agents:
            erid = uid("experiment-evaluation", agent)
            eval_runs.append(
                {
                    "id": erid,
                    "agent_id": agent,
                    "status": "completed",
                    "dimensions": DIMENSIONS,
                    "window_start": at,
                    "window_end": at + timedelta(hours=1),
                    "sample_size": 12,
                    "overall_score": None,
                    "is_baseline": False,
                    "token_usage": None,
                    "experiment_id": str(EXPERIMENT),
                    "created_at": at + timedelta(hours=1),
                    "completed_at": at + timedelta(hours=1, minutes=2),
                }
            )
            for dim, score in zip(DIMENSIONS, EXPERIMENT_SCORES[agent], strict=True):
                eval_scores.append(
                    {
                        "id": uid("experiment-score", agent, dim),
                        "evaluation_run_id": erid,
                        "dimension": dim,
                        "proposition_id": f"experiment-{EXPERIMENT}-{dim}",
                        "score": score,
                        "reasoning": f"{dim} of {agent} in environment {index}",
                        "context_snippet": None,
                        "created_at": at + timedelta(hours=1, minutes=1),
                    }
                )
    return [exp], channels, envs, eval_runs, eval_scores


def build() -> str:
    chats = week_chats()
    messages, runs, steps, run_messages = conversation(chats)
    channels = [
        {
            "id": "ch-fundraiser",
            "name": "fundraiser",
            "kind": "public",
            "topic": "The new transmitter fund",
            "experiment_id": None,
            "created_at": datetime.fromisoformat("2026-10-01T09:00:00+00:00"),
        },
        {
            "id": "ch-studio",
            "name": "studio",
            "kind": "public",
            "topic": "Studio and equipment",
            "experiment_id": None,
            "created_at": datetime.fromisoformat("2026-10-01T09:00:00+00:00"),
        },
    ]
    eval_runs, eval_scores = evaluations(chats)
    exp, exp_channels, envs, exp_runs, exp_scores = experiment()
    lines = [SCHEMA, "BEGIN;"]
    lines += insert("agents", agent_rows(chats[0]))
    lines += insert("experiments", exp)
    lines += insert("channels", channels + exp_channels)
    lines += insert("messages", messages)
    lines += insert("runs", runs)
    lines += insert("run_steps", steps)
    lines += insert("run_messages", run_messages)
    lines += insert("evaluation_runs", eval_runs + exp_runs)
    lines += insert("evaluation_scores", eval_scores + exp_scores)
    lines += insert("correction_logs", corrections())
    lines += insert("intervention_logs", interventions())
    lines += insert("experiment_environments", envs)
    lines.append("COMMIT;")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> None:
    out = Path(argv[1]) if len(argv) > 1 else HERE / "the-office-postgres.sql"
    out.write_text(build(), encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    from _outputs import output_paths

    out_sql = output_paths(__doc__, ("OUT_SQL", HERE / "the-office-postgres.sql"))[0]
    main([sys.argv[0], str(out_sql)])
