"""The organiser's review pages (issue 41), at the organiser's private token: each
rater's ratings, notes, skips and progress; the disagreements to adjudicate, with the
organiser's adjudicated value kept beside the raters' ratings (never over them); raters
added or a rater's remaining games reassigned during the session, balanced.

None of these pages refreshes itself (a note being typed is never wiped); the actions are
plain HTML forms (no script needed) checked as a rater's save is: the organiser's token
in the address, the page's CSRF token, a same-origin request, bounded fields.

Addresses (``TOKEN`` is the organiser's):

* ``GET /o/TOKEN/raters``: every rater, their progress and link to their page; a form
  adding a rater (``POST /o/TOKEN/raters/add``);
* ``GET /o/TOKEN/raters/N``: rater N's ratings, answers, notes, drafts and skips;
  ``POST /o/TOKEN/raters/N/reassign`` gives their remaining games to the others;
* ``GET /o/TOKEN/disagreements``: where the raters disagree beyond :data:`RULE`, with a
  form per disagreement (``POST /o/TOKEN/adjudicate``);
* ``GET /o/TOKEN/adjudications.csv``: the adjudications with the raters' originals.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

import polars as pl
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from toolkit.errors import InputError
from toolkit.io.csvcells import write_csv
from toolkit.rating_server.form import read_organiser_form
from toolkit.rating_server.pages import Refused, render_page, server_of
from toolkit.rating_server.server import RatingServer
from toolkit.ratings.store.adjudications import SCORE_QUESTION

__all__ = [
    "RULE",
    "SPREAD",
    "add_rater",
    "adjudicate",
    "adjudication_rows",
    "adjudications_csv",
    "disagreements",
    "disagreements_page",
    "rater_view",
    "raters_page",
    "reassign",
    "review_summary",
]

#: Scores of one unit disagree when their spread (max - min) is at least this: more than
#: one step of the scale apart.
SPREAD = 2
#: The rule, as the pages state it.
RULE = (
    f"the raters' scores of a game (or item) are {SPREAD} or more apart (more than one "
    "step of the scale), or they answered a yes/no question both ways"
)


def organiser_page(request: Request) -> tuple[RatingServer, str]:
    """(server, token) of an organiser's address; 404 for any other token (as the main
    organiser page: this module is imported by it, so it checks on its own)."""
    server = server_of(request)
    token = str(request.path_params["token"])
    if not server.session.is_organiser(token):
        raise Refused(404, "no such page")
    return server, token


def _ratings(server: RatingServer) -> pl.DataFrame:
    """The ratings that count, of this session's raters and units: unit_id, rater, score,
    answers (JSON; ``{}`` for a persona item), notes, created_at."""
    session = server.session
    if server.persona:
        frame = server.store.item_latest().rename({"item_id": "unit_id"})
        frame = frame.with_columns(answers=pl.lit("{}"))
    else:
        frame = server.store.latest().rename({"transcript_id": "unit_id"})
    return frame.filter(
        pl.col("rater").is_in(list(session.raters))
        & pl.col("unit_id").is_in(list(session.game_ids))
    )


def disagreements(server: RatingServer) -> list[dict[str, Any]]:
    """Every unit and question where the raters disagree beyond :data:`RULE`: the unit,
    the question (``score`` or a question's key) and its text, each rater's value, and the
    adjudication that counts (or None)."""
    ratings = _ratings(server)
    by_unit: dict[str, list[dict[str, Any]]] = {}
    for row in ratings.sort("unit_id", "rater").iter_rows(named=True):
        by_unit.setdefault(str(row["unit_id"]), []).append(row)
    decided = _decided(server)
    questions = [] if server.persona else [(q.key, q.text) for q in server.scale.questions]
    out: list[dict[str, Any]] = []
    for unit in server.session.game_ids:
        rows = by_unit.get(unit, [])
        if len(rows) < 2:
            continue
        scores = {str(r["rater"]): int(r["score"]) for r in rows}
        if max(scores.values()) - min(scores.values()) >= SPREAD:
            out.append(_entry(unit, SCORE_QUESTION, "score", scores, decided))
        for key, text in questions:
            said = {str(r["rater"]): json.loads(r["answers"]).get(key) for r in rows}
            answered = {r: v for r, v in said.items() if v is not None}
            if len(set(answered.values())) > 1:
                out.append(_entry(unit, key, text, said, decided))
    return out


def _entry(
    unit: str, question: str, text: str, values: Mapping[str, Any], decided: Mapping[Any, Any]
) -> dict[str, Any]:
    return {
        "unit": unit,
        "question": question,
        "text": text,
        "values": dict(values),
        "decided": decided.get((unit, question)),
        "anchor": _anchor(unit, question),
    }


def _decided(server: RatingServer) -> dict[tuple[str, str], dict[str, Any]]:
    """(unit, question) -> the adjudication that counts (value parsed from JSON)."""
    frame = server.store.adjudications()
    return {
        (str(r["unit_id"]), str(r["question"])): {**r, "value": json.loads(r["value"])}
        for r in frame.iter_rows(named=True)
    }


def review_summary(server: RatingServer, token: str) -> dict[str, Any]:
    """What the organiser's main page says of the review: how many disagreements are
    open or decided, the rule, the links (a section of its own on that page)."""
    found = disagreements(server)
    return {
        "review": {
            "open": sum(1 for d in found if d["decided"] is None),
            "decided": sum(1 for d in found if d["decided"] is not None),
            "rule": RULE,
            "raters": [
                (i, rater, rater in server.session.off)
                for i, rater in enumerate(server.session.raters)
            ],
            "base": f"/o/{token}",
        }
    }


def _status(server: RatingServer, rater: str) -> dict[str, Any]:
    """A rater's ratings that count, drafts and skips, keyed by unit."""
    ratings = {
        str(r["unit_id"]): r for r in _ratings(server).filter(rater=rater).iter_rows(named=True)
    }
    drafts = server.store.item_drafts() if server.persona else server.store.drafts()
    key = "item_id" if server.persona else "transcript_id"
    drafted = {str(r[key]): r for r in drafts.filter(rater=rater).iter_rows(named=True)}
    skips: dict[str, str] = {}
    for row in server.store.skips(rater).iter_rows(named=True):
        skips[str(row["unit_id"])] = str(row["reason"])  # the latest skip counts
    return {"ratings": ratings, "drafts": drafted, "skips": skips}


def _rater_of(server: RatingServer, request: Request) -> str:
    raters = list(server.session.raters)
    n = int(request.path_params["n"])
    if not 0 <= n < len(raters):
        raise Refused(404, "no such rater")
    return raters[n]


def rater_view(request: Request) -> Response:
    """Rater N's page: per unit of their queue, its status, score, answers and notes, and
    beside each value they disagreed on the organiser's adjudication (or that it is
    open); their skips with the reasons; their progress."""
    server, token = organiser_page(request)
    rater = _rater_of(server, request)
    status = _status(server, rater)
    queue = server.session.queues.get(rater, ())
    # this rater's disagreements, each with its adjudication (shown beside their values)
    theirs = [d for d in disagreements(server) if rater in d["values"]]
    review: dict[str, dict[str, Any]] = {}
    for d in theirs:
        review.setdefault(d["unit"], {})[d["question"]] = d
    rows = []
    for i, unit in enumerate(queue, start=1):
        rating = status["ratings"].get(unit)
        draft = status["drafts"].get(unit)
        shown = rating if rating is not None else draft
        answers = json.loads(shown["answers"]) if shown is not None and "answers" in shown else {}
        rows.append(
            {
                "n": i,
                "unit": unit,
                "state": "submitted" if rating is not None
                else "skipped" if unit in status["skips"]
                else "draft" if draft is not None else "to do",
                "score": "" if shown is None or shown["score"] is None else int(shown["score"]),
                "answers": answers,
                "notes": "" if shown is None else str(shown["notes"]),
                "skip": status["skips"].get(unit, ""),
                "review": review.get(unit, {}),
            }
        )  # fmt: skip
    context = {
        "base": f"/o/{token}",
        "csrf": server.csrf(token),
        "rater": rater,
        "n": int(request.path_params["n"]),
        "off": rater in server.session.off,
        "rows": rows,
        "submitted": sum(1 for r in rows if r["state"] == "submitted"),
        "skipped": sum(1 for r in rows if r["state"] == "skipped"),
        "drafts": sum(1 for r in rows if r["state"] == "draft"),
        "adjudicated": sum(1 for d in theirs if d["decided"] is not None),
        "open": sum(1 for d in theirs if d["decided"] is None),
        "questions": [] if server.persona else list(server.scale.questions),
        "persona": server.persona,
        "unit": "item" if server.persona else "game",
    }
    return render_page(request, "organiser_rater.html", context)


def raters_page(request: Request) -> Response:
    """Every rater with their progress, their private link (to send a rater who joined
    now) and a form adding a rater."""
    server, token = organiser_page(request)
    rated = set(_ratings(server).select("rater", "unit_id").iter_rows())
    raters = [
        {
            "i": i,
            "rater": rater,
            "assigned": len(server.session.queues.get(rater, ())),
            "submitted": sum((rater, u) in rated for u in server.session.queues.get(rater, ())),
            "off": rater in server.session.off,
            "link": f"/r/{link}",
        }
        for i, (rater, link) in enumerate(server.session.raters.items())
    ]
    context = {
        "base": f"/o/{token}",
        "csrf": server.csrf(token),
        "raters": raters,
        "added": request.query_params.get("added", ""),
        "overlap": server.session.overlap,
        "unit": "item" if server.persona else "game",
    }
    return render_page(request, "organiser_raters.html", context)


def disagreements_page(request: Request) -> Response:
    """The disagreements, each with a form recording the organiser's value and note."""
    server, token = organiser_page(request)
    found = disagreements(server)
    low, high = (0, 9) if server.persona else (1, 5)
    context = {
        "base": f"/o/{token}",
        "csrf": server.csrf(token),
        "found": found,
        "rule": RULE,
        "scores": list(range(low, high + 1)),
        "persona": server.persona,
        "unit": "item" if server.persona else "game",
    }
    return render_page(request, "organiser_disagreements.html", context)


def _value(server: RatingServer, question: str, text: str) -> int | bool:
    """The adjudicated value a form sent: a score on the session's scale, or yes/no."""
    if question == SCORE_QUESTION:
        low, high = (0, 9) if server.persona else (1, 5)
        if not (text.isascii() and text.isdigit()) or not low <= int(text) <= high:
            raise Refused(422, f"the adjudicated score must be a whole number from {low} to {high}")
        return int(text)
    if server.persona or question not in {q.key for q in server.scale.questions}:
        raise Refused(422, "no such question of this instrument")
    if text not in ("yes", "no"):
        raise Refused(422, "the adjudicated answer is yes or no")
    return text == "yes"


async def adjudicate(request: Request) -> Response:
    """Record the organiser's value and note for one disagreement (beside the ratings)."""
    server, token = organiser_page(request)
    form = await read_organiser_form(request, server, token)
    unit = form.get("unit", "")
    if unit not in server.session.game_ids:
        raise Refused(422, "no such game or item in this session")
    question = form.get("question", "")
    value = _value(server, question, form.get("value", ""))
    try:
        await run_in_threadpool(
            server.store.adjudicate, unit, question, value, form.get("note", ""),
            form.get("adjudicator", "").strip() or "organiser",
        )  # fmt: skip
    except InputError as exc:  # a note too long, a name too long: one line, nothing saved
        raise Refused(422, _said(exc)) from None
    return RedirectResponse(f"/o/{token}/disagreements#d-{_anchor(unit, question)}", 303)


async def add_rater(request: Request) -> Response:
    """Add a rater to the session (a new private link) and rebalance the open games."""
    server, token = organiser_page(request)
    form = await read_organiser_form(request, server, token)
    name = form.get("rater", "")
    try:
        session = await run_in_threadpool(server.store.add_raters, [name])
    except InputError as exc:
        raise Refused(422, _said(exc)) from None
    request.app.state.server = dataclasses.replace(server, session=session)
    added = list(session.raters).index(name.strip())
    return RedirectResponse(f"/o/{token}/raters?added={added}", 303)


async def reassign(request: Request) -> Response:
    """Give rater N's games not yet rated, drafted or skipped to the other raters."""
    server, token = organiser_page(request)
    rater = _rater_of(server, request)
    await read_organiser_form(request, server, token)
    try:
        session = await run_in_threadpool(server.store.reassign, rater)
    except InputError as exc:
        raise Refused(422, _said(exc)) from None
    request.app.state.server = dataclasses.replace(server, session=session)
    return RedirectResponse(f"/o/{token}/raters/{request.path_params['n']}", 303)


def _said(exc: InputError) -> str:
    """The store's reason, without the store's file name (the page is not the place)."""
    return exc.reason


def _anchor(unit: str, question: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in f"{unit}-{question}")


def adjudication_rows(server: RatingServer) -> list[dict[str, Any]]:
    """The adjudications that count, each with the raters' original values beside it:
    unit, question, adjudicated (the organiser's value), originals (rater -> value),
    note, adjudicator, created_at (what the exports carry)."""
    ratings = _ratings(server)
    originals: dict[str, dict[str, Any]] = {}
    for row in ratings.iter_rows(named=True):
        originals.setdefault(str(row["unit_id"]), {})[str(row["rater"])] = row
    out = []
    for (unit, question), d in _decided(server).items():
        if unit not in server.session.game_ids:
            continue
        rows = originals.get(unit, {})
        values = {
            r: int(row["score"]) if question == SCORE_QUESTION
            else json.loads(row["answers"]).get(question)
            for r, row in sorted(rows.items())
        }  # fmt: skip
        out.append(
            {
                "unit": unit,
                "question": question,
                "adjudicated": d["value"],
                "originals": values,
                "note": d["note"],
                "adjudicator": d["adjudicator"],
                "created_at": d["created_at"],
            }
        )
    return out


def adjudications_csv(request: Request) -> Response:
    """The adjudications as CSV: one row per unit and question decided, the raters'
    original values as JSON beside the adjudicated one (formula-like cells as text)."""
    server, _token = organiser_page(request)
    rows = adjudication_rows(server)
    frame = pl.DataFrame(
        [
            {**r, "adjudicated": json.dumps(r["adjudicated"]),
             "originals": json.dumps(r["originals"], sort_keys=True)}
            for r in rows
        ],
        schema={k: pl.String() for k in ("unit", "question", "adjudicated", "originals",
                                         "note", "adjudicator", "created_at")},
    )  # fmt: skip
    return Response(
        write_csv(frame),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": 'attachment; filename="adjudications.csv"'},
    )
