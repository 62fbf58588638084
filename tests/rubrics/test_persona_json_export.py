"""The organiser's JSON export of a persona session, as the rating server serves it, is
what ``toolkit calibrate --persona --ratings`` reads: the same calibration as from the
session's CSV export (issue 27)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import SAMPLE_RUNS
from starlette.testclient import TestClient

from toolkit.cli import main
from toolkit.load.item_ratings import load_item_ratings
from toolkit.rating_server import RatingServer, create_app
from toolkit.ratings.store import RatingStore, Save, SessionItem
from toolkit.rubrics.discussion import DEFAULT_ENGAGEMENT_SCALE
from toolkit.rubrics.persona_items import items_of_files

SESSION = SAMPLE_RUNS / "calibration" / "persona"
PLANTED = json.loads((SESSION / "planted.json").read_text(encoding="utf-8"))
ROOT = SAMPLE_RUNS.parent
CHATS = [str(ROOT / c) for c in PLANTED["chats"]]
PROPOSITIONS = ROOT / PLANTED["propositions"]


def _served_json_export(tmp_path: Path) -> Path:
    """The sample session's ratings saved in a store, exported by the organiser's page."""
    items = items_of_files(CHATS, PROPOSITIONS)
    ratings = load_item_ratings(SESSION / "ratings.csv")
    store = RatingStore(tmp_path / "ratings.db")
    about = ("agent", "proposition", "dimension", "source", "anchor")
    session, _ = store.open_session(
        [], ["ana", "ben", "chloe"], 2, 27,
        items=[SessionItem(i.item_id, i.text_sha256, {k: getattr(i, k) for k in about})
               for i in items],
    )  # fmt: skip
    store.save_many(
        [
            Save(r["rater"], r["item"], int(r["score"]), notes=r["notes"], submit=True,
                 text_sha256=r["text_sha256"])
            for r in ratings.iter_rows(named=True)
        ]
    )  # fmt: skip
    server = RatingServer.build_persona(store, session, items, DEFAULT_ENGAGEMENT_SCALE)
    client = TestClient(create_app(server), base_url="http://127.0.0.1:8866")
    answer = client.get(f"/o/{session.organiser_token}/ratings.json")
    assert answer.status_code == 200 and answer.json()["kind"] == "persona"
    export = tmp_path / "export.json"
    export.write_bytes(answer.content)
    return export


def test_calibrate_persona_reads_the_organisers_json_export(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    export = _served_json_export(tmp_path)
    args = [
        "calibrate", "--persona", *CHATS, "--propositions", str(PROPOSITIONS),
        "--judge", f"recorded:{SESSION / 'cassette.json'}", "--format", "json", "--top", "6",
    ]  # fmt: skip
    assert main([*args, "--ratings", str(export)]) == 0
    from_json = json.loads(capsys.readouterr().out)
    assert main([*args, "--ratings", str(SESSION / "ratings.csv")]) == 0
    from_csv = json.loads(capsys.readouterr().out)
    assert from_json == from_csv
    lenny = next(
        b for b in from_json["bias"]
        if (b["group"], b["value"]) == ("agent", PLANTED["lenient_agent"])
    )  # fmt: skip
    assert lenny["bias"] == pytest.approx(PLANTED["bias"], abs=0.1)
    assert {d["item"] for d in from_json["disagreements"]} == set(PLANTED["misreads"])
