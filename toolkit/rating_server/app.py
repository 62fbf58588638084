"""The rating server's routes: each rater's private pages, the organiser's page, exports.

A face, like the CLI: it reads the games through the discussion loader (done once, by the
caller), renders them with the one transcript renderer, and saves through the ratings
store's session API; nothing below it knows it exists.

Addresses (``TOKEN`` is a rater's or the organiser's private token):

* ``GET /r/TOKEN``: the rater's first game not yet submitted (or "all done");
* ``GET /r/TOKEN/N``: game N of the rater's queue (1-based), with their draft;
* ``POST /r/TOKEN/N/draft``, ``POST /r/TOKEN/N/submit``: save the form (JSON), with the
  page's CSRF token in the ``X-CSRF-Token`` header;
* ``GET /o/TOKEN``: progress per rater and per game, agreement so far;
* ``GET /o/TOKEN/ratings.csv``, ``GET /o/TOKEN/ratings.json``: the ratings that count.

Every response carries a strict Content-Security-Policy (scripts and styles only from
this server, as files), ``Referrer-Policy: no-referrer`` (a token in the address never
leaves in a Referer) and ``Cache-Control: no-store``.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import jinja2
import polars as pl
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from toolkit.errors import ToolkitError
from toolkit.load.discussion import Discussion
from toolkit.ratings.store import Draft, RatingStore, Save, Session
from toolkit.rubrics.discussion_spec import EngagementScale
from toolkit.views.transcript import (
    TRANSCRIPT_CSS,
    judged_text_html,
    roles_html,
    transcript_html,
)

__all__ = [
    "CSP",
    "MAX_BODY_BYTES",
    "MAX_NOTES_CHARS",
    "GroupCommit",
    "ItemPage",
    "RatingServer",
    "create_app",
]

#: The Content-Security-Policy of every response: nothing inline, nothing from elsewhere.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
#: A save's request body is refused above this size (413).
MAX_BODY_BYTES = 64 * 1024
#: Notes longer than this are refused (422).
MAX_NOTES_CHARS = 20_000

_HERE = resources.files("toolkit.rating_server")


class _Refused(Exception):
    """A request refused with an HTTP status and one line of text."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class ItemPage:
    """What a rater is shown of one persona item (an item of a ``persona`` session).

    Attributes:
        text: the text the judge reads (:func:`toolkit.judge.judged_text`).
        text_sha256: its SHA-256, as the session recorded it.
        claim: the proposition's claim (the rater's question).
        persona: the persona spec the judge is given with it, if any.
        html: ``text`` rendered by the one renderer (:func:`judged_text_html`).
    """

    text: str
    text_sha256: str
    claim: str
    persona: str | None
    html: str


@dataclass(frozen=True)
class RatingServer:
    """What the routes serve: the session, its store, the games and the instrument.

    Attributes:
        store: the ratings store (its session already opened).
        session: the store's session (immutable once created).
        scale: the engagement instrument shown and stamped into every rating.
        transcripts: game id -> its transcript as HTML (rendered once).
        roles: game id -> its roles table as HTML (shown after the rater submits).
    """

    store: RatingStore
    session: Session
    scale: EngagementScale
    transcripts: Mapping[str, str]
    roles: Mapping[str, str]
    items: Mapping[str, ItemPage] = field(default_factory=dict)
    changed: tuple[str, ...] = ()

    @classmethod
    def build_persona(
        cls, store: RatingStore, session: Session, items: Sequence[Any], scale: EngagementScale
    ) -> RatingServer:
        """A ``persona`` session's server over ``items`` (the session's
        :class:`~toolkit.rubrics.persona_items.PersonaItem` objects, rebuilt from the
        chats). An item of the session whose text no longer hashes to the one the session
        recorded (the chat or a proposition changed) is not served: it is listed in
        ``changed``, and a rater reaching it is told so; an item missing from ``items`` is
        shown as missing.
        """
        by_id = {item.item_id: item for item in items}
        pages: dict[str, ItemPage] = {}
        changed: list[str] = []
        for item_id, held in session.items.items():
            item = by_id.get(item_id)
            if item is None:
                continue
            if item.text_sha256 != held.text_sha256:
                changed.append(item_id)
                continue
            pages[item_id] = ItemPage(
                text=item.text,
                text_sha256=item.text_sha256,
                claim=item.claim,
                persona=item.request.persona,
                html=judged_text_html(item.text),
            )
        return cls(store, session, scale, {}, {}, pages, tuple(changed))

    @property
    def persona(self) -> bool:
        """Whether the session's units are persona items (rated 0-9), not games."""
        return self.session.kind == "persona"

    @classmethod
    def build(
        cls, store: RatingStore, session: Session, games: Discussion, scale: EngagementScale
    ) -> RatingServer:
        """Render every game of the session once (the games missing from ``games`` are
        shown as missing)."""
        have = set(games.game_ids)
        transcripts: dict[str, str] = {}
        roles: dict[str, str] = {}
        for gid in session.game_ids:
            if gid in have:
                game = games.game(gid)
                transcripts[gid] = transcript_html(game)
                roles[gid] = roles_html(game)
        return cls(store, session, scale, transcripts, roles)

    def csrf(self, token: str) -> str:
        """The CSRF token of the pages of ``token`` (an HMAC under the session's secret)."""
        key = self.session.csrf_secret.encode()
        return hmac.new(key, token.encode(), hashlib.sha256).hexdigest()


