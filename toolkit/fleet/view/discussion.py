"""The site records of a discussion game file: one site run per game (its messages as
items), each metric's rows taken from the evidence frames the discussion rubric returns."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

from toolkit.errors import InputError
from toolkit.fleet.families import Found
from toolkit.fleet.view.common import iso, size_of, text
from toolkit.io.source import redact_uri
from toolkit.load.discussion import load_discussions
from toolkit.load.ratings import RatingSource
from toolkit.ratings.store import is_rating_store
from toolkit.rubrics.discussion import score_discussion
from toolkit.views.site import EvidenceRow, SiteItem, SiteRun
from toolkit.views.site.raw import raw_record

#: The names a ratings file beside game files is found by, the ratings store first.
RATINGS_BESIDE = ("ratings.db", "ratings.csv", "ratings.json")


def ratings_beside(path: str) -> str | None:
    """The ratings file in the folder of the game file ``path`` (a local one), if any:
    the ratings store ``toolkit rate`` keeps there, else ``ratings.csv`` or ``.json``."""
    folder = Path(path).parent
    for name in RATINGS_BESIDE:
        candidate = folder / name
        if candidate.is_file() and (name != "ratings.db" or is_rating_store(candidate)):
            return str(candidate)
    return None


def discussion_runs(
    f: Found, ratings_for: Callable[[str], RatingSource | None] | None = None
) -> list[SiteRun]:
    """The games of one file, each a site run, scored with the engagement ratings
    ``ratings_for(path)`` gives (as ``toolkit discussion --ratings``), asked once the file
    holds games."""
    discussion = load_discussions([f.path])
    if not discussion.game_ids:
        raise InputError(f.path, "no game in it")
    ratings = ratings_for(f.path) if ratings_for is not None else None
    report = score_discussion(discussion, ratings=ratings)
    ev = report.evidence
    games = {r["game_id"]: r for r in discussion.games.iter_rows(named=True)}
    runs = []
    single = len(discussion.game_ids) == 1
    loaded = discussion.messages.partition_by("game_id", as_dict=True, maintain_order=True)
    for card in report.scorecards:
        game = card.subject
        msgs = ev.messages.filter(pl.col("game_id") == game).sort("turn")
        raw = _raw_messages(loaded.get((game,)), f.path)
        items = tuple(
            SiteItem(
                key=f"t{m['turn']}",
                label=f"turn {m['turn']} · round {m['round']}",
                who=text(m["speaker"]) + (f" ({m['role']})" if m["role"] else ""),
                text=text(m["text"]),
                raw=raw.get(m["turn"]),
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
                evidence=discussion_evidence(ev, game, msgs),
                source=redact_uri(f.path),
                size=size_of(f.path),
                time=iso(info.get("created_at")),
            )
        )
    return runs


def _raw_messages(messages: pl.DataFrame | None, path: str) -> dict[int, dict[str, Any]]:
    """Each message of a game as the loader returned it (its raw record), by turn."""
    if messages is None:
        return {}
    return {
        int(m["turn"]): raw_record(
            m, f"{redact_uri(path)} · game {m['game_id']} · message {text(m['message_id'])}"
        )
        for m in messages.iter_rows(named=True)
        if m["turn"] is not None
    }


def discussion_evidence(
    ev: Any, game: str, msgs: pl.DataFrame
) -> dict[str, tuple[EvidenceRow, ...]]:
    """Each discussion dimension's rows, from the frames the rubric returned."""
    of_game = pl.col("game_id") == game
    return {
        "strategic_depth": _strategic(msgs),
        "coherence": _per_message(msgs, "coherent", "coherence_reason", True),
        "role_consistency": _per_message(msgs, "role_break", "role_break_reason", False),
        "memory_accuracy": _memory(ev.references.filter(of_game)),
        "personality_diversity": tuple(
            EvidenceRow(
                label=f"{r['speaker']} ~ {r['other']}",
                value=r["similarity"],
                note="similarity of their messages",
            )
            for r in ev.similarity.filter(of_game).iter_rows(named=True)
        ),
        "anti_repetition": _repetition(ev.phrases.filter(of_game & (pl.col("repeats") > 0))),
        "engagement": tuple(
            EvidenceRow(label=f"rater {r['rater']}", value=r["score"], note="engagement rating")
            for r in ev.ratings.filter(of_game).iter_rows(named=True)
        ),
    }


def _per_message(
    msgs: pl.DataFrame, flag: str, reason: str | None, good: bool
) -> tuple[EvidenceRow, ...]:
    """One row per message: its own PASS/FAIL, and as value the share of messages
    that passed so far (so the last row is the dimension's value over all messages)."""
    rows, passed, counted = [], 0, 0
    for m in msgs.iter_rows(named=True):
        ok = None if m[flag] is None else bool(m[flag]) == good
        if ok is not None:
            counted += 1
            passed += ok
        why = text(m[reason]) if reason else ""
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


def _strategic(msgs: pl.DataFrame) -> tuple[EvidenceRow, ...]:
    """The strategic-depth rows: each message's pass, with the cues found in it."""
    keywords = {
        m["turn"]: ", ".join(m["strategic_keywords"] or []) for m in msgs.iter_rows(named=True)
    }
    return tuple(
        EvidenceRow(
            e.label, e.value, e.status, f"{keywords.get(int(e.item[1:])) or 'no'} cue(s) · "
            + e.note, e.item,
        )
        for e in _per_message(msgs, "strategic", None, True)
        if e.item
    )  # fmt: skip


def _memory(refs: pl.DataFrame) -> tuple[EvidenceRow, ...]:
    """Each reference to an earlier turn, accurate or not, and why."""
    return tuple(
        EvidenceRow(
            label=f"turn {r['turn']} · {r['speaker']}",
            value=1.0 if r["verdict"] == "accurate" else 0.0,
            status="PASS" if r["verdict"] == "accurate" else "FAIL",
            note=f"{text(r['sentence'])} — {text(r['reason'])}",
            item=f"t{r['turn']}",
            said=text(r["reason"]),
        )
        for r in refs.iter_rows(named=True)
    )


def _repetition(phrases: pl.DataFrame) -> tuple[EvidenceRow, ...]:
    """Each phrase a speaker repeated, with the turns it was used in."""
    return tuple(
        EvidenceRow(
            label=f"turn {r['turns'][0]} · {r['speaker']}",
            value=float(r["repeats"]),
            note=f"“{r['phrase']}” used {r['uses']} times (turns "
            + ", ".join(str(t) for t in r["turns"])
            + ")",
            item=f"t{r['turns'][0]}",
        )
        for r in phrases.iter_rows(named=True)
    )
