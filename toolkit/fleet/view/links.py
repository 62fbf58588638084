"""Where each disagreement of a calibration result is in the site: the run read from
the file it names, and the item (a message, a window of messages) its anchor names."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolkit.errors import InputError
from toolkit.io.source import open_source
from toolkit.views.site import SiteRun


def _plain(path: str) -> str:
    return path.replace("\\", "/").rstrip("/").removeprefix("./")


@dataclass(frozen=True, slots=True)  # one per run of a fleet: no __dict__ each
class LinkTarget:
    """What a calibration's links read of a run (kept for each run when the runs' records
    are written one by one and let go): its id, source, title, agent and item keys."""

    id: str
    source: str
    title: str
    agent: str
    keys: tuple[str, ...]

    @classmethod
    def of(cls, run: SiteRun | LinkTarget) -> LinkTarget:
        """The link target of ``run``."""
        if isinstance(run, LinkTarget):
            return run
        card = run.card
        return cls(
            id=run.id, source=run.source, title=card.title if card is not None else "",
            agent=str(card.meta.get("agent_id") or "") if card is not None else "",
            keys=tuple(i.key for i in run.items),
        )  # fmt: skip


def calibration_links(
    doc: Mapping[str, Any], runs: Sequence[SiteRun | LinkTarget]
) -> list[dict[str, Any]]:
    """Where each disagreement of a calibration result is in the site: ``{"run": id,
    "item": key or None, "why": ...}``, or ``{"run": None, "why": ...}`` when its
    ``source`` names no run of the site (or it has none).

    A source matches a run read from that path (as given, or the same file once
    resolved, or the one run whose path ends with it); of the several runs of one chat
    or game file (its agents, its games), the one named by the entry's ``agent`` or
    ``game`` group; the ``anchor`` is an item's key, or a window ``FROM-TO`` of two.
    """
    by_source: dict[str, list[LinkTarget]] = {}
    for run in runs:
        by_source.setdefault(_plain(run.source), []).append(LinkTarget.of(run))
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


def _on_disk(path: str) -> str | None:
    """The resolved local path of ``path`` (``None`` for a URL, known or not)."""
    try:
        source = open_source(path)
    except InputError:  # a scheme no back-end reads: not a file of this machine
        return None
    return source.identity() if source.disk is not None else None


def _runs_of_source(source: str, by_source: Mapping[str, list[LinkTarget]]) -> list[LinkTarget]:
    plain = _plain(source)
    if plain in by_source:
        return by_source[plain]
    target = _on_disk(plain)
    if target is not None:
        for path, runs in by_source.items():
            if _on_disk(path) == target:
                return runs
    ends = [path for path in by_source if path.endswith("/" + plain)]
    return by_source[ends[0]] if len(ends) == 1 else []


def _pick(runs: Sequence[LinkTarget], row: Mapping[str, Any]) -> LinkTarget:
    """Of the runs of one file, the one the entry's agent or game names (else the first:
    the environment's or the only one)."""
    for key in ("agent", "agent_id", "game", "game_id"):
        want = str(row.get(key) or "").lower()
        if not want:
            continue
        for run in runs:
            last = run.id.rsplit("/", 1)[-1].lower()
            named = run.agent.lower()
            title = run.title.lower()
            if want in (last, named) or f"· {want} (" in title:
                return run
    env = [r for r in runs if r.id.endswith("/environment")]
    return env[0] if env else runs[0]


def _anchor_item(run: LinkTarget, anchor: str) -> str | None:
    """``anchor`` when it names items of the run: a key, a window ``FROM-TO`` of two
    keys, or a comma-separated list of those (``s1-s5,s30-s52``)."""
    keys = set(run.keys)
    return anchor if all(names_items(part, keys) for part in anchor.split(",")) else None


def names_items(part: str, keys: set[str]) -> bool:
    """Whether ``part`` is one of ``keys`` or a window ``FROM-TO`` of two of them."""
    if part in keys:
        return True
    return any(
        part[:cut] in keys and part[cut + 1 :] in keys for cut, c in enumerate(part) if c == "-"
    )