# -- helpers --------------------------------------------------------------------------


def _server(request: Request) -> RatingServer:
    server: RatingServer = request.app.state.server
    return server


def _rater(request: Request) -> tuple[RatingServer, str, str]:
    """(server, rater, token) of a rater's address; 404 for any other token."""
    server = _server(request)
    token = str(request.path_params["token"])
    rater = server.session.rater_of(token)
    if rater is None:
        raise _Refused(404, "no such page")
    return server, rater, token


def _position(request: Request, queue: tuple[str, ...]) -> int:
    n = int(request.path_params["n"])
    if not 1 <= n <= len(queue):
        raise _Refused(404, "no such game in your queue")
    return n


def _submitted(server: RatingServer, rater: str) -> dict[str, dict[str, Any]]:
    if server.persona:
        items = server.store.item_latest(rater)
        return {str(r["item_id"]): r for r in items.iter_rows(named=True)}
    latest = server.store.latest(rater)
    return {str(r["transcript_id"]): r for r in latest.iter_rows(named=True)}


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


def _same_origin(request: Request) -> bool:
    """A browser's request from one of this server's own pages (or no browser at all)."""
    origin = request.headers.get("origin")
    if origin is None:
        return request.headers.get("sec-fetch-site") in (None, "same-origin", "none")
    host = request.headers.get("host", "")
    return urlsplit(origin).netloc == host and origin != "null"


async def _form(request: Request, server: RatingServer, token: str) -> dict[str, Any]:
    """The checked JSON body of a save: score, answers, notes; CSRF and origin checked."""
    if not _same_origin(request):
        raise _Refused(403, "cross-site request refused")
    given = request.headers.get("x-csrf-token", "")
    if not hmac.compare_digest(given.encode(), server.csrf(token).encode()):
        raise _Refused(403, "missing or wrong CSRF token: reload the page")
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise _Refused(415, "a save is JSON")
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY_BYTES):
        raise _Refused(413, "the request is too large")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY_BYTES:
            raise _Refused(413, "the request is too large")
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise _Refused(400, "the request is not JSON") from exc
    if not isinstance(data, dict):
        raise _Refused(422, "the request must be a JSON object")
    score = data.get("score")
    low, high = (0, 9) if server.persona else (1, 5)
    if score is not None and (type(score) is not int or not low <= score <= high):
        raise _Refused(422, f"score must be a whole number from {low} to {high}")
    answers = data.get("answers") or {}
    keys = set() if server.persona else {q.key for q in server.scale.questions}
    if not isinstance(answers, dict) or any(
        k not in keys or v not in (True, False, None) for k, v in answers.items()
    ):
        raise _Refused(422, "answers must map this instrument's questions to true/false/null")
    notes = data.get("notes") or ""
    if not isinstance(notes, str) or len(notes) > MAX_NOTES_CHARS:
        raise _Refused(422, f"notes must be text of at most {MAX_NOTES_CHARS} characters")
    return {"score": score, "answers": answers, "notes": notes}


