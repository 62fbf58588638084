"""``toolkit view``: find every run, log, game and chat under some folders, score each with
its family's rubric, and hand the site view (:mod:`toolkit.views.site`) plain records.

This module only wires existing parts together (as :mod:`toolkit.cli.quality`,
``outcome --all``, ``discussion`` and ``persona`` do): the simulation loader and rubric
(with per-tick series), the iteration-log loader and outcome rubric, the discussion
loader and rubric, and the persona chat loader and rubric with a recorded judge. The
evidence rows of each dimension come from the frames those rubrics already return;
nothing is re-scored here.

Families are told by :mod:`toolkit.fleet.families` (the detector ``toolkit compare``
uses too):

* ``simulation``: a folder holding ``tick_summaries/`` (one run);
* ``outcome``: a folder holding ``iter-N.yaml`` files (one iteration log; one site row
  per iteration, as the outcome rubric scores iterations);
* ``persona``: ``*.jsonl`` / ``*.run_messages.json`` chat files, scored (one site row
  per agent and one for the environment) when a persona kit (propositions and a judge
  cassette) is beside them or given, else shown with their transcript, unscored;
* ``discussion``: any other ``*.json``, ``*.db`` or ``*.sqlite`` file that loads as games;

and a ``calibration.json`` beside them is the calibration page's result.

A file that looks like a family but does not load is left out with a note (shown above
the site's index and printed by the CLI), never silently. In object storage, the files
read whole from a path (games, chats, kits, a calibration) are copied into a temporary
folder to be loaded (:mod:`toolkit.io.staging`) and named by their URLs.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkit.errors import InputError, ToolkitError
from toolkit.fleet.families import AGENT_TRANSCRIPT, Found, PersonaKit, survey
from toolkit.fleet.families import label as _label

if TYPE_CHECKING:
    import polars as pl

    from toolkit.views.site import EvidenceRow, SiteItem, SiteRun


@dataclass
class Collected:
    """The site's runs, and notes on what was left out or read leniently."""

    runs: list[SiteRun]
    notes: list[str]
    #: A ``toolkit calibrate --format json`` result found beside the runs, and its path.
    calibration: dict[str, Any] | None = None
    calibration_source: str | None = None


def _size(path: str) -> int | None:
    """Bytes under a local file or folder (``None`` for a URL)."""
    from toolkit.io.source import is_remote

    if is_remote(path):
        return None
    p = Path(path)
    if p.is_file():
        return p.stat().st_size
    total = 0
    for folder, _, files in os.walk(p):
        for name in files:
            try:
                total += os.lstat(os.path.join(folder, name)).st_size
            except OSError:
                continue
    return total


def _iso(value: Any) -> str | None:
    if value is None:
        return None
    iso = getattr(value, "isoformat", None)
    return str(iso()) if iso else str(value)


def _text(value: Any) -> str:
    return "" if value is None else str(value)


# ---------------------------------------------------------------------------
# simulation
# ---------------------------------------------------------------------------


def _simulation(
    found: Sequence[Found], storage_options: Mapping[str, Any] | None
) -> Iterator[SiteRun]:
    from toolkit.load.universe import load_runs
    from toolkit.rubrics.simulation import DEFAULT_RUBRIC, score_universe

    # One bulk load per parent folder: sibling run folders have distinct slugs.
    groups: dict[str, list[Found]] = {}
    for f in found:
        groups.setdefault(f.path.rstrip("/").rsplit("/", 1)[0], []).append(f)
    for members in groups.values():
        by_slug = {_label(f.path): f for f in members}
        universe = load_runs([f.path for f in members], storage_options=storage_options)
        for card in score_universe(universe, DEFAULT_RUBRIC, None, series=True):
            where = by_slug.get(card.subject)
            if where is None:
                continue
            ticks = universe.ticks.filter(universe.ticks["slug"] == card.subject)
            yield _simulation_run(where, card, ticks)


