"""A persona result as the-office's evaluation harness reports it.

the-office's CI runs its harness (``npm run eval:run``) and reads its JSON document
(``summary.failed``) and the PR comment made from it. :func:`office_harness_report` builds
that document from a :class:`~toolkit.rubrics.persona.PersonaResult`, with the harness's
own rules:

* a dimension passes when its score is at least ``threshold`` (5.0);
* ``overall`` is the mean of the agent's scored 0-9 dimensions (0 when none);
* ``ideas_quantity`` is ``{count}`` and never decides a pass;
* against a golden baseline, ``baselineDelta`` holds ``current - baseline`` for every
  scored dimension the baseline has, and a dimension more than ``regression_delta``
  below it is a regression, which fails the agent;
* with ``update_baseline`` nothing is compared (the harness writes the baselines and
  stops there).

Where the toolkit has no number the harness would invent one; here it is left out and
said: an absent dimension (no message in the window, no usable judge answer) is not in
``dimensions`` (the PR comment shows "—"), an absent proposition not in
``propositionScores``, and each is returned in :attr:`OfficeReport.absent`. An agent
with no 0-9 dimension scored fails (nothing was measured).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import polars as pl

from toolkit.errors import InputError
from toolkit.load.persona import Baseline, ChatRun
from toolkit.rubrics.persona.result import PersonaResult
from toolkit.rubrics.persona.spec import ENVIRONMENT
from toolkit.summary import Shows, Summary

#: The harness's dimensions, in its order (``--dimensions`` accepts only these).
OFFICE_DIMENSIONS = ("adherence", "consistency", "fluency", "convergence", "ideas_quantity")
#: The harness's count dimension: ``{count}``, never a pass or fail.
OFFICE_COUNT_DIMENSION = "ideas_quantity"
#: The harness's defaults.
OFFICE_THRESHOLD = 5.0
OFFICE_REGRESSION_DELTA = 1.0
OFFICE_WINDOW = "7d"

_WINDOW = re.compile(r"^(\d+)([dhw])$")


@dataclass(frozen=True, repr=False)
class OfficeReport(Shows):
    """The harness's document and what the toolkit could not put in it.

    Attributes:
        document: ``{timestamp, agents: {<agent>: {overall, pass, dimensions,
            baselineDelta?, regressions?}}, summary: {total, passed, failed,
            failedAgents}}``, keys in the harness's order.
        absent: one sentence per dimension or agent left out, with the reason.
    """

    document: dict[str, Any]
    absent: tuple[str, ...] = field(default=())

    def _summary(self) -> Summary:
        summary = self.document["summary"]
        return Summary(
            "OfficeReport",
            f"{summary['passed']}/{summary['total']} agents passed "
            f"(the-office harness report, {self.document['timestamp']})",
            tuple((f"{a}:", "PASS" if r["pass"] else "FAIL")
                  for a, r in self.document["agents"].items()),
            notes=self.absent,
            notes_title="left out",
        )  # fmt: skip

    @property
    def failed(self) -> int:
        """``summary.failed``: what the-office's CI reads."""
        return int(self.document["summary"]["failed"])


def parse_office_window(text: str) -> timedelta:
    """``7d``, ``12h``, ``2w`` as a duration (the harness's ``--window`` grammar).

    Raises:
        InputError: any other text.
    """
    match = _WINDOW.match(text.strip())
    if not match:
        raise InputError(
            None, "expected a number and d, h or w (7d, 12h, 2w)", field="--window", value=text
        )
    amount, unit = int(match.group(1)), match.group(2)
    return (
        timedelta(hours=amount)
        if unit == "h"
        else timedelta(days=amount * (7 if unit == "w" else 1))
    )


def office_dimensions(text: str) -> list[str]:
    """``--dimensions a,b`` as a list of the harness's dimension names.

    Raises:
        InputError: a name the harness does not know (one line naming it and the valid ones).
    """
    names = [part.strip() for part in text.split(",") if part.strip()]
    for name in names:
        if name not in OFFICE_DIMENSIONS:
            raise InputError(
                None, f"not a dimension (valid: {', '.join(OFFICE_DIMENSIONS)})",
                field="--dimensions", value=name,
            )  # fmt: skip
    if not names:
        raise InputError(None, "names no dimension", field="--dimensions", value=text)
    return names


def within_window(run: ChatRun, window: timedelta) -> tuple[ChatRun, str | None]:
    """``run`` with only the messages of the last ``window`` before its latest message.

    The harness reads the messages of the last ``window`` before *now* from its database;
    a saved run is read after the fact, so the window ends at the run's latest message.
    Messages without a time are kept (they cannot be placed), with a note.

    Returns:
        The run (its messages filtered) and a note for the reader, or None.
    """
    times = run.messages["time"]
    if times.null_count() == run.messages.height:
        return run, f"no message has a time: the --window {_shown(window)} cannot apply"
    end = times.max()
    assert isinstance(end, datetime)
    start = end - window
    keep = pl.col("time").is_null() | (pl.col("time") >= start)
    kept = run.messages.filter(keep)
    dropped = run.messages.height - kept.height
    untimed = kept["time"].null_count()
    notes = []
    if dropped:
        notes.append(f"{dropped} message(s) before {start.isoformat()} left out by --window")
    if untimed:
        notes.append(f"{untimed} message(s) without a time kept")
    trimmed = ChatRun(
        run=run.run, messages=kept, personas=run.personas, source=run.source,
        form=run.form, warnings=run.warnings,
    )  # fmt: skip
    return trimmed, "; ".join(notes) or None