def _templates() -> Jinja2Templates:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(_HERE.joinpath("templates"))),
        autoescape=True,  # everything shown is escaped unless marked safe
        undefined=jinja2.StrictUndefined,
    )
    return Jinja2Templates(env=env)


def _page(request: Request, name: str, context: dict[str, Any], status: int = 200) -> Response:
    templates: Jinja2Templates = request.app.state.templates
    return templates.TemplateResponse(request, name, context, status_code=status)


# -- rater pages ----------------------------------------------------------------------


def rater_home(request: Request) -> Response:
    """Send the rater to their first game not yet submitted, or to "all done"."""
    server, rater, token = _rater(request)
    queue = server.session.queues.get(rater, ())
    n = _next_unsubmitted(queue, _submitted(server, rater), 0) if queue else None
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
        "scale": server.scale,
        "state": state,
        "state_json": json.dumps(state),
        "submitted_score": submitted_score,
        "changed": changed,
        "transcript": server.transcripts.get(gid),
        # the game's id and roles only once this rater has submitted a rating of it
        "game_id": gid if rating is not None else None,
        "roles": server.roles.get(gid) if rating is not None else None,
    }
    return _page(request, "rater.html", context)


def _item_page(
    request: Request,
    server: RatingServer,
    rater: str,
    token: str,
    queue: tuple[str, ...],
    n: int,
) -> Response:
    """Item N of a persona session: the judged text, the claim, the 0-9 scale."""
    from toolkit.judge import MISSING_DATA_RULE, SCALE_BANDS

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
        "bands": SCALE_BANDS,
        "missing_rule": MISSING_DATA_RULE,
        "state": state,
        "state_json": json.dumps(state),
        "submitted_score": submitted_score,
        "changed": changed,
        "item": page,
        "item_changed": item_id in server.changed,
        "text_html": page.html if page is not None else None,
    }
    return _page(request, "rate_item.html", context)


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
        "all_done": all(g in done for g in queue),
        "todo": sum(1 for g in queue if g not in done),
        "unit": "item" if server.persona else "game",
    }
    return _page(request, "done.html", context)


async def save_draft(request: Request) -> Response:
    """Save the form as the rater's draft of game N (committed before the answer)."""
    server, rater, token = _rater(request)
    queue = server.session.queues.get(rater, ())
    n = _position(request, queue)
    form = await _form(request, server, token)
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
        raise _Refused(409, f"this item's text is {why}: it cannot be rated; tell your organiser")
    return page.text_sha256


async def submit(request: Request) -> Response:
    """Save the form as the rater's rating of game N (and its draft); answer where next."""
    server, rater, token = _rater(request)
    queue = server.session.queues.get(rater, ())
    n = _position(request, queue)
    form = await _form(request, server, token)
    if form["score"] is None:
        low, high = (0, 9) if server.persona else (1, 5)
        raise _Refused(422, f"choose a score from {low} to {high} before submitting")
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
    done = await _in_thread(rated, rater)
    after = _next_unsubmitted(queue, done, n)
    target = f"/r/{token}/{after}" if after is not None else f"/r/{token}/done"
    return JSONResponse({"submitted": True, "rating": event_id, "next": target})


async def _in_thread(func: Callable[..., Any], *args: Any) -> Any:
    return await run_in_threadpool(func, *args)


class GroupCommit:
    """Saves that arrive while a commit is being written go together in the next one.

    Each save to SQLite ends with a sync to disk (``synchronous=FULL``), and the disk, not
    the processor, bounds how many saves a second one process can make. Here a request
    queues its save and waits; one task writes whatever has queued in one transaction
    (:meth:`~toolkit.ratings.store.RatingStore.save_many`), answers every waiting request,
    and starts over while anything is queued. A request is answered only once its save
    is committed. If a batch fails, its saves are retried one by one, so one refused save
    never fails the others.
    """

    def __init__(self, store: RatingStore) -> None:
        self.store = store
        self._queue: list[tuple[Save, asyncio.Future[int | str]]] = []
        self._running = False
        self._task: asyncio.Task[None] | None = None

    async def save(self, save: Save) -> int | str:
        """Queue ``save`` and wait until it is committed; its event id or time saved."""
        future: asyncio.Future[int | str] = asyncio.get_running_loop().create_future()
        self._queue.append((save, future))
        if not self._running:
            self._running = True
            self._task = asyncio.create_task(self._drain())
        return await asyncio.shield(future)  # a client that leaves does not undo a save

    async def _drain(self) -> None:
        try:
            while self._queue:
                batch, self._queue = self._queue, []
                try:
                    results = await run_in_threadpool(
                        self.store.save_many, [save for save, _ in batch]
                    )
                except Exception:  # one by one: each save gets its own answer
                    for save, future in batch:
                        try:
                            (result,) = await run_in_threadpool(self.store.save_many, [save])
                        except Exception as exc:
                            future.set_exception(exc)
                        else:
                            future.set_result(result)
                    continue
                for (_save, future), result in zip(batch, results, strict=True):
                    future.set_result(result)
        finally:
            self._running = False


