"""the-office's evaluation harness outputs, from its JSON document
(:func:`toolkit.rubrics.persona.office.office_harness_report`): the document's text as
``JSON.stringify(result, null, 2)`` writes it, the PR comment its CI posts (and finds
again by its first line, an HTML marker) and the summary it prints on stderr.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolkit.io.js_json import js_items, js_json, js_number, js_to_fixed

#: The first line of the PR comment: the-office's bot finds its comment by it.
OFFICE_COMMENT_MARKER = "<!-- persona-evaluation-report -->"


def office_json(document: Mapping[str, Any]) -> str:
    """The harness document as its ``generateJsonReport`` writes it (no final newline)."""
    return js_json(document, indent=2)


def _capitalize(text: str) -> str:
    return text[:1].upper() + text[1:]


def _delta(value: float) -> str:
    """A baseline delta as the comment shows it: ``=`` for none, else signed, 1 decimal."""
    if value == 0:
        return "="
    return ("+" if value > 0 else "") + js_to_fixed(value, 1)


def _cell(agent: Mapping[str, Any], dim: str) -> str:
    d = agent["dimensions"].get(dim)
    if d is None:
        return "—"
    if "count" in d:
        return js_number(d["count"])
    delta = (agent.get("baselineDelta") or {}).get(dim)
    return js_to_fixed(d["score"], 1) + ("" if delta is None else f" ({_delta(delta)})")


def office_pr_comment(document: Mapping[str, Any]) -> str:
    """The PR comment the-office's CI posts: the marker line, the "Persona Evaluation
    Report" heading, a table (Agent | a column per dimension, "score (±delta)" to one
    decimal, the count for ideas, "—" when missing | Overall | Status) and the bold
    result line. Ends with a newline.

    One sentence differs from the harness's on purpose: when agents failed without a
    regression (a score under the threshold) the harness still says "All N agents
    passed."; here the line names how many failed and which.
    """
    agents: Mapping[str, Any] = document["agents"]
    dims = sorted(
        {d for a in agents.values() for d in a["dimensions"]},
        key=lambda s: s.encode("utf-16-be"),  # JavaScript's default sort order
    )
    header = ["Agent", *(_capitalize(d) for d in dims), "Overall", "Status"]
    lines = [OFFICE_COMMENT_MARKER, "## Persona Evaluation Report", ""]
    lines.append(f"| {' | '.join(header)} |")
    lines.append(f"| {' | '.join('---' for _ in header)} |")
    for agent_id, agent in js_items(agents):  # Object.entries' order
        cells = [agent_id, *(_cell(agent, d) for d in dims)]
        cells += [js_to_fixed(agent["overall"], 1), "PASS" if agent["pass"] else "FAIL"]
        lines.append(f"| {' | '.join(cells)} |")
    lines += ["", _result_line(document)]
    return "\n".join(lines) + "\n"


def _result_line(document: Mapping[str, Any]) -> str:
    agents: Mapping[str, Any] = document["agents"]
    summary = document["summary"]
    details = [
        f"{_capitalize(agent_id)}'s {r['dimension']} dropped {js_to_fixed(abs(r['delta']), 1)} "
        f"points ({js_to_fixed(r['baseline'], 1)} → {js_to_fixed(r['current'], 1)})"
        for agent_id, agent in js_items(agents)
        for r in agent.get("regressions") or []
    ]
    if details:
        many = "s" if len(details) > 1 else ""
        return f"**Result**: {len(details)} regression{many} detected. {'. '.join(details)}."
    if summary["failed"]:
        names = ", ".join(summary["failedAgents"])
        return (
            f"**Result**: {summary['failed']} of {summary['total']} agents failed ({names}). "
            "No regressions detected."
        )
    return f"**Result**: All {summary['total']} agents passed. No regressions detected."


def office_summary(document: Mapping[str, Any], absent: tuple[str, ...] = ()) -> str:
    """The lines the harness prints on stderr: one per agent (status, overall, each
    dimension), its baseline deltas and regressions, then the totals; then what the
    toolkit left out of the document and why."""
    lines = ["=== Evaluation Harness Report ===", f"Timestamp: {document['timestamp']}", ""]
    for agent_id, agent in document["agents"].items():
        dims = " | ".join(
            f"{d}: {js_number(v['count'])}"
            if "count" in v
            else f"{d}: {js_to_fixed(v['score'], 1)}"
            for d, v in agent["dimensions"].items()
        )
        status = "PASS" if agent["pass"] else "FAIL"
        lines.append(
            f"  {agent_id:<12} {status:<6} overall: {js_to_fixed(agent['overall'], 1)}  {dims}"
        )
        for r in agent.get("regressions") or []:
            lines.append(
                f"{'':<14}REGRESSION {r['dimension']}: {js_to_fixed(r['baseline'], 2)} -> "
                f"{js_to_fixed(r['current'], 2)} ({js_to_fixed(r['delta'], 2)})"
            )
    summary = document["summary"]
    lines.append(
        f"Summary: {summary['passed']}/{summary['total']} passed, {summary['failed']} failed"
    )
    if summary["failedAgents"]:
        lines.append(f"Failed: {', '.join(summary['failedAgents'])}")
    lines += [f"note: {a}" for a in absent]
    return "\n".join(lines)
