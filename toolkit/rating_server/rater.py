"""The rater's pages, at their private token: the first game (or persona item) not yet
submitted, game N of their queue with their draft, the end of the queue; saving the form
as a draft or submitting it as a rating (through the group commit)."""

from __future__ import annotations

import hmac
import json
from collections.abc import Callable, Mapping
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from toolkit.judge import MISSING_DATA_RULE, SCALE_BANDS
from toolkit.rating_server.form import read_form, read_skip
from toolkit.rating_server.group_commit import GroupCommit
from toolkit.rating_server.pages import Refused, render_page, server_of
from toolkit.rating_server.server import RatingServer
from toolkit.ratings.store import Draft, Save

__all__ = ["rater_done", "rater_game", "rater_home", "save_draft", "skip", "submit"]


def _rater(request: Request) -> tuple[RatingServer, str, str]:
    """(server, rater, token) of a rater's address; 404 for any other token."""
    server = server_of(request)
    token = str(request.path_params["token"])
    rater = server.session.rater_of(token)
    if rater is None:
        raise Refused(404, "no such page")
    return server, rater, token


def _position(request: Request, queue: tuple[str, ...]) -> int:
    n = int(request.path_params["n"])
    if not 1 <= n <= len(queue):
        raise Refused(404, "no such game in your queue")
    return n


def _same_unit(request: Request, server: RatingServer, token: str, unit_id: str) -> None:
    """Refuse a save from a page that showed another game at this place of the queue (the
    organiser rebalanced the queues since it was opened): 409, nothing saved. A save
    without the tag (a client of its own) is taken at its place, as before."""
    sent = request.headers.get("x-unit", "")
    if sent and not hmac.compare_digest(sent.encode(), server.unit_tag(token, unit_id).encode()):
        raise Refused(409, "your queue changed since this page was opened (the organiser "
                      "rebalanced it): reload the page; nothing was saved")  # fmt: skip


def _submitted(server: RatingServer, rater: str) -> dict[str, dict[str, Any]]:
    if server.persona:
        items = server.store.item_latest(rater)
        return {str(r["item_id"]): r for r in items.iter_rows(named=True)}
    latest = server.store.latest(rater)
    return {str(r["transcript_id"]): r for r in latest.iter_rows(named=True)}


def _skipped_ids(server: RatingServer, rater: str) -> set[str]:
    """The games (or items) ``rater`` skipped."""
    return set(server.store.skips(rater)["unit_id"].to_list())


def _set_aside(server: RatingServer, rater: str) -> set[str]:
    """What the rater's next game is not chosen from: submitted or skipped (a skipped
    game stays to do, and the "done" page lists it)."""
    return set(_submitted(server, rater)) | _skipped_ids(server, rater)


def _next_unsubmitted(
    queue: tuple[str, ...], done: Mapping[str, Any] | set[str], after: int
) -> int | None:
    """The 1-based position of the first game not submitted after ``after`` (wrapping)."""
    n = len(queue)
    for step in range(1, n + 1):
        i = (after - 1 + step) % n
        if queue[i] not in done:
            return i + 1
    return None


def rater_home(request: Request) -> Response:
    """Send the rater to their first game not yet submitted, or to "all done"."""
    server, rater, token = _rater(request)
    queue = server.session.queues.get(rater, ())
    n = _next_unsubmitted(queue, _set_aside(server, rater), 0) if queue else None
    target = f"/r/{token}/{n}" if n is not None else f"/r/{token}/done"
    return RedirectResponse(target, status_code=303)


def rater_game(request: Request) -> Response:
    """Game N of the rater's queue, with their draft (or submitted rating) on the form."""
    server, rater, token = _rater(request)
    queue = server.session.queues.get(rater, ())
    n = _position(request, queue)
    if server.persona:
        return _item_page(request, server, rater, token, queue, n)
    gid = queue[n - 1]
    done = _submitted(server, rater)
    draft: Draft | None = server.store.draft(rater, gid)
    rating = done.get(gid)
    if draft is None and rating is not None:
        draft = Draft(
            score=int(rating["score"]),
            answers=json.loads(rating["answers"]),
            notes=str(rating["notes"]),
            updated_at=rating["created_at"].isoformat(),
        )
    state = {
        "score": draft.score if draft else None,
        "answers": draft.answers if draft else {},
        "notes": draft.notes if draft else "",
    }
    submitted_score = int(rating["score"]) if rating is not None else None
    changed = (
        rating is not None
        and draft is not None
        and (
            draft.score != rating["score"]
            or draft.answers != json.loads(rating["answers"])
            or draft.notes != rating["notes"]
        )
    )
    context = {
        "rater": rater,
        "n": n,
        "total": len(queue),
        "submitted_count": sum(1 for g in queue if g in done),
        "base": f"/r/{token}",
        "csrf": server.csrf(token),
        "unit_tag": server.unit_tag(token, gid),
        "scale": server.scale,
        "state": state,
        "state_json": json.dumps(state),
        "submitted_score": submitted_score,
        "changed": changed,
        "transcript": server.transcripts.get(gid),
        "skipped": _skip_reason(server, rater, gid),
        # the game's id and roles only once this rater has submitted a rating of it
        "game_id": gid if rating is not None else None,
        "roles": server.roles.get(gid) if rating is not None else None,
    }
    return render_page(request, "rater.html", context)