# -- the organiser's page ---------------------------------------------------------------


def _organiser(request: Request) -> tuple[RatingServer, str]:
    server = _server(request)
    token = str(request.path_params["token"])
    if not server.session.is_organiser(token):
        raise _Refused(404, "no such page")
    return server, token


def _session_ratings(server: RatingServer) -> pl.DataFrame:
    """The ratings that count, of this session's raters and games."""
    session = server.session
    return server.store.latest().filter(
        pl.col("rater").is_in(list(session.raters))
        & pl.col("transcript_id").is_in(list(session.game_ids))
    )


def organiser(request: Request) -> Response:
    """Progress per rater and per game, and how far the raters agree so far."""
    from toolkit.ratings.agreement import krippendorff_alpha

    server, token = _organiser(request)
    if server.persona:
        return _item_organiser(request, server, token)
    latest = _session_ratings(server)
    context = _progress(server, token, latest, server.store.drafts(), "transcript_id")
    for row in context["games"]:
        row["missing"] = row["game_id"] not in server.transcripts
    alpha = krippendorff_alpha(latest) if latest.height else None
    context |= {
        "alpha": None if alpha is None else f"{alpha:.3f}",
        "persona": False,
        "unit": "game",
    }
    return _page(request, "organiser.html", context)


#: What a persona item's row says about it, in exports and on the organiser's page.
ITEM_ABOUT: tuple[str, ...] = ("agent", "proposition", "dimension", "source", "anchor")


def _item_ratings(server: RatingServer) -> pl.DataFrame:
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
    from toolkit.ratings.agreement import krippendorff_alpha

    session = server.session
    latest = _item_ratings(server)
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
    }
    return _page(request, "organiser.html", context)


def _item_export_frame(server: RatingServer) -> pl.DataFrame:
    """Item, rater, score, notes, what the item is about, the hash of the text rated."""
    about = pl.DataFrame(
        [
            {"item": i.item_id, **{k: i.about.get(k, "") for k in ITEM_ABOUT}}
            for i in server.session.items.values()
        ],
        schema={"item": pl.String(), **{k: pl.String() for k in ITEM_ABOUT}},
    )
    return (
        _item_ratings(server)
        .rename({"item_id": "item"})
        .join(about, on="item", how="left")
        .select(
            "item",
            "rater",
            "score",
            "notes",
            *ITEM_ABOUT,
            "text_sha256",
            pl.col("created_at").dt.strftime("%Y-%m-%dT%H:%M:%S%.6f+00:00").alias("created_at"),
            "event_id",
        )
    )


def _when(stamp: str | None) -> str:
    if not stamp:
        return "never"
    return datetime.fromisoformat(stamp).astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def _export_frame(server: RatingServer) -> pl.DataFrame:
    return _session_ratings(server).select(
        pl.col("transcript_id").alias("game_id"),
        "rater",
        "score",
        "answers",
        "notes",
        "instrument",
        pl.col("created_at").dt.strftime("%Y-%m-%dT%H:%M:%S%.6f+00:00").alias("created_at"),
        "event_id",
    )


def export_csv(request: Request) -> Response:
    """The ratings that count, as CSV (one row per rater and game)."""
    server, _token = _organiser(request)
    frame = _item_export_frame(server) if server.persona else _export_frame(server)
    return Response(
        frame.write_csv(),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": 'attachment; filename="ratings.csv"'},
    )


