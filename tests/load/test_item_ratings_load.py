"""Reading a persona session's ratings (its store or its CSV or JSON export): one-line errors
naming the file, the field and the value, for what would otherwise join wrongly."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from toolkit.errors import InputError
from toolkit.load.item_ratings import load_item_ratings
from toolkit.ratings.store import RatingStore

H = hashlib.sha256(b"text").hexdigest()


def _csv(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "ratings.csv"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_csv_export_reads_with_notes_and_hashes(tmp_path: Path) -> None:
    path = _csv(
        tmp_path,
        f"item,rater,score,notes,agent,text_sha256\ni1,ana,0,,Lenny,{H}\ni1,ben,9,why,Lenny,{H}\n",
    )
    frame = load_item_ratings(path)
    assert frame.rows() == [("i1", "ana", 0.0, "", H), ("i1", "ben", 9.0, "why", H)]


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [
        ("item,rater,score\ni1,ana,3\n", "header", "item,rater,score"),
        (f"item,rater,score,text_sha256\ni1,ana,10,{H}\n", "score", "10"),
        ("item,rater,score,text_sha256\ni1,ana,3,\n", "text_sha256", "i1 by ana"),
    ],
)
def test_a_csv_without_what_a_join_needs_is_refused(
    tmp_path: Path, text: str, field: str, value: str
) -> None:
    with pytest.raises(InputError) as info:
        load_item_ratings(_csv(tmp_path, text))
    said = str(info.value)
    assert said.startswith(str(tmp_path / "ratings.csv")) and field in said and value in said


def test_the_persona_json_export_reads_as_the_csv_does(tmp_path: Path) -> None:
    export = tmp_path / "ratings.json"
    rows = [
        {"item": "i1", "rater": "ben", "score": 9, "notes": "why", "agent": "Lenny",
         "text_sha256": H, "created_at": "2026-11-20T09:00:00.000000+00:00", "event_id": 2},
        {"item": "i1", "rater": "ana", "score": 0, "notes": "", "agent": "Lenny",
         "text_sha256": H, "created_at": "2026-11-20T09:00:00.000000+00:00", "event_id": 1},
    ]  # fmt: skip
    export.write_text(
        json.dumps({"kind": "persona", "scale": [0, 9], "overlap": 2, "ratings": rows}),
        encoding="utf-8",
    )
    frame = load_item_ratings(export)
    assert frame.rows() == [("i1", "ana", 0.0, "", H), ("i1", "ben", 9.0, "why", H)]
    rows[0]["score"] = 12
    export.write_text(json.dumps({"kind": "persona", "ratings": rows}), encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_item_ratings(export)
    assert str(info.value).startswith(f"{export}: ratings.0.score=12")


def test_a_game_export_and_an_empty_store_are_refused_with_what_to_give(
    tmp_path: Path,
) -> None:
    export = tmp_path / "ratings.json"
    game = {"instrument": "2L-1.0.0", "overlap": 2, "ratings": [
        {"game_id": "g1", "rater": "ana", "score": 3, "answers": {}, "notes": ""}]}  # fmt: skip
    export.write_text(json.dumps(game), encoding="utf-8")
    with pytest.raises(InputError, match="export of a game session"):
        load_item_ratings(export)
    store = RatingStore(tmp_path / "ratings.db")
    store.submit("ana", "game-1", 3)  # a games store: no persona item rating
    with pytest.raises(InputError, match="holds no rating of a persona item"):
        load_item_ratings(store.path)
    with pytest.raises(InputError, match="no such ratings file"):
        load_item_ratings(tmp_path / "missing.csv")
