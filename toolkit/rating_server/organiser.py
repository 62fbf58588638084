"""The organiser's page, at the organiser's private token: progress per rater and per
game (or persona item), and how far the raters agree so far; the ratings that count,
which the exports also download."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import polars as pl
from starlette.requests import Request
from starlette.responses import Response

from toolkit.rating_server.narrowing import narrowing_of
from toolkit.rating_server.pages import Refused, render_page, server_of
from toolkit.rating_server.review import review_summary
from toolkit.rating_server.server import RatingServer
from toolkit.ratings.agreement import krippendorff_alpha

__all__ = ["organiser"]


def organiser_page(request: Request) -> tuple[RatingServer, str]:
    server = server_of(request)
    token = str(request.path_params["token"])
    if not server.session.is_organiser(token):
        raise Refused(404, "no such page")
    return server, token


def session_ratings(server: RatingServer) -> pl.DataFrame:
    """The ratings that count, of this session's raters and games."""
    session = server.session
    return server.store.latest().filter(
        pl.col("rater").is_in(list(session.raters))
        & pl.col("transcript_id").is_in(list(session.game_ids))
    )


def organiser(request: Request) -> Response:
    """Progress per rater and per game, and how far the raters agree so far."""
    server, token = organiser_page(request)
    if server.persona:
        return _item_organiser(request, server, token)
    latest = session_ratings(server)
    context = _progress(server, token, latest, server.store.drafts(), "transcript_id")
    for row in context["games"]:
        row["missing"] = row["game_id"] not in server.transcripts
    alpha = krippendorff_alpha(latest) if latest.height else None
    context |= {
        "alpha": None if alpha is None else f"{alpha:.3f}",
        "persona": False,
        "unit": "game",
        "narrowing": narrowing_of(server),
    }
    context |= review_summary(server, token)  # the review section (issue 41)
    return render_page(request, "organiser.html", context)


def item_ratings(server: RatingServer) -> pl.DataFrame:
    """The persona item ratings that count, of this session's raters and items."""
    session = server.session
    return server.store.item_latest().filter(
        pl.col("rater").is_in(list(session.raters))
        & pl.col("item_id").is_in(list(session.game_ids))
    )


def _progress(
    server: RatingServer, token: str, latest: pl.DataFrame, drafts: pl.DataFrame, key: str
) -> dict[str, Any]:
    """What the organiser's page shows of any session: per rater, how many of their queue
    they submitted or started and when they last saved; per game or item (``key``: the
    id column of ``latest`` and ``drafts``), who rates it, how many ratings came in, their
    mean and spread; the totals."""
    session = server.session
    rated = set(latest.select("rater", key).iter_rows())
    drafted = set(drafts.select("rater", key).iter_rows())
    last_seen = dict(drafts.group_by("rater").agg(pl.col("updated_at").max()).iter_rows())
    raters = [
        {
            "rater": rater,
            "assigned": len(queue),
            "submitted": sum(1 for g in queue if (rater, g) in rated),
            "started": sum(1 for g in queue if (rater, g) in drafted and (rater, g) not in rated),
            "last": _when(last_seen.get(rater)),
        }
        for rater, queue in session.queues.items()
    ]
    scores: dict[str, list[int]] = {}
    for gid, score in latest.select(key, "score").iter_rows():
        scores.setdefault(gid, []).append(int(score))
    assigned = {g: [r for r, q in session.queues.items() if g in q] for g in session.game_ids}
    units = []
    for gid in session.game_ids:
        got = scores.get(gid, [])
        units.append(
            {
                "game_id": gid,
                "raters": ", ".join(assigned[gid]),
                "received": len(got),
                "wanted": len(assigned[gid]),
                "mean": f"{sum(got) / len(got):.2f}" if got else "",
                "spread": (max(got) - min(got)) if len(got) > 1 else "",
            }
        )
    return {
        "session": session,
        "scale": server.scale,
        "raters": raters,
        "games": units,
        "overlapping": sum(1 for v in scores.values() if len(v) > 1),
        "total_submitted": latest.height,
        "total_wanted": sum(len(q) for q in session.queues.values()),
        "base": f"/o/{token}",
    }


def _item_organiser(request: Request, server: RatingServer, token: str) -> Response:
    """The organiser's page of a persona session: progress, agreement (0-9, interval)."""
    session = server.session
    latest = item_ratings(server)
    context = _progress(server, token, latest, server.store.item_drafts(), "item_id")
    for row in context["games"]:
        item_id = row["game_id"]
        about = session.items[item_id].about if item_id in session.items else {}
        row |= {
            "agent": about.get("agent", ""),
            "dimension": about.get("dimension", ""),
            "missing": item_id not in server.items,
            "changed": item_id in server.changed,
        }
    pairs = latest.select(pl.col("item_id").alias("transcript_id"), "rater", "score")
    alpha = krippendorff_alpha(pairs, "interval") if latest.height else None
    context |= {
        "alpha": None if alpha is None else f"{alpha:.3f}",
        "persona": True,
        "unit": "item",
        "narrowing": narrowing_of(server),
    }
    context |= review_summary(server, token)  # the review section (issue 41)
    return render_page(request, "organiser.html", context)


def _when(stamp: str | None) -> str:
    if not stamp:
        return "never"
    return datetime.fromisoformat(stamp).astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