def _simulation_run(f: Found, card: Any, ticks: pl.DataFrame) -> SiteRun:
    from toolkit.views.site import EvidenceRow, SiteItem, SiteRun

    items = []
    for t in ticks.sort("tick").iter_rows(named=True):
        text = _text(t["action_text"])
        if t["observation_text"]:
            text += f"\n→ {t['observation_text']}"
        facts = [
            ("mechanic", _text(t["mechanic"])),
            ("status", _text(t["status"])),
            ("refusal", _text(t["refusal_reason"])),
            ("mutations", _text(t["mutation_count"])),
            ("rollback", "yes" if t["rollback"] else ""),
            ("grounded", "" if t["grounded"] is None else ("yes" if t["grounded"] else "no")),
        ]
        items.append(
            SiteItem(
                key=f"tick-{t['tick']}",
                label=f"tick {t['tick']}",
                who=_text(t["actor"]),
                text=text,
                facts=tuple((k, v) for k, v in facts if v),
            )
        )
    evidence: dict[str, tuple[EvidenceRow, ...]] = {}
    if card.series is not None:
        series = card.series.sort("tick")
        for (key,), part in series.group_by("dimension", maintain_order=True):
            evidence[str(key)] = tuple(
                EvidenceRow(
                    label=f"tick {r['tick']}",
                    value=r["value"],
                    status=r["status"],
                    note=f"{r['name']} over the window ending at tick {r['tick']}",
                    item=f"tick-{r['tick']}",
                )
                for r in part.iter_rows(named=True)
            )
    meta = card.meta
    return SiteRun(
        id=f.id,
        family="simulation",
        card=card,
        items=tuple(items),
        evidence=evidence,
        source=f.path,
        size=_size(f.path),
        time=_text(meta.get("ended") or meta.get("started")) or None,
    )


# ---------------------------------------------------------------------------
# outcome
# ---------------------------------------------------------------------------


