"""The site records of an iteration log: one site run per iteration (the log's
iterations are its items, shared by all), each signal's per-iteration sub-scores as its
evidence rows, and the agent transcripts found beside the runs attached to the
iterations whose session they are."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolkit.errors import InputError, ToolkitError
from toolkit.fleet.families import Found
from toolkit.fleet.view.common import iso, size_of, text
from toolkit.io.edge import read_text
from toolkit.io.source import Source, open_source
from toolkit.load.iterlog import IterationLog, load_iteration_log
from toolkit.load.outcome_evidence import collect_outcome_evidence
from toolkit.rubrics.outcome import load_outcome_rubric, score_outcome
from toolkit.views.site import EvidenceRow, SiteItem, SiteRun
from toolkit.views.site.raw import raw_record


def outcome_runs(
    f: Found,
    storage_options: Mapping[str, Any] | None,
    agent_logs: Mapping[str, str] | None = None,
    attached: set[str] | None = None,
    repo: str | Path | None = None,
) -> list[SiteRun]:
    """The iterations of one log, each a site run sharing the log's timeline; an
    iteration whose ``agent.session_id`` names one of ``agent_logs`` (session id -> path of
    the agent's transcript found beside the runs) shows that path, which is added to
    ``attached``, and the log is scored with the folders of those transcripts (as
    ``toolkit outcome LOG --transcripts FOLDER``), and with ``repo`` as ``--repo``."""
    log = load_iteration_log(f.path, storage_options=storage_options)
    if log.iterations.is_empty():
        raise InputError(f.path, "no iteration could be loaded")
    gathered = collect_outcome_evidence(
        log, repo=repo, transcripts=_transcript_folders(log, agent_logs)
    )
    result = score_outcome(log, gathered, load_outcome_rubric(None))
    cards = result.scorecards()
    status = {
        (int(c.meta["iteration"]), str(r["dimension"])): str(r["status"])
        for c in cards
        for r in c.dimensions.iter_rows(named=True)
    }
    items, sources = _iteration_items(log, agent_logs or {}, attached)
    where = open_source(f.path, storage_options)
    by_signal: dict[str, list[dict[str, Any]]] = {}
    for r in result.breakdown.sort("iteration").iter_rows(named=True):
        by_signal.setdefault(str(r["signal"]), []).append(r)
    dates = {int(r["iteration"]): r["date"] for r in log.iterations.iter_rows(named=True)}
    runs = []
    for card in cards:
        n = int(card.meta["iteration"])
        src = _shown_source(where, sources.get(n) or f.path)
        runs.append(
            SiteRun(
                id=f"{f.id}/{card.subject}",
                family="outcome",
                card=card,
                items=items,
                evidence=_iteration_evidence(n, by_signal, status),
                source=src,
                size=size_of(src) if src and src != f.path else None,
                time=iso(dates.get(n)),
                transcript=f.path,  # the log's iterations: one transcript for all its rows
            )
        )
    return runs


def _transcript_folders(log: IterationLog, agent_logs: Mapping[str, str] | None) -> list[str]:
    """The agent transcripts found beside the runs whose session an iteration names are
    read as `toolkit outcome LOG --transcripts FOLDER` reads them (local folders only)."""
    sessions = {text(s).lower() for s in log.iterations["agent_session_id"].to_list()}
    return sorted({str(Path(path).parent) for session, path in (agent_logs or {}).items()
                   if session in sessions and open_source(path).disk is not None})  # fmt: skip


def _iteration_items(
    log: IterationLog, agent_logs: Mapping[str, str], attached: set[str] | None
) -> tuple[tuple[SiteItem, ...], dict[int, str]]:
    """Each iteration as an item of the log's timeline, and each one's source file; the
    agent transcripts of their sessions are added to ``attached``."""
    items = []
    sources: dict[int, str] = {}
    for it in log.iterations.iter_rows(named=True):
        n = int(it["iteration"])
        sources[n] = text(it["source_file"])
        transcript = agent_logs.get(text(it["agent_session_id"]).lower(), "")
        if transcript and attached is not None:
            attached.add(transcript)
        facts = [
            ("task", text(it["task_id"])),
            ("date", text(it["date"])),
            ("commit", text(it["commit"])),
            ("scope", text(it["impl_scope_note"])),
            ("retries", text(it["impl_retries"])),
            ("tests added", text(it["impl_tests_added"])),
            ("review", text(it["review_overall_decision"])),
            ("file", sources[n]),
            ("agent transcript", transcript),
        ]
        items.append(
            SiteItem(
                key=f"iter-{n}",
                label=f"iteration {n}",
                who=text(it["agent_model"] or it["agent_harness"]),
                text=text(it["impl_summary"]),
                facts=tuple((k, v) for k, v in facts if v),
                raw=raw_record(it, sources[n], _original(sources[n])),
            )
        )
    return tuple(items), sources


#: The largest iteration file whose text is kept beside its raw record (bytes).
ORIGINAL_MAX_BYTES = 64 * 1024


def _original(path: str) -> str | None:
    """The text of an iteration's own file (an ``iter-N.yaml``: small, one per iteration,
    so cheap), when it is a local file of at most :data:`ORIGINAL_MAX_BYTES`."""
    size = size_of(path) if path and open_source(path).disk is not None else None
    if size is None or size > ORIGINAL_MAX_BYTES:
        return None
    try:
        return read_text(path)
    except ToolkitError:
        return None


def _iteration_evidence(
    n: int, by_signal: Mapping[str, list[dict[str, Any]]], status: Mapping[tuple[int, str], str]
) -> dict[str, tuple[EvidenceRow, ...]]:
    """Every signal's sub-score of each iteration, as the rows of iteration ``n``'s run
    (its own row says its weight and what it adds)."""
    return {
        signal: tuple(
            EvidenceRow(
                label=f"iteration {r['iteration']}",
                value=r["sub_score"],
                status=status.get((int(r["iteration"]), signal)),
                note=text(r["detail"])
                + (
                    f" (weight {r['effective_weight']:.2f}, adds {r['contribution']:.3f})"
                    if r["iteration"] == n and r["present"]
                    else ""
                ),
                item=f"iter-{r['iteration']}",
            )
            for r in rows
        )
        for signal, rows in by_signal.items()
    }


def _shown_source(log: Source, src: str) -> str:
    """An iteration's source file as the site names it: the URL of the object when the
    log is in object storage (the loader names objects by their path in the storage)."""
    if log.disk is None and open_source(src).disk is not None:
        return log.url(src)
    return src
