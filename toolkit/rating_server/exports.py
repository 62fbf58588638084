"""The organiser's downloads: the ratings that count as CSV or JSON (games, or persona
items with what each is about), and the whole store as one backup zip."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import polars as pl
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from toolkit.io.csvcells import write_csv
from toolkit.rating_server.organiser import item_ratings, organiser_page, session_ratings
from toolkit.rating_server.review import adjudication_rows
from toolkit.rating_server.server import RatingServer

__all__ = ["ITEM_ABOUT", "export_backup", "export_csv", "export_json"]

#: What a persona item's row says about it, in exports and on the organiser's page.
ITEM_ABOUT: tuple[str, ...] = ("agent", "proposition", "dimension", "source", "anchor")


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
        item_ratings(server)
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


def _export_frame(server: RatingServer) -> pl.DataFrame:
    return session_ratings(server).select(
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
    """The ratings that count, as CSV (one row per rater and game); a text cell that
    would start a spreadsheet formula is written with a ``'`` in front
    (:mod:`toolkit.io.csvcells`)."""
    server, _token = organiser_page(request)
    frame = _item_export_frame(server) if server.persona else _export_frame(server)
    return Response(
        write_csv(frame),  # a cell that would start a formula is written as text
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": 'attachment; filename="ratings.csv"'},
    )


def export_json(request: Request) -> Response:
    """The ratings that count, as JSON (answers as objects)."""
    server, _token = organiser_page(request)
    if server.persona:
        payload = {
            "kind": "persona",
            "scale": [0, 9],
            "overlap": server.session.overlap,
            "ratings": _item_export_frame(server).to_dicts(),
            # the organiser's values, beside the raters' (issue 41); never in "ratings"
            "adjudications": adjudication_rows(server),
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
        # the organiser's values, beside the raters' (issue 41); never in "ratings"
        "adjudications": adjudication_rows(server),
    }
    return JSONResponse(
        payload, headers={"Content-Disposition": 'attachment; filename="ratings.json"'}
    )


def export_backup(request: Request) -> Response:
    """Every part of the store as one zip (:meth:`RatingStore.backup_archive`): ratings,
    persona item ratings, labels and every draft, so nothing a rater typed is left out."""
    server, _token = organiser_page(request)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return Response(
        server.store.backup_archive(),
        media_type="application/zip",
        headers={"Content-Disposition": f'attachment; filename="ratings-backup-{stamp}.zip"'},
    )
