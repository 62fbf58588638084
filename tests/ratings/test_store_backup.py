"""A backup of a ratings store keeps everything a rater typed: the games' ratings and the
persona item ratings (0-9, notes, the hash of the text rated), reviewer labels, every
draft of either kind and every skip with its reason; restored into a fresh store it is the
same store, a second restore adds nothing, and an export written before persona items
existed still imports."""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

import polars as pl
import pytest

from toolkit.errors import InputError
from toolkit.ratings.store import EXPORT_PARTS, RatingStore, Save

H1 = hashlib.sha256(b"the window Otis was judged on").hexdigest()
H2 = hashlib.sha256(b"the window Priya was judged on").hexdigest()


def _filled(path: Path) -> RatingStore:
    """A store holding one of everything a session saves."""
    store = RatingStore(path)
    store.save_rating("ana", "g1", 2, {"watch_another": False}, 'dull, "quoted", a comma')
    store.submit("ana", "g1", 4, {"watch_another": True}, "better on a second look")
    store.save_draft("ben", "g2", None, {"agent_stood_out": True}, "half-way: Heron stands out")
    store.set_label("rev", "g1", "strategic", "m3", True)
    store.save_many(
        [
            Save(
                "ana", "w1/otis/adherence/p1", 7, notes="Otis, plainly", submit=True, text_sha256=H1
            ),
            Save(
                "ana",
                "w1/otis/adherence/p1",
                8,
                notes="on reflection: 8",
                submit=True,
                text_sha256=H1,
            ),
            Save("ben", "w1/otis/adherence/p1", 6, notes="", submit=True, text_sha256=H1),
            Save(
                "ben",
                "w1/priya/fluency/p2",
                None,
                notes="still reading, line 3 odd",
                text_sha256=H2,
            ),
        ]
    )
    store.save_skip("ana", "g2", "=cmd|' /C calc'!A0")  # a formula-like reason, as typed
    store.save_skip("ben", "w1/otis/adherence/p1", "seen this one, line 2")
    store.adjudicate("g1", "score", 3, "+ours, after talking it over", "org")  # issue 41
    return store


def _contents(store: RatingStore) -> dict[str, pl.DataFrame]:
    """Everything the store holds that a rater or reviewer saved (event ids aside)."""
    return {
        "ratings": store.events().drop("event_id"),
        "labels": store.label_events().drop("event_id"),
        "items": store.item_events().drop("event_id"),
        "drafts": store.all_drafts(),
        "skips": store.skip_events().drop("event_id"),
        "adjudications": store.adjudication_events().drop("event_id"),
        "draws": store.draw_events().drop("event_id"),
    }


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_a_backup_restored_into_a_fresh_store_is_the_same_store(tmp_path: Path, fmt: str) -> None:
    store = _filled(tmp_path / "a.db")
    files = store.backup(tmp_path / "backup", fmt=fmt)
    assert [f.name for f in files] == [*(f"{p}.{fmt}" for p in EXPORT_PARTS), "session.json"]

    fresh = RatingStore(tmp_path / "b.db")
    added = fresh.restore(tmp_path / "backup")
    assert added == {
        "ratings": 2, "labels": 1, "items": 3, "drafts": 5, "skips": 2, "adjudications": 1,
        "draws": 0,
    }  # fmt: skip
    want, got = _contents(store), _contents(fresh)
    for part in EXPORT_PARTS:
        assert got[part].equals(want[part]), part
    # What a rater typed, read back through the API the pages and calibrate use.
    assert fresh.item_latest().select("rater", "score", "notes").rows() == [
        ("ana", 8, "on reflection: 8"),
        ("ben", 6, ""),
    ]
    draft = fresh.item_draft("ben", "w1/priya/fluency/p2")
    assert draft is not None and (draft.score, draft.notes) == (None, "still reading, line 3 odd")
    game = fresh.draft("ben", "g2")
    assert game is not None and game.answers == {"agent_stood_out": True}
    assert game.notes == "half-way: Heron stands out"

    assert fresh.restore(tmp_path / "backup") == dict.fromkeys(EXPORT_PARTS, 0)
    for part in EXPORT_PARTS:
        assert _contents(fresh)[part].equals(want[part]), part


