"""The site records of a persona chat: scored with the recorded judge of a persona kit
(one site run per agent and one for the environment, each proposition an evidence row
with the judge's reasoning, linked to the messages it was judged on), else the chat shown
unscored with its transcript."""

from __future__ import annotations

from typing import Any

import polars as pl

from toolkit.errors import ToolkitError
from toolkit.fleet.families import Found, PersonaKit
from toolkit.fleet.view.common import iso, size_of, text
from toolkit.judge.recorded import RecordedJudge
from toolkit.load.persona import load_baselines, load_chat, load_propositions
from toolkit.rubrics.persona import (
    DEFAULT_PERSONA_RUBRIC,
    ENVIRONMENT,
    file_window,
    score_persona,
    steps_anchor,
    trajectory_rows,
    window_rows,
)
from toolkit.views.site import EvidenceRow, SiteItem, SiteRun
from toolkit.views.site.raw import raw_record

PERSONA_NOTE = (
    "not scored here: no persona kit (propositions/ and cassette.json) beside the chat "
    "and none given (--propositions DIR --cassette FILE); the persona rubric judges each "
    "agent against propositions. The transcript is shown"
)


def _persona_items(chat: Any, path: str = "") -> tuple[SiteItem, ...]:
    """The chat's messages, in file order, keyed by their step (``s12``; a step seen
    again gets ``~2``...), as the anchors of calibration items name them; each with its
    raw record (the message as loaded from ``path``, and its place in the file)."""
    seen: dict[str, int] = {}
    items = []
    for i, m in enumerate(chat.messages.iter_rows(named=True)):
        key = f"s{m['step']}"
        seen[key] = seen.get(key, 0) + 1
        items.append(
            SiteItem(
                key=key if seen[key] == 1 else f"{key}~{seen[key]}",
                label=f"step {m['step']}" + ("" if seen[key] == 1 else f" (again, message {i})"),
                who=text(m["agent_name"] or m["agent_id"]),
                text=text(m["text"]),
                facts=tuple(
                    (k, text(m[c]))
                    for k, c in (("kind", "kind"), ("channel", "channel"), ("to", "recipient_id"))
                    if m[c]
                ),
                raw=raw_record(m, f"{path} · message {i + 1} of the file"),
            )
        )
    return tuple(items)


def persona_runs(
    f: Found, kit: PersonaKit | None, cache: dict[str, Any]
) -> tuple[list[SiteRun], str]:
    """The chat's runs: one per agent and one for the environment when ``kit`` scores it,
    else the chat unscored; and a note when a kit was there but could not score it."""
    chat = load_chat(f.path, personas=kit.personas if kit else None)
    items = _persona_items(chat, f.path)
    times = [m for m in chat.messages["time"].to_list() if m is not None]
    common: dict[str, Any] = {
        "items": items, "source": f.path, "size": size_of(f.path),
        "time": iso(times[0]) if times else None,
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
    how = []
    if r["source"] == "judge":
        how.append(f"judge said {r['raw']}")
    elif r["source"] == "precondition":
        how.append("precondition not met: 9")
    if r["inverted"]:
        how.append("inverted")
    if r["hard"]:
        how.append("hard")
    reasoning = text(r["reasoning"]) or text(r["absent_reason"])
    where = "" if span is None else f" · judged on {span[1]} message(s), {span[0]}"
    return EvidenceRow(
        label=str(r["proposition"]),
        value=r["score"],
        status=None if r["score"] is not None else "N/A",
        note=f"{text(r['claim'])} ({', '.join(how) or 'absent'}){where}"
        + (f" — {reasoning}" if reasoning else ""),
        item=None if span is None else span[0],
        said=reasoning,
    )