def _item_page(
    request: Request,
    server: RatingServer,
    rater: str,
    token: str,
    queue: tuple[str, ...],
    n: int,
) -> Response:
    """Item N of a persona session: the judged text, the claim, the 0-9 scale."""
    item_id = queue[n - 1]
    done = _submitted(server, rater)
    draft = server.store.item_draft(rater, item_id)
    rating = done.get(item_id)
    if draft is None and rating is not None:
        draft = Draft(int(rating["score"]), {}, str(rating["notes"]), "")
    state: dict[str, Any] = {
        "score": draft.score if draft else None,
        "answers": {},
        "notes": draft.notes if draft else "",
    }
    submitted_score = int(rating["score"]) if rating is not None else None
    changed = (
        rating is not None
        and draft is not None
        and (draft.score != rating["score"] or draft.notes != rating["notes"])
    )
    page = server.items.get(item_id)
    context = {
        "rater": rater,
        "n": n,
        "total": len(queue),
        "submitted_count": sum(1 for i in queue if i in done),
        "base": f"/r/{token}",
        "csrf": server.csrf(token),
        "unit_tag": server.unit_tag(token, item_id),
        "bands": SCALE_BANDS,
        "missing_rule": MISSING_DATA_RULE,
        "state": state,
        "state_json": json.dumps(state),
        "submitted_score": submitted_score,
        "changed": changed,
        "item": page,
        "skipped": _skip_reason(server, rater, item_id),
        "item_changed": item_id in server.changed,
        "text_html": page.html if page is not None else None,
    }
    return render_page(request, "rate_item.html", context)


def rater_done(request: Request) -> Response:
    """The end of the queue: every game submitted (or the ones still to do)."""
    server, rater, token = _rater(request)
    queue = server.session.queues.get(rater, ())
    done = _submitted(server, rater)
    context = {
        "rater": rater,
        "base": f"/r/{token}",
        "total": len(queue),
        "games": [(i + 1, gid in done) for i, gid in enumerate(queue)],
        "skipped": _skipped_ids(server, rater),
        "queue": queue,
        "all_done": all(g in done for g in queue),
        "todo": sum(1 for g in queue if g not in done),
        "unit": "item" if server.persona else "game",
    }
    return render_page(request, "done.html", context)


async def save_draft(request: Request) -> Response:
    """Save the form as the rater's draft of game N (committed before the answer)."""
    server, rater, token = _rater(request)
    queue = server.session.queues.get(rater, ())
    n = _position(request, queue)
    _same_unit(request, server, token, queue[n - 1])
    form = await read_form(request, server, token)
    commits: GroupCommit = request.app.state.commits
    saved_at = await commits.save(
        Save(
            rater, queue[n - 1], form["score"], form["answers"], form["notes"],
            text_sha256=_item_hash(server, queue[n - 1]),
        )
    )  # fmt: skip
    return JSONResponse({"saved": True, "saved_at": saved_at})


def _item_hash(server: RatingServer, item_id: str) -> str | None:
    """A persona item's text hash (None for a game); refused when it is not served."""
    if not server.persona:
        return None
    page = server.items.get(item_id)
    if page is None:
        why = "changed since the session began" if item_id in server.changed else "missing"
        raise Refused(409, f"this item's text is {why}: it cannot be rated; tell your organiser")
    return page.text_sha256


async def submit(request: Request) -> Response:
    """Save the form as the rater's rating of game N (and its draft); answer where next."""
    server, rater, token = _rater(request)
    queue = server.session.queues.get(rater, ())
    n = _position(request, queue)
    _same_unit(request, server, token, queue[n - 1])
    form = await read_form(request, server, token)
    if form["score"] is None:
        low, high = (0, 9) if server.persona else (1, 5)
        raise Refused(422, f"choose a score from {low} to {high} before submitting")
    missing = [] if server.persona else _unanswered_required(server, form["answers"])
    if missing:
        raise Refused(422, "answer the required questions first: " + "; ".join(missing))
    digest = _item_hash(server, queue[n - 1])
    commits: GroupCommit = request.app.state.commits
    event_id = await commits.save(
        Save(
            rater, queue[n - 1], form["score"], form["answers"], form["notes"],
            submit=True, instrument=None if server.persona else server.scale.version,
            text_sha256=digest,
        )
    )  # fmt: skip
    rated = server.store.item_rated_ids if server.persona else server.store.rated_ids
    done = set(await _in_thread(rated, rater)) | await _in_thread(_skipped_ids, server, rater)
    after = _next_unsubmitted(queue, done, n)
    target = f"/r/{token}/{after}" if after is not None else f"/r/{token}/done"
    return JSONResponse({"submitted": True, "rating": event_id, "next": target})


def _unanswered_required(server: RatingServer, answers: Mapping[str, Any]) -> list[str]:
    """The text of each required question of the instrument left unanswered."""
    return [q.text for q in server.scale.required if answers.get(q.key) is None]


def _skip_reason(server: RatingServer, rater: str, unit_id: str) -> str | None:
    """The reason of ``rater``'s latest skip of ``unit_id``, if they skipped it."""
    skips = server.store.skips(rater).filter(unit_id=unit_id)
    return str(skips["reason"][-1]) if skips.height else None


async def skip(request: Request) -> Response:
    """Record the rater's skip of game (or item) N with their reason; answer where next
    (the next game neither submitted nor skipped, else the "done" page). The unit's
    draft is left as it was; a skip is no rating."""
    server, rater, token = _rater(request)
    queue = server.session.queues.get(rater, ())
    n = _position(request, queue)
    _same_unit(request, server, token, queue[n - 1])
    reason = await read_skip(request, server, token)
    await _in_thread(server.store.save_skip, rater, queue[n - 1], reason)
    after = _next_unsubmitted(queue, await _in_thread(_set_aside, server, rater), n)
    target = f"/r/{token}/{after}" if after is not None else f"/r/{token}/done"
    return JSONResponse({"skipped": True, "next": target})


async def _in_thread(func: Callable[..., Any], *args: Any) -> Any:
    return await run_in_threadpool(func, *args)