def test_each_part_exports_and_imports_on_its_own_once(tmp_path: Path) -> None:
    store = _filled(tmp_path / "a.db")
    items = store.export(tmp_path / "items.csv", what="items")
    drafts = store.export(tmp_path / "drafts.parquet", what="drafts")
    other = RatingStore(tmp_path / "b.db")
    assert other.import_events(items, what="items") == 3
    assert other.import_events(items, what="items") == 0
    assert other.import_events(drafts, what="drafts") == 5
    assert other.import_events(drafts, what="drafts") == 0
    assert other.item_events().drop("event_id").equals(store.item_events().drop("event_id"))


def test_an_imported_draft_replaces_only_an_older_one(tmp_path: Path) -> None:
    store = RatingStore(tmp_path / "a.db")
    store.save_draft("ana", "g1", 3, notes="old")
    exported = store.export(tmp_path / "drafts.csv", what="drafts")
    store.save_draft("ana", "g1", 5, notes="newer, typed after the export")
    assert store.import_events(exported, what="drafts") == 0
    draft = store.draft("ana", "g1")
    assert draft is not None and (draft.score, draft.notes) == (5, "newer, typed after the export")

    behind = RatingStore(tmp_path / "b.db")
    behind.save_draft("ana", "g1", 1, notes="older than the export")
    newer = RatingStore(tmp_path / "c.db")
    newer.save_draft("ana", "g1", 4, notes="newest")
    assert behind.import_events(newer.export(tmp_path / "n.csv", what="drafts"), what="drafts") == 1
    draft = behind.draft("ana", "g1")
    assert draft is not None and (draft.score, draft.notes) == (4, "newest")


def test_an_export_from_before_persona_items_still_imports(tmp_path: Path) -> None:
    # What a schema-5 toolkit wrote: the ratings and labels exports, no items, no drafts.
    old = tmp_path / "v5"
    old.mkdir()
    (old / "ratings.csv").write_text(
        "event_id,uid,rater,transcript_id,score,answers,notes,created_at,instrument\n"
        '1,u1,ana,g1,4,"{""watch_another"": true}",fine,2026-11-01T10:00:00.000000Z,2L-1.0.0\n'
        "2,u2,ben,g1,2,{},,2026-11-01T10:05:00.000000Z,2L-1.0.0\n",
        encoding="utf-8",
    )
    (old / "labels.csv").write_text(
        "event_id,uid,reviewer,game_id,kind,item_id,label,created_at\n"
        "1,l1,rev,g1,role,m2,false,2026-11-01T11:00:00.000000Z\n",
        encoding="utf-8",
    )
    store = RatingStore(tmp_path / "r.db")
    assert store.restore(old) == {"ratings": 2, "labels": 1}
    assert store.latest().select("rater", "score", "notes", "instrument").rows() == [
        ("ana", 4, "fine", "2L-1.0.0"),
        ("ben", 2, "", "2L-1.0.0"),
    ]
    assert store.labels().rows() == [("g1", "role", "m2", False)]
    assert store.import_events(old / "ratings.csv") == 0


@pytest.mark.parametrize(
    ("part", "text", "field", "value"),
    [
        ("items", f"uid,rater,item_id,score,notes,text_sha256,created_at\n"
                  f"u1,ana,i1,10,,{H1},2026-11-01T10:00:00Z\n", "score", "10"),
        ("items", "uid,rater,item_id,score,notes,text_sha256,created_at\n"
                  "u1,ana,i1,3,,abc,2026-11-01T10:00:00Z\n", "text_sha256", "abc"),
        ("drafts", "kind,rater,id,score,answers,notes,text_sha256,updated_at\n"
                   "item,ana,i1,,{},,,2026-11-01T10:00:00+00:00\n", "text_sha256", "None"),
        ("drafts", "kind,rater,id,score,answers,notes,text_sha256,updated_at\n"
                   "game,ana,g1,7,{},,,2026-11-01T10:00:00+00:00\n", "score", "7"),
    ],
)  # fmt: skip
def test_a_bad_row_of_a_backup_is_named_and_nothing_of_the_backup_is_added(
    tmp_path: Path, part: str, text: str, field: str, value: str
) -> None:
    good = _filled(tmp_path / "a.db")
    folder = tmp_path / "backup"
    good.backup(folder, fmt="csv")
    (folder / f"{part}.csv").write_text(text, encoding="utf-8")
    store = RatingStore(tmp_path / "b.db")
    with pytest.raises(InputError) as info:
        store.restore(folder)
    said = str(info.value)
    assert said.startswith(f"{folder / f'{part}.csv'}:2: {field}=") and value in said
    assert all(frame.height == 0 for frame in _contents(store).values())