def export_json(request: Request) -> Response:
    """The ratings that count, as JSON (answers as objects)."""
    server, _token = _organiser(request)
    if server.persona:
        payload = {
            "kind": "persona",
            "scale": [0, 9],
            "overlap": server.session.overlap,
            "ratings": _item_export_frame(server).to_dicts(),
        }
        return JSONResponse(
            payload, headers={"Content-Disposition": 'attachment; filename="ratings.json"'}
        )
    rows = _export_frame(server).to_dicts()
    for row in rows:
        row["answers"] = json.loads(row["answers"])
    payload = {
        "instrument": server.scale.version,
        "overlap": server.session.overlap,
        "ratings": rows,
    }
    return JSONResponse(
        payload, headers={"Content-Disposition": 'attachment; filename="ratings.json"'}
    )


def export_backup(request: Request) -> Response:
    """Every part of the store as one zip (:meth:`RatingStore.backup_archive`): ratings,
    persona item ratings, labels and every draft, so nothing a rater typed is left out."""
    server, _token = _organiser(request)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return Response(
        server.store.backup_archive(),
        media_type="application/zip",
        headers={"Content-Disposition": f'attachment; filename="ratings-backup-{stamp}.zip"'},
    )


# -- the rest ---------------------------------------------------------------------------


def index(request: Request) -> Response:
    """The bare address: says nothing about the session."""
    return _page(request, "index.html", {})


def no_icon(request: Request) -> Response:
    """No icon (an empty answer rather than a 404 in the browser's console)."""
    return Response(status_code=204)


def transcript_css(request: Request) -> Response:
    """The transcript renderer's stylesheet, as a file (the CSP allows no inline style)."""
    return Response(TRANSCRIPT_CSS, media_type="text/css; charset=utf-8")


_SECURITY_HEADERS = (
    ("Content-Security-Policy", CSP),
    ("Referrer-Policy", "no-referrer"),
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    ("Cache-Control", "no-store"),
)


class _Headers:
    """Security headers on every response (a pure ASGI middleware)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for key, value in _SECURITY_HEADERS:
                    headers[key] = value
            await send(message)

        await self.app(scope, receive, send_with_headers)


async def _refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, _Refused)
    return _refusal(request, exc.status, exc.message)


async def _store_error(request: Request, exc: Exception) -> Response:
    # The organiser reads the reason on the server's stderr (one line, no token in it);
    # a rater is told what to do, not where the organiser keeps the store.
    print(f"toolkit rate: error: {exc}", file=sys.stderr, flush=True)
    return _refusal(request, 503, "the ratings store could not save: tell your organiser")


def _refusal(request: Request, status: int, message: str) -> Response:
    if request.method == "POST" or "application/json" in request.headers.get("accept", ""):
        return JSONResponse({"error": message}, status_code=status)
    return PlainTextResponse(message, status_code=status)


def create_app(server: RatingServer) -> Starlette:
    """The ASGI application serving ``server``'s session (run it with uvicorn).

    Args:
        server: the session, store, games and instrument (see :meth:`RatingServer.build`).

    Returns:
        A Starlette application.
    """
    static = Path(str(_HERE.joinpath("static")))
    routes = [
        Route("/", index),
        Route("/favicon.ico", no_icon),
        Route("/static/transcript.css", transcript_css),
        Mount("/static", StaticFiles(directory=static), name="static"),
        Route("/r/{token}", rater_home),
        Route("/r/{token}/done", rater_done),
        Route("/r/{token}/{n:int}", rater_game),
        Route("/r/{token}/{n:int}/draft", save_draft, methods=["POST"]),
        Route("/r/{token}/{n:int}/submit", submit, methods=["POST"]),
        Route("/o/{token}", organiser),
        Route("/o/{token}/ratings.csv", export_csv),
        Route("/o/{token}/ratings.json", export_json),
        Route("/o/{token}/backup.zip", export_backup),
    ]
    app = Starlette(
        routes=routes,
        middleware=[Middleware(_Headers)],
        exception_handlers={_Refused: _refused, ToolkitError: _store_error},
    )
    app.state.server = server
    app.state.templates = _templates()
    app.state.commits = GroupCommit(server.store)
    return app