def _outcome(
    f: Found,
    storage_options: Mapping[str, Any] | None,
    agent_logs: Mapping[str, str] | None = None,
    attached: set[str] | None = None,
) -> list[SiteRun]:
    """The iterations of one log, each a site run sharing the log's timeline; an
    iteration whose ``agent.session_id`` names one of ``agent_logs`` (session id -> path of
    the agent's transcript found beside the runs) shows that path, which is added to
    ``attached``, and the log is scored with the folders of those transcripts (as
    ``toolkit outcome LOG --transcripts FOLDER``)."""
    from toolkit.io.source import is_remote
    from toolkit.load.iterlog import load_iteration_log
    from toolkit.load.outcome_evidence import collect_outcome_evidence
    from toolkit.rubrics.outcome import load_outcome_rubric, score_outcome
    from toolkit.views.site import EvidenceRow, SiteItem, SiteRun

    log = load_iteration_log(f.path, storage_options=storage_options)
    if log.iterations.is_empty():
        raise InputError(f.path, "no iteration could be loaded")
    # The agent transcripts found beside the runs whose session an iteration names are
    # read as `toolkit outcome LOG --transcripts FOLDER` reads them (local folders only).
    sessions = {_text(s).lower() for s in log.iterations["agent_session_id"].to_list()}
    folders = sorted({str(Path(path).parent) for session, path in (agent_logs or {}).items()
                      if session in sessions and not is_remote(path)})  # fmt: skip
    gathered = collect_outcome_evidence(log, transcripts=folders)
    result = score_outcome(log, gathered, load_outcome_rubric(None))
    cards = result.scorecards()
    status = {
        (int(c.meta["iteration"]), str(r["dimension"])): str(r["status"])
        for c in cards
        for r in c.dimensions.iter_rows(named=True)
    }
    items = []
    sources: dict[int, str] = {}
    for it in log.iterations.iter_rows(named=True):
        n = int(it["iteration"])
        sources[n] = _text(it["source_file"])
        session = _text(it["agent_session_id"]).lower()
        transcript = (agent_logs or {}).get(session, "")
        if transcript and attached is not None:
            attached.add(transcript)
        facts = [
            ("task", _text(it["task_id"])),
            ("date", _text(it["date"])),
            ("commit", _text(it["commit"])),
            ("scope", _text(it["impl_scope_note"])),
            ("retries", _text(it["impl_retries"])),
            ("tests added", _text(it["impl_tests_added"])),
            ("review", _text(it["review_overall_decision"])),
            ("file", sources[n]),
            ("agent transcript", transcript),
        ]
        items.append(
            SiteItem(
                key=f"iter-{n}",
                label=f"iteration {n}",
                who=_text(it["agent_model"] or it["agent_harness"]),
                text=_text(it["impl_summary"]),
                facts=tuple((k, v) for k, v in facts if v),
            )
        )
    by_signal: dict[str, list[dict[str, Any]]] = {}
    for r in result.breakdown.sort("iteration").iter_rows(named=True):
        by_signal.setdefault(str(r["signal"]), []).append(r)
    dates = {int(r["iteration"]): r["date"] for r in log.iterations.iter_rows(named=True)}
    runs = []
    for card in cards:
        n = int(card.meta["iteration"])
        evidence = {
            signal: tuple(
                EvidenceRow(
                    label=f"iteration {r['iteration']}",
                    value=r["sub_score"],
                    status=status.get((int(r["iteration"]), signal)),
                    note=_text(r["detail"])
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
        src = sources.get(n) or f.path
        if is_remote(f.path) and not is_remote(src):  # the loader names objects without scheme
            src = f"{f.path.split('://', 1)[0]}://{src}"
        runs.append(
            SiteRun(
                id=f"{f.id}/{card.subject}",
                family="outcome",
                card=card,
                items=tuple(items),
                evidence=evidence,
                source=src,
                size=_size(src) if src and src != f.path else None,
                time=_iso(dates.get(n)),
                transcript=f.path,  # the log's iterations: one transcript for all its rows
            )
        )
    return runs


# ---------------------------------------------------------------------------
# discussion
# ---------------------------------------------------------------------------


def _discussion(f: Found) -> list[SiteRun]:
    import polars as pl

    from toolkit.load.discussion import load_discussions
    from toolkit.rubrics.discussion import score_discussion
    from toolkit.views.site import SiteItem, SiteRun

    discussion = load_discussions([f.path])
    if not discussion.game_ids:
        raise InputError(f.path, "no game in it")
    report = score_discussion(discussion)
    ev = report.evidence
    games = {r["game_id"]: r for r in discussion.games.iter_rows(named=True)}
    runs = []
    single = len(discussion.game_ids) == 1
    for card in report.scorecards:
        game = card.subject
        msgs = ev.messages.filter(pl.col("game_id") == game).sort("turn")
        items = tuple(
            SiteItem(
                key=f"t{m['turn']}",
                label=f"turn {m['turn']} · round {m['round']}",
                who=_text(m["speaker"]) + (f" ({m['role']})" if m["role"] else ""),
                text=_text(m["text"]),
            )
            for m in msgs.iter_rows(named=True)
        )
        info = games.get(game, {})
        runs.append(
            SiteRun(
                id=f.id if single else f"{f.id}/{game}",
                family="discussion",
                card=card,
                items=items,
                evidence=_discussion_evidence(ev, game, msgs),
                source=f.path,
                size=_size(f.path),
                time=_iso(info.get("created_at")),
            )
        )
    return runs


def _discussion_evidence(
    ev: Any, game: str, msgs: pl.DataFrame
) -> dict[str, tuple[EvidenceRow, ...]]:
    """Each discussion dimension's rows, from the frames the rubric returned."""
    import polars as pl

    from toolkit.views.site import EvidenceRow

    def per_message(flag: str, reason: str | None, good: bool) -> tuple[EvidenceRow, ...]:
        """One row per message: its own PASS/FAIL, and as value the share of messages
        that passed so far (so the last row is the dimension's value over all messages)."""
        rows, passed, counted = [], 0, 0
        for m in msgs.iter_rows(named=True):
            ok = None if m[flag] is None else bool(m[flag]) == good
            if ok is not None:
                counted += 1
                passed += ok
            why = _text(m[reason]) if reason else ""
            rows.append(
                EvidenceRow(
                    label=f"turn {m['turn']} · {m['speaker']}",
                    value=passed / counted if counted else None,
                    status=None if ok is None else ("PASS" if ok else "FAIL"),
                    note=f"{why} · {passed}/{counted} passed so far" if why else
                    f"{passed}/{counted} passed so far",
                    item=f"t{m['turn']}",
                    said=why,
                )
            )  # fmt: skip
        return tuple(rows)

    refs = ev.references.filter(pl.col("game_id") == game)
    sims = ev.similarity.filter(pl.col("game_id") == game)
    phrases = ev.phrases.filter((pl.col("game_id") == game) & (pl.col("repeats") > 0))
    ratings = ev.ratings.filter(pl.col("game_id") == game)
    keywords = {
        m["turn"]: ", ".join(m["strategic_keywords"] or []) for m in msgs.iter_rows(named=True)
    }
    strategic = per_message("strategic", None, True)
    strategic = tuple(
        EvidenceRow(
            e.label, e.value, e.status, f"{keywords.get(int(e.item[1:])) or 'no'} cue(s) · "
            + e.note, e.item,
        )
        for e in strategic
        if e.item
    )  # fmt: skip
    return {
        "strategic_depth": strategic,
        "coherence": per_message("coherent", "coherence_reason", True),
        "role_consistency": per_message("role_break", "role_break_reason", False),
        "memory_accuracy": tuple(
            EvidenceRow(
                label=f"turn {r['turn']} · {r['speaker']}",
                value=1.0 if r["verdict"] == "accurate" else 0.0,
                status="PASS" if r["verdict"] == "accurate" else "FAIL",
                note=f"{_text(r['sentence'])} — {_text(r['reason'])}",
                item=f"t{r['turn']}",
                said=_text(r["reason"]),
            )
            for r in refs.iter_rows(named=True)
        ),
        "personality_diversity": tuple(
            EvidenceRow(
                label=f"{r['speaker']} ~ {r['other']}",
                value=r["similarity"],
                note="similarity of their messages",
            )
            for r in sims.iter_rows(named=True)
        ),
        "anti_repetition": tuple(
            EvidenceRow(
                label=f"turn {r['turns'][0]} · {r['speaker']}",
                value=float(r["repeats"]),
                note=f"“{r['phrase']}” used {r['uses']} times (turns "
                + ", ".join(str(t) for t in r["turns"])
                + ")",
                item=f"t{r['turns'][0]}",
            )
            for r in phrases.iter_rows(named=True)
        ),
        "engagement": tuple(
            EvidenceRow(label=f"rater {r['rater']}", value=r["score"], note="engagement rating")
            for r in ratings.iter_rows(named=True)
        ),
    }


# ---------------------------------------------------------------------------
# persona: scored with a kit's recorded judge, else shown unscored
# ---------------------------------------------------------------------------

PERSONA_NOTE = (
    "not scored here: no persona kit (propositions/ and cassette.json) beside the chat "
    "and none given (--propositions DIR --cassette FILE); the persona rubric judges each "
    "agent against propositions. The transcript is shown"
)


def _persona_items(chat: Any) -> tuple[SiteItem, ...]:
    """The chat's messages, in file order, keyed by their step (``s12``; a step seen
    again gets ``~2``...), as the anchors of calibration items name them."""
    from toolkit.views.site import SiteItem

    seen: dict[str, int] = {}
    items = []
    for i, m in enumerate(chat.messages.iter_rows(named=True)):
        key = f"s{m['step']}"
        seen[key] = seen.get(key, 0) + 1
        items.append(
            SiteItem(
                key=key if seen[key] == 1 else f"{key}~{seen[key]}",
                label=f"step {m['step']}" + ("" if seen[key] == 1 else f" (again, message {i})"),
                who=_text(m["agent_name"] or m["agent_id"]),
                text=_text(m["text"]),
                facts=tuple(
                    (k, _text(m[c]))
                    for k, c in (("kind", "kind"), ("channel", "channel"), ("to", "recipient_id"))
                    if m[c]
                ),
            )
        )
    return tuple(items)


def _persona(f: Found, kit: PersonaKit | None, cache: dict[str, Any]) -> tuple[list[SiteRun], str]:
    """The chat's runs: one per agent and one for the environment when ``kit`` scores it,
    else the chat unscored; and a note when a kit was there but could not score it."""
    from toolkit.load.persona import load_chat
    from toolkit.views.site import SiteRun

    chat = load_chat(f.path, personas=kit.personas if kit else None)
    items = _persona_items(chat)
    times = [m for m in chat.messages["time"].to_list() if m is not None]
    common: dict[str, Any] = {
        "items": items, "source": f.path, "size": _size(f.path),
        "time": _iso(times[0]) if times else None,
    }  # fmt: skip
    note, why = PERSONA_NOTE, ""
    if kit is not None:
        try:
            return _persona_scored(f, chat, kit, cache, common), ""
        except ToolkitError as err:
            note = (
                f"not scored: the persona kit could not score this chat ({err}); "
                "the transcript is shown"
            )
            why = f"persona chat shown unscored: {f.id}: {err}"
    return [SiteRun(id=f.id, family="persona", card=None, note=note, **common)], why


def _persona_scored(
    f: Found, chat: Any, kit: PersonaKit, cache: dict[str, Any], common: dict[str, Any]
) -> list[SiteRun]:
    """Score ``chat`` with the kit's propositions and recorded judge (never a live call):
    one site run per scorecard, each proposition an evidence row with the judge's
    reasoning, linked to the messages it was judged on."""
    import polars as pl

    from toolkit.judge.recorded import RecordedJudge
    from toolkit.load.persona import load_baselines, load_propositions
    from toolkit.rubrics.persona import DEFAULT_PERSONA_RUBRIC, ENVIRONMENT, score_persona
    from toolkit.views.site import SiteRun

    key = kit.cassette
    if key not in cache:
        cache[key] = (
            load_propositions(kit.propositions),
            RecordedJudge(kit.cassette),
            load_baselines(kit.baselines) if kit.baselines else None,
        )
    propositions, judge, baselines = cache[key]
    rubric = DEFAULT_PERSONA_RUBRIC
    result = score_persona(chat, propositions, judge, rubric=rubric, baselines=baselines,
                           progress=False)  # fmt: skip
    windows = _persona_windows(chat, propositions, rubric)
    scores = result.scores.filter(pl.col("window") == 0)
    runs = []
    for subject, card in result.scorecards.items():
        agent = None if subject == ENVIRONMENT else subject
        mine = scores.filter(
            pl.col("agent_id").is_null() if agent is None else pl.col("agent_id") == agent
        )
        evidence: dict[str, tuple[EvidenceRow, ...]] = {}
        for (dimension,), part in mine.group_by("dimension", maintain_order=True):
            evidence[str(dimension)] = tuple(
                _proposition_row(r, windows.get((agent, str(dimension), r["proposition"])))
                for r in part.iter_rows(named=True)
            )
        runs.append(
            SiteRun(id=f"{f.id}/{subject}", family="persona", card=card, evidence=evidence,
                    series=False, transcript=f.path, **common)
        )  # fmt: skip
    return runs


def _persona_windows(
    chat: Any, propositions: Any, rubric: Any
) -> dict[tuple[str | None, str, str], tuple[str, int]]:
    """For each (agent, dimension, proposition): the steps the judge read, as an anchor
    (``s1-s5,s30-s52``: runs of consecutive rows of the trajectory) and how many
    messages, from the rubric's own trajectory and window functions."""
    from toolkit.rubrics.persona import (
        ENVIRONMENT,
        file_window,
        steps_anchor,
        trajectory_rows,
        window_rows,
    )

    out: dict[tuple[str | None, str, str], tuple[str, int]] = {}
    for dimension in propositions.dimensions:
        subjects: list[str | None] = (
            [None] if propositions.target_of(dimension) == ENVIRONMENT else list(chat.agent_ids)
        )
        for agent in subjects:
            name = chat.name_of(agent) if agent is not None else ENVIRONMENT
            rows = trajectory_rows(chat.messages, agent, name)
            for pfile in propositions.files_for(dimension, agent):
                shown = window_rows(rows, *file_window(pfile, rubric))
                if not shown.height:
                    continue
                span = (steps_anchor(rows["step"].to_list(), set(shown["step"].to_list())),
                        shown.height)  # fmt: skip
                for prop in pfile.spec.propositions:
                    out[(agent, dimension, prop.id)] = span
    return out


def _proposition_row(r: dict[str, Any], span: tuple[str, int] | None) -> EvidenceRow:
    """One proposition's row: its score (0-9, after inversion and the hard penalty), the
    claim and the judge's reasoning, linked to the messages the judge read."""
    from toolkit.views.site import EvidenceRow

    how = []
    if r["source"] == "judge":
        how.append(f"judge said {r['raw']}")
    elif r["source"] == "precondition":
        how.append("precondition not met: 9")
    if r["inverted"]:
        how.append("inverted")
    if r["hard"]:
        how.append("hard")
    reasoning = _text(r["reasoning"]) or _text(r["absent_reason"])
    where = "" if span is None else f" · judged on {span[1]} message(s), {span[0]}"
    return EvidenceRow(
        label=str(r["proposition"]),
        value=r["score"],
        status=None if r["score"] is not None else "N/A",
        note=f"{_text(r['claim'])} ({', '.join(how) or 'absent'}){where}"
        + (f" — {reasoning}" if reasoning else ""),
        item=None if span is None else span[0],
        said=reasoning,
    )


# ---------------------------------------------------------------------------
# all together
# ---------------------------------------------------------------------------


def collect(
    sources: Sequence[str | Path],
    storage_options: Mapping[str, Any] | None = None,
    kit: PersonaKit | None = None,
) -> Collected:
    """Find, load and score everything under ``sources`` for the site.

    Args:
        sources: folders, files or fsspec URLs.
        storage_options: fsspec options for the URLs.
        kit: the persona kit for chats that have none of their own (a folder holding
            ``propositions/`` and ``cassette.json`` is the kit of the chats under it).
            Chats are judged only by recorded judges: ``toolkit view`` makes no live call.

    Returns:
        The runs (simulation runs first, then iteration logs, games and chats, each in
        path order) and the notes on what was left out.

    Raises:
        InputError: a source does not exist, or nothing at all was found in them.
    """
    import tempfile

    with tempfile.TemporaryDirectory(prefix="toolkit-view-") as tmp:
        return _collect(sources, storage_options, kit, Path(tmp))


def _collect(
    sources: Sequence[str | Path],
    storage_options: Mapping[str, Any] | None,
    kit: PersonaKit | None,
    tmp: Path,
) -> Collected:
    """:func:`collect`, with games, chats and persona kits of object storage copied into
    ``tmp`` to be loaded (the site and the notes name their URLs)."""
    import warnings
    from dataclasses import replace

    from toolkit.errors import InputWarning
    from toolkit.io.source import is_remote
    from toolkit.io.staging import shown

    found: list[Found] = []
    kits: dict[str, PersonaKit] = {}
    copies: dict[str, str] = {}
    notes: list[str] = []
    for n, source in enumerate(sources):
        here, its_kits = survey(source, storage_options)
        if is_remote(source):
            folder = tmp / f"{n:04d}"
            one = _is_one_object(here, str(source).rstrip("/"))
            here, its_kits = _staged(str(source), here, its_kits, storage_options, folder, notes)
            base = str(source).rstrip("/")
            copies[str(folder)] = base.rsplit("/", 1)[0] if one else base
        found.extend(here)
        kits.update(its_kits)
    if kit is not None and any(is_remote(p) for p in _kit_paths(kit)):
        kit = _staged_kit(kit, storage_options, tmp / "kit", copies)
    judged: dict[str, Any] = {}
    runs: list[SiteRun] = []
    calibration: tuple[dict[str, Any], str] | None = None
    agent_logs = {
        session_of(f.path): f.path for f in found if f.family == AGENT_TRANSCRIPT
    }  # fmt: skip
    attached: set[str] = set()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", InputWarning)
        sims = [f for f in found if f.family == "simulation"]
        if sims:
            try:
                runs.extend(_simulation(sims, storage_options))
            except ToolkitError as err:
                notes.append(f"simulation runs left out: {err}")
        for f in found:
            try:
                if f.family == "outcome":
                    runs.extend(_outcome(f, storage_options, agent_logs, attached))
                elif f.family == "discussion":
                    runs.extend(_discussion(f))
                elif f.family == "persona":
                    chats, why = _persona(f, _kit_for(f.path, kits) or kit, judged)
                    runs.extend(chats)
                    if why:
                        notes.append(why)
                elif f.family == "calibration":
                    doc = load_calibration(f.path)
                    if calibration is None:
                        calibration = (doc, f.path)
                    else:
                        notes.append(f"calibration not shown: {f.path} (the site shows "
                                     f"{calibration[1]}; name one with --calibration)")  # fmt: skip
            except ToolkitError as err:
                notes.append(f"left out as not {_what(f.family)}: {err}")
    for w in caught:
        if issubclass(w.category, InputWarning):
            notes.append(f"read leniently: {w.message}")
    loose = sorted(set(agent_logs.values()) - attached)
    if loose:
        notes.append(
            f"agent transcript(s) not shown: no iteration log of this site names their "
            f"session (agent.session_id): {', '.join(loose)}"
        )
    if copies:
        runs = [replace(r, source=shown(r.source, copies)) for r in runs]
        notes = [shown(n, copies) for n in notes]
    runs = _unique(runs)
    if not runs:
        where = ", ".join(str(s) for s in sources)
        raise InputError(where, "no run, iteration log, game or chat found in it")
    kept = list(dict.fromkeys(notes))
    if calibration is None:
        return Collected(runs, kept)
    return Collected(runs, kept, calibration[0], shown(calibration[1], copies))


#: The families read whole from a path, so copied out of object storage to be loaded.
STAGED_FAMILIES = ("discussion", "persona", "calibration")


def _is_one_object(found: Sequence[Found], base: str) -> bool:
    return len(found) == 1 and found[0].path == base


def _kit_paths(kit: PersonaKit) -> list[str]:
    return [p for p in (kit.propositions, kit.cassette, kit.personas, kit.baselines) if p]


def _staged(
    url: str,
    found: list[Found],
    kits: Mapping[str, PersonaKit],
    storage_options: Mapping[str, Any] | None,
    folder: Path,
    notes: list[str],
) -> tuple[list[Found], dict[str, PersonaKit]]:
    """The games, chats and persona kits found under ``url``, copied into ``folder``:
    the same finds with local paths (an object that cannot be read is noted and left
    out), and the kits by their local folder."""
    from toolkit.io.staging import local_name, stage

    base = url.rstrip("/")
    wanted = [f.path for f in found if f.family in STAGED_FAMILIES]
    kit_files = _kit_files(base, kits, storage_options)
    got = stage(base, [*wanted, *kit_files], folder, storage_options)
    out: list[Found] = []
    for f in found:
        if f.family not in STAGED_FAMILIES:
            out.append(f)
            continue
        copy = got.get(f.path)
        if isinstance(copy, Path):
            out.append(Found(f.family, str(copy), f.id))
        elif copy is not None:
            notes.append(f"left out as not {_what(f.family)}: {copy}")

    def here(path: str | None) -> str | None:
        if path is None:
            return None
        return folder.as_posix() if path == base else local_name(base, path, folder).as_posix()

    local_kits = {}
    for where, kit in kits.items():
        local_kits[str(here(where))] = PersonaKit(
            propositions=str(here(kit.propositions)), cassette=str(here(kit.cassette)),
            personas=here(kit.personas), baselines=here(kit.baselines),
        )  # fmt: skip
    return out, local_kits


def _kit_files(
    base: str, kits: Mapping[str, PersonaKit], storage_options: Mapping[str, Any] | None
) -> list[str]:
    """Every object of the kits under ``base``: the cassette, the personas file, and what
    the propositions and baselines folders hold (listed in one request each)."""
    from toolkit.io.source import open_remote

    if not kits:
        return []
    remote = open_remote(base, storage_options)
    folders = [k for kit in kits.values() for k in (kit.propositions, kit.baselines) if k]
    listed = remote.find_many([f.split("://", 1)[1] for f in folders])
    files = [p for kit in kits.values() for p in (kit.cassette, kit.personas) if p]
    for folder, objects in zip(folders, listed, strict=True):
        files.extend(f"{folder}/{rel}" for rel in sorted(objects))
    return files


def _staged_kit(
    kit: PersonaKit,
    storage_options: Mapping[str, Any] | None,
    folder: Path,
    copies: dict[str, str],
) -> PersonaKit:
    """A kit given by URLs on the command line, copied into ``folder`` (one subfolder per
    part, each named back to its URL in ``copies``).

    Raises:
        InputError: a part cannot be listed or read.
    """
    from toolkit.io.source import is_remote, open_remote
    from toolkit.io.staging import stage

    parts: dict[str, str | None] = {}
    for n, (name, path) in enumerate(
        (("propositions", kit.propositions), ("cassette", kit.cassette),
         ("personas", kit.personas), ("baselines", kit.baselines))
    ):  # fmt: skip
        if path is None or not is_remote(path):
            parts[name] = path
            continue
        base = path.rstrip("/")
        here = folder / f"{n}"
        if name in ("propositions", "baselines"):
            remote = open_remote(base, storage_options)
            objects = remote.find_many([remote.root])[0]
            urls = [f"{base}/{rel}" for rel in sorted(objects)]
            copies[str(here)] = base
            target = here
        else:
            urls = [base]
            copies[str(here)] = base.rsplit("/", 1)[0]
            target = here / base.rsplit("/", 1)[-1]
        for got in stage(base, urls, here, storage_options).values():
            if isinstance(got, InputError):
                raise got
        parts[name] = str(target)
    return PersonaKit(
        propositions=str(parts["propositions"]), cassette=str(parts["cassette"]),
        personas=parts["personas"], baselines=parts["baselines"],
    )  # fmt: skip


def _kit_for(path: str, kits: Mapping[str, PersonaKit]) -> PersonaKit | None:
    """The kit of the nearest folder above ``path`` that holds one."""
    folder = path.replace("\\", "/").rsplit("/", 1)[0]
    while folder:
        if folder in kits:
            return kits[folder]
        if "/" not in folder or folder.endswith("://"):
            return None
        folder = folder.rsplit("/", 1)[0]
    return None


_SESSION = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I)


def session_of(path: str) -> str:
    """The session id an agent transcript's name carries (Claude Code's ``<id>.jsonl``,
    the last UUID of Codex's ``rollout-<time>-<id>.jsonl``), lower-cased; else its stem."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1].removesuffix(".jsonl")
    found = _SESSION.findall(name)
    return (found[-1] if found else name).lower()


def _what(family: str) -> str:
    return {
        "persona": "a persona chat", "discussion": "a discussion game file",
        "outcome": "an outcome iteration log", "calibration": "a toolkit calibrate result",
    }.get(family, f"a {family} run")  # fmt: skip


def _unique(runs: list[SiteRun]) -> list[SiteRun]:
    """Runs with distinct ids (a repeated id gets ``~2``, ``~3``...)."""
    from dataclasses import replace

    seen: dict[str, int] = {}
    out = []
    for run in runs:
        n = seen.get(run.id, 0) + 1
        seen[run.id] = n
        out.append(run if n == 1 else replace(run, id=f"{run.id}~{n}"))
    return out


def _result_json(path: str | Path, rubric: str) -> dict[str, Any]:
    """The JSON object of a ``toolkit <command> --format json`` result whose ``rubric``
    is ``rubric``, read through the reading edge.

    Raises:
        InputError: not valid JSON, or not such a result (naming the file and the rubric).
    """
    from toolkit.io.edge import parse_json_text, read_text

    doc = parse_json_text(read_text(path), str(path))
    if not isinstance(doc, dict) or doc.get("rubric") != rubric:
        found = doc.get("rubric") if isinstance(doc, dict) else type(doc).__name__
        raise InputError(path, f"not a toolkit {rubric} JSON result", field="rubric", value=found)
    return doc


def load_compare(path: str | Path) -> dict[str, Any]:
    """A ``toolkit compare --format json`` result, read through the reading edge and
    checked for what the site's comparison page shows.

    Raises:
        InputError: not such a result (naming the file, the field and the value).
    """
    doc = _result_json(path, "compare")
    for key in ("dimensions", "flips"):
        rows = doc.get(key)
        if not isinstance(rows, list) or not all(
            isinstance(r, dict) and isinstance(r.get("dimension"), str) for r in rows
        ):
            raise InputError(
                path, "must be a list of rows that each name a dimension", field=key,
                value=rows if not isinstance(rows, list) else rows[:1],
            )  # fmt: skip
    return doc


def load_calibration(path: str | Path) -> dict[str, Any]:
    """A ``toolkit calibrate --format json`` result, read through the reading edge and
    checked for what the site's calibration page shows. The optional fields of the
    disagreements (``notes``, ``reasoning``, ``evidence``, ``source``, ``anchor``) are
    shown when present and may be missing or null.

    Raises:
        InputError: not such a result (naming the file, the field and the value).
    """
    doc = _result_json(path, "calibrate")
    for key in ("disagreements", "bias"):
        rows = doc.get(key)
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            raise InputError(path, "must be a list of objects", field=key, value=rows)
    for n, row in enumerate(doc["disagreements"]):
        if not isinstance(row.get("item"), str | int):
            raise InputError(path, "names no item", field=f"disagreements[{n}].item",
                             value=row.get("item"))  # fmt: skip
        notes = row.get("notes")
        if notes is not None and not (
            isinstance(notes, list) and all(isinstance(x, dict) for x in notes)
        ):
            raise InputError(path, "must be a list of {rater, note}",
                             field=f"disagreements[{n}].notes", value=notes)  # fmt: skip
    for key in ("band", "confusion"):
        if doc.get(key) is not None and not isinstance(doc[key], dict):
            raise InputError(path, "must be an object", field=key, value=doc[key])
    return doc


def _plain(path: str) -> str:
    return path.replace("\\", "/").rstrip("/").removeprefix("./")


def calibration_links(doc: Mapping[str, Any], runs: Sequence[SiteRun]) -> list[dict[str, Any]]:
    """Where each disagreement of a calibration result is in the site: ``{"run": id,
    "item": key or None, "why": ...}``, or ``{"run": None, "why": ...}`` when its
    ``source`` names no run of the site (or it has none).

    A source matches a run read from that path (as given, or the same file once
    resolved, or the one run whose path ends with it); of the several runs of one chat
    or game file (its agents, its games), the one named by the entry's ``agent`` or
    ``game`` group; the ``anchor`` is an item's key, or a window ``FROM-TO`` of two.
    """
    by_source: dict[str, list[SiteRun]] = {}
    for run in runs:
        by_source.setdefault(_plain(run.source), []).append(run)
    out: list[dict[str, Any]] = []
    for row in doc.get("disagreements", []):
        source = row.get("source")
        if not source:
            out.append({"run": None, "why": "the calibration names no source for this item"})
            continue
        found = _runs_of_source(str(source), by_source)
        if not found:
            out.append({"run": None, "why": f"{source} is not a run of this site"})
            continue
        run = _pick(found, row)
        anchor = row.get("anchor")
        item = _anchor_item(run, str(anchor)) if anchor not in (None, "") else None
        why = "" if item or not anchor else f"no item {anchor} in the run: linked to the run"
        out.append({"run": run.id, "item": item, "why": why})
    return out


def _runs_of_source(source: str, by_source: Mapping[str, list[SiteRun]]) -> list[SiteRun]:
    plain = _plain(source)
    if plain in by_source:
        return by_source[plain]
    if "://" not in plain:
        target = Path(plain).resolve()
        for path, runs in by_source.items():
            if "://" not in path and Path(path).resolve() == target:
                return runs
    ends = [path for path in by_source if path.endswith("/" + plain)]
    return by_source[ends[0]] if len(ends) == 1 else []


def _pick(runs: Sequence[SiteRun], row: Mapping[str, Any]) -> SiteRun:
    """Of the runs of one file, the one the entry's agent or game names (else the first:
    the environment's or the only one)."""
    for key in ("agent", "agent_id", "game", "game_id"):
        want = str(row.get(key) or "").lower()
        if not want:
            continue
        for run in runs:
            last = run.id.rsplit("/", 1)[-1].lower()
            meta = run.card.meta if run.card is not None else {}
            named = str(meta.get("agent_id") or "").lower()
            title = run.card.title.lower() if run.card is not None else ""
            if want in (last, named) or f"· {want} (" in title:
                return run
    env = [r for r in runs if r.id.endswith("/environment")]
    return env[0] if env else runs[0]


def _anchor_item(run: SiteRun, anchor: str) -> str | None:
    """``anchor`` when it names items of the run: a key, a window ``FROM-TO`` of two
    keys, or a comma-separated list of those (``s1-s5,s30-s52``)."""
    keys = {i.key for i in run.items}
    return anchor if all(names_items(part, keys) for part in anchor.split(",")) else None


def names_items(part: str, keys: set[str]) -> bool:
    """Whether ``part`` is one of ``keys`` or a window ``FROM-TO`` of two of them."""
    if part in keys:
        return True
    return any(
        part[:cut] in keys and part[cut + 1 :] in keys for cut, c in enumerate(part) if c == "-"
    )