def test_two_restores_at_once_add_each_row_once(tmp_path: Path) -> None:
    source = _filled(tmp_path / "a.db")
    source.backup(tmp_path / "backup")
    target = tmp_path / "b.db"
    RatingStore(target)
    results: list[dict[str, int]] = []
    errors: list[BaseException] = []

    def restore() -> None:
        try:  # each thread its own store object: its own SQLite connection and locks
            results.append(RatingStore(target).restore(tmp_path / "backup"))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=restore) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors and len(results) == 2
    assert sorted(sum(r.values()) for r in results) == [0, 14]  # 11 rows, 2 skips, 1 adjudication
    want, got = _contents(source), _contents(RatingStore(target))
    for part in EXPORT_PARTS:
        assert got[part].equals(want[part]), part


def test_a_folder_without_a_backup_is_refused_by_name(tmp_path: Path) -> None:
    store = RatingStore(tmp_path / "r.db")
    with pytest.raises(InputError, match="holds no backup of a ratings store"):
        store.restore(tmp_path)
    with pytest.raises(InputError, match="what must be one of ratings, labels, items, drafts"):
        store.export(tmp_path / "x.csv", what="sessions")


def test_a_draft_stamped_in_another_zone_is_compared_in_utc(tmp_path: Path) -> None:
    store = RatingStore(tmp_path / "a.db")
    store.save_draft("ana", "g1", 2, notes="typed now")
    older = tmp_path / "drafts.csv"
    # 23:00 at UTC+02:00 the day before is 21:00 UTC: older than the draft the store holds.
    older.write_text(
        "kind,rater,id,score,answers,notes,text_sha256,updated_at\n"
        "game,ana,g1,5,{},an old note,,2020-01-01T23:00:00+02:00\n",
        encoding="utf-8",
    )
    assert store.import_events(older, what="drafts") == 0
    draft = store.draft("ana", "g1")
    assert draft is not None and (draft.score, draft.notes) == (2, "typed now")
    fresh = RatingStore(tmp_path / "b.db")
    assert fresh.import_events(older, what="drafts") == 1
    draft = fresh.draft("ana", "g1")
    assert draft is not None and draft.updated_at == "2020-01-01T21:00:00.000000+00:00"


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_a_zip_backup_restored_into_a_fresh_store_is_the_same_store(
    tmp_path: Path, fmt: str
) -> None:
    import zipfile

    store = _filled(tmp_path / "a.db")
    archive = tmp_path / "backup.zip"
    assert store.backup(archive, fmt=fmt) == [archive]
    with zipfile.ZipFile(archive) as zipped:  # read by the standard library, not by us
        want_names = [*(f"{p}.{fmt}" for p in EXPORT_PARTS), "session.json"]
        assert sorted(zipped.namelist()) == sorted(want_names)
    fresh = RatingStore(tmp_path / "b.db")
    assert fresh.restore(archive) == {
        "ratings": 2,
        "labels": 1,
        "items": 3,
        "drafts": 5,
        "skips": 2,
        "adjudications": 1,
        "draws": 0,
    }
    want, got = _contents(store), _contents(fresh)
    for part in EXPORT_PARTS:
        assert got[part].equals(want[part]), part
    assert fresh.restore(archive) == dict.fromkeys(EXPORT_PARTS, 0)


def test_a_zip_that_is_not_a_backup_is_refused_in_one_line_naming_it(tmp_path: Path) -> None:
    import zipfile

    store = RatingStore(tmp_path / "r.db")
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(InputError, match=r"junk\.zip.*not a readable zip backup") as err:
        store.restore(junk)
    assert "\n" not in str(err.value)
    # A zip of other files: nothing of them is extracted, and it holds no backup.
    other = tmp_path / "other.zip"
    with zipfile.ZipFile(other, "w") as zipped:
        zipped.writestr("../../escape.parquet", b"x")
        zipped.writestr("notes.txt", b"hello")
    with pytest.raises(InputError, match="holds no backup of a ratings store"):
        store.restore(other)
    assert not (tmp_path.parent / "escape.parquet").exists()


def test_a_zip_part_beyond_the_reading_limit_is_refused_before_it_is_inflated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import zipfile

    monkeypatch.setenv("TOOLKIT_MAX_FILE_BYTES", "1000")
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zipped:
        zipped.writestr("ratings.csv", b"0" * 100_000)  # compresses to a few hundred bytes
    store = RatingStore(tmp_path / "r.db")
    too_big = r"ratings\.csv=100000: a backup part larger than the limit"
    with pytest.raises(InputError, match=too_big):
        store.restore(bomb)
    assert store.events().height == 0