def _shown(window: timedelta) -> str:
    hours = int(window.total_seconds() // 3600)
    return f"{hours // 24}d" if hours % 24 == 0 else f"{hours}h"


def office_harness_report(
    result: PersonaResult,
    baselines: Mapping[str, Baseline] | None = None,
    *,
    dimensions: Sequence[str] | None = None,
    threshold: float = OFFICE_THRESHOLD,
    regression_delta: float = OFFICE_REGRESSION_DELTA,
    update_baseline: bool = False,
    timestamp: datetime | None = None,
) -> OfficeReport:
    """The harness's JSON document of a persona result (see the module docstring).

    Args:
        result: :func:`toolkit.score_persona` output.
        baselines: golden baselines by agent id (None: no comparison).
        dimensions: the dimensions to report, in order (default: the harness's order of
            those the result has).
        threshold: a 0-9 dimension passes at this score or above.
        regression_delta: a dimension more than this below its baseline regressed.
        update_baseline: the baselines are being rewritten: no comparison.
        timestamp: the report's time (default: now), written as ``toISOString`` does.
    """
    view = result.agent_view()
    present = view["dimension"].unique().to_list()
    order = list(dimensions) if dimensions is not None else [
        d for d in OFFICE_DIMENSIONS if d in present
    ] + sorted(d for d in present if d not in OFFICE_DIMENSIONS)  # fmt: skip
    props = result.scores.filter((pl.col("window") == 0) & pl.col("score").is_not_null())
    agents: dict[str, Any] = {}
    absent: list[str] = []
    for agent_id in [a for a in result.scorecards if a != ENVIRONMENT]:
        mine = view.filter(pl.col("agent_id") == agent_id)
        scores = dict(zip(mine["dimension"].to_list(), mine["score"].to_list(), strict=True))
        agent = _agent(agent_id, order, scores, props, threshold, absent)
        if baselines is not None and not update_baseline and agent_id in baselines:
            _compare(agent, baselines[agent_id], regression_delta)
        agents[agent_id] = agent
    failed = [a for a, r in agents.items() if not r["pass"]]
    stamp = (timestamp or datetime.now(UTC)).astimezone(UTC)
    document = {
        "timestamp": stamp.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "agents": agents,
        "summary": {
            "total": len(agents),
            "passed": len(agents) - len(failed),
            "failed": len(failed),
            "failedAgents": failed,
        },
    }
    return OfficeReport(document, tuple(absent))


def _agent(
    agent_id: str,
    order: Sequence[str],
    scores: Mapping[str, float | None],
    props: pl.DataFrame,
    threshold: float,
    absent: list[str],
) -> dict[str, Any]:
    """One agent's ``{overall, pass, dimensions}``; absent dimensions named in ``absent``."""
    dims: dict[str, Any] = {}
    for dim in order:
        value = scores.get(dim)
        if value is None:
            absent.append(f"{agent_id}: {dim} not scored (left out of the report)")
            continue
        if dim == OFFICE_COUNT_DIMENSION:
            dims[dim] = {"count": value}
            continue
        own = props.filter(
            (pl.col("dimension") == dim)
            & ((pl.col("agent_id") == agent_id) | pl.col("agent_id").is_null())
        )
        dims[dim] = {
            "score": value,
            "pass": value >= threshold,
            "propositionScores": dict(zip(own["proposition"], own["score"], strict=True)),
        }
    scored = [d["score"] for d in dims.values() if "score" in d]
    passed = all(d["pass"] for d in dims.values() if "pass" in d)
    if not scored and any(d != OFFICE_COUNT_DIMENSION for d in order):
        passed = False
        absent.append(f"{agent_id}: no 0-9 dimension scored, so it fails (nothing was measured)")
    return {
        "overall": sum(scored) / len(scored) if scored else 0,
        "pass": passed,
        "dimensions": dims,
    }


def _compare(agent: dict[str, Any], baseline: Baseline, regression_delta: float) -> None:
    """Add ``baselineDelta`` and, when any, ``regressions`` (failing the agent) in place."""
    current = {d: v["score"] for d, v in agent["dimensions"].items() if "score" in v}
    agent["baselineDelta"] = {
        d: v - baseline.dimensions[d] for d, v in current.items() if d in baseline.dimensions
    }
    regressions = [
        {"dimension": d, "baseline": b, "current": current[d], "delta": current[d] - b}
        for d, b in baseline.dimensions.items()
        if d in current and current[d] - b < -regression_delta
    ]
    if regressions:
        agent["regressions"] = regressions
        agent["pass"] = False


def office_baselines(report: OfficeReport) -> list[Baseline]:
    """What the harness's ``--update-baseline`` saves: per agent, its scored 0-9
    dimensions and the proposition scores behind them, stamped with the report's time."""
    stamp = datetime.fromisoformat(report.document["timestamp"].replace("Z", "+00:00"))
    out = []
    for agent_id, agent in report.document["agents"].items():
        dims = {d: v for d, v in agent["dimensions"].items() if "score" in v}
        out.append(
            Baseline(
                agent_id=agent_id,
                captured_at=stamp,
                dimensions={d: round(float(v["score"]), 6) for d, v in dims.items()},
                proposition_scores={
                    p: float(s) for v in dims.values() for p, s in v["propositionScores"].items()
                },
            )
        )
    return out
