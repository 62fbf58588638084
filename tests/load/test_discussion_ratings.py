"""Engagement ratings from a simple file (CSV or JSON), behind the RatingSource protocol."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.errors import InputError
from toolkit.load.ratings import RatingSource, load_ratings


def test_csv_ratings_read_and_filtered_by_game(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text("game_id,rater,score,note\ng1,ana,4,fun\ng1,ben,2.5,\ng2,ana,5,\n")
    source = load_ratings(path)
    assert isinstance(source, RatingSource)
    frame = source.ratings(["g1"])
    assert frame.rows() == [("g1", "ana", 4.0), ("g1", "ben", 2.5)]


def test_a_raters_last_line_counts(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text("game_id,rater,score\ng1,ana,2\ng1,ana,5\n")
    assert load_ratings(path).ratings(["g1"]).rows() == [("g1", "ana", 5.0)]


def test_json_list_and_wrapped_forms(tmp_path: Path) -> None:
    a = tmp_path / "a.json"
    a.write_text('[{"game_id": "g1", "rater": "ana", "score": 3}]')
    b = tmp_path / "b.json"
    b.write_text('{"ratings": [{"game_id": "g1", "rater": "ben", "score": 1}]}')
    assert load_ratings(a).frame.rows() == [("g1", "ana", 3.0)]
    assert load_ratings(b).frame.rows() == [("g1", "ben", 1.0)]


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        (
            "r.csv",
            "game_id,rater,score\ng1,ana,6\n",
            r"r.csv:2: score='6': score must be a number from 1 to 5",
        ),
        ("r.csv", "game_id,rater,score\ng1,ana,0.99\n", r"score='0.99'"),
        ("r.csv", "game_id,rater,score\ng1,ana,great\n", r"score='great'"),
        ("r.csv", "game_id,rater,score\ng1,,3\n", r"r.csv:2: rater=''"),
        ("r.csv", "game,who,score\ng1,ana,3\n", r"r.csv:1: header='game,who,score'"),
        ("r.json", '[{"game_id": "g1", "rater": "ana", "score": true}]', r"ratings.0.score=True"),
        ("r.json", '{"ratings": 3}', r"ratings=3"),
        ("r.json", "[{", r"r.json:1: not valid JSON"),
    ],
)
def test_bad_rating_files_are_one_line_errors(
    tmp_path: Path, name: str, content: str, expected: str
) -> None:
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(InputError, match=expected) as err:
        load_ratings(path)
    assert "\n" not in str(err.value)


def test_scores_1_and_5_are_inside_the_scale(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text("game_id,rater,score\ng1,a,1\ng1,b,5\n")
    assert load_ratings(path).frame["score"].to_list() == [1.0, 5.0]


def test_missing_ratings_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such ratings file"):
        load_ratings(tmp_path / "nope.csv")


def test_rating_source_opener_refuses_a_sqlite_file_that_is_no_ratings_store(
    tmp_path: Path,
) -> None:
    import sqlite3

    from toolkit.load.ratings import open_rating_source

    db = tmp_path / "ratings.db"
    sqlite3.connect(db).execute("CREATE TABLE t (x)").connection.close()
    with pytest.raises(InputError, match="not a toolkit ratings store"):
        open_rating_source(db)
    csv_file = tmp_path / "r.csv"
    csv_file.write_text("game_id,rater,score\ng1,a,2\n")
    assert open_rating_source(csv_file).ratings(["g1"]).rows() == [("g1", "a", 2.0)]
