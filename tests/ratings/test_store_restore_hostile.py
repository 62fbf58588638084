"""Restoring a backup never loses or mixes work: a backup of another session is refused
(or, when the organiser says so, kept as that session's data without replacing or
counting anything here); the rating that counts is the last one the store recorded, not
the one with the latest wall-clock stamp; every zip member is read through the reading
limits, and an archive the standard library cannot read, a FIFO or a device is a
one-line refusal naming the user's own file."""

from __future__ import annotations

import io
import os
import struct
import threading
import zipfile
from pathlib import Path

import polars as pl
import pytest

from toolkit.errors import InputError
from toolkit.ratings.store import RatingStore

GAMES = ["g1", "g2"]


def _session_store(path: Path) -> RatingStore:
    store = RatingStore(path)
    store.open_session(GAMES, ["ana", "ben"], 2, 1)
    return store


def _scores(store: RatingStore) -> list[tuple[str, str, int, str]]:
    return store.latest().select("rater", "transcript_id", "score", "notes").rows()


def test_a_backup_of_another_session_is_refused_and_nothing_changes(tmp_path: Path) -> None:
    ours = _session_store(tmp_path / "ours.db")
    ours.submit("ana", "g1", 4, notes="ours")
    ours.save_draft("ben", "g1", 2, notes="ben half-way")
    ours.save_draft("ben", "g2", 3, notes="ben on g2")
    theirs = _session_store(tmp_path / "theirs.db")  # same games, same rater names
    theirs.submit("ana", "g1", 1, notes="theirs")
    theirs.save_draft("ben", "g1", 5, notes="their ben")
    theirs.save_draft("ben", "g2", 5, notes="their ben g2")
    archive = tmp_path / "theirs.zip"
    theirs.backup(archive)
    before = (_scores(ours), ours.all_drafts())

    with pytest.raises(InputError) as info:
        ours.restore(archive)
    said = str(info.value)
    assert said.startswith(f"{archive}: session_id=") and "another rating session" in said
    assert "\n" not in said
    assert _scores(ours) == before[0] and ours.all_drafts().equals(before[1])


def test_another_sessions_backup_imported_as_its_data_replaces_and_counts_nothing(
    tmp_path: Path,
) -> None:
    ours = _session_store(tmp_path / "ours.db")
    ours.submit("ana", "g1", 4, notes="ours")
    ours.save_draft("ben", "g1", 2, notes="ben half-way")
    theirs = _session_store(tmp_path / "theirs.db")
    theirs.submit("ana", "g1", 1, notes="theirs")
    theirs.submit("ben", "g2", 2, notes="their ben")
    theirs.save_draft("ben", "g1", 5, notes="their ben")
    theirs.backup(tmp_path / "theirs")
    drafts = ours.all_drafts()

    own_draws = ours.draws()
    added = ours.restore(tmp_path / "theirs", other_session=True)
    # labels and drafts left out; their session's draws kept as theirs, ours unchanged
    assert added == {"ratings": 2, "items": 0, "skips": 0, "adjudications": 0, "draws": 2}
    assert ours.draws().equals(own_draws)
    assert _scores(ours) == [("ana", "g1", 4, "ours")]
    assert ours.ratings().rows() == [("g1", "ana", 4.0)]
    assert ours.all_drafts().equals(drafts)
    # kept: a backup of this store carries them as the other session's
    ours.backup(tmp_path / "again", fmt="csv")
    kept = pl.read_csv(tmp_path / "again" / "ratings.csv")
    theirs_id = theirs.session_identity()
    assert sorted(kept.filter(pl.col("origin") == theirs_id)["notes"].to_list()) == [
        "their ben",
        "theirs",
    ]
    # and a second import adds nothing
    assert ours.restore(tmp_path / "theirs", other_session=True) == {
        "ratings": 0,
        "items": 0,
        "skips": 0,
        "adjudications": 0,
        "draws": 0,
    }
    # this session's own backup is not "another session's"
    ours.backup(tmp_path / "own")
    with pytest.raises(InputError, match="backup of this store's own session"):
        ours.restore(tmp_path / "own", other_session=True)


def test_a_backup_stamped_by_a_clock_an_hour_ahead_does_not_stop_a_new_submit_counting(
    tmp_path: Path,
) -> None:
    store = _session_store(tmp_path / "s.db")
    store.submit("ana", "g1", 2, notes="first")
    folder = tmp_path / "ahead"
    store.backup(folder, fmt="csv")
    # The same session's backup, edited as if written on a machine 1 h ahead: a rating
    # of ana's the store never saw, stamped an hour from now.
    ratings = pl.read_csv(folder / "ratings.csv", infer_schema=False)
    ahead = ratings.with_columns(
        uid=pl.lit("from-the-machine-ahead"),
        notes=pl.lit("ahead"),
        score=pl.lit("3"),
        created_at=pl.lit("2099-01-01T00:00:00.000000+00:00"),
        seq=pl.lit("2"),
    )
    pl.concat([ratings, ahead]).write_csv(folder / "ratings.csv")
    assert store.restore(folder)["ratings"] == 1
    assert _scores(store) == [("ana", "g1", 3, "ahead")]  # it came after "first" there
    store.submit("ana", "g1", 5, notes="submitted now")
    assert _scores(store) == [("ana", "g1", 5, "submitted now")]


def test_an_older_rating_restored_never_counts_over_a_newer_one(tmp_path: Path) -> None:
    store = _session_store(tmp_path / "s.db")
    store.submit("ana", "g1", 2, notes="old")
    store.backup(tmp_path / "old")
    store.submit("ana", "g1", 4, notes="new")
    fresh = tmp_path / "fresh.db"
    lost = RatingStore(fresh)
    lost.restore(tmp_path / "old")  # the store lost, its old backup restored...
    lost.submit("ana", "g1", 5, notes="typed after the loss")
    lost.restore(tmp_path / "old")
    assert _scores(lost) == [("ana", "g1", 5, "typed after the loss")]
    # ...then the newer backup found: its "new" came after "old" there, but this store
    # recorded "typed after the loss" which that backup never saw: what counts stays.
    store.backup(tmp_path / "newer")
    assert lost.restore(tmp_path / "newer")["ratings"] == 1
    assert _scores(lost) == [("ana", "g1", 5, "typed after the loss")]
    assert lost.events()["notes"].to_list() == ["old", "typed after the loss", "new"]
    # A store that never moved on takes the newer backup's rating as the one that counts.
    behind = RatingStore(tmp_path / "behind.db")
    behind.restore(tmp_path / "old")
    behind.restore(tmp_path / "newer")
    assert _scores(behind) == [("ana", "g1", 4, "new")]


def test_a_label_stamped_by_a_clock_ahead_does_not_stop_a_new_label_counting(
    tmp_path: Path,
) -> None:
    store = RatingStore(tmp_path / "s.db")
    folder = tmp_path / "b"
    folder.mkdir()
    (folder / "labels.csv").write_text(
        "uid,reviewer,game_id,kind,item_id,label,created_at\n"
        "l1,rev,g1,role,m2,false,2099-01-01T00:00:00Z\n",
        encoding="utf-8",
    )
    assert store.restore(folder) == {"labels": 1}
    assert store.labels().rows() == [("g1", "role", "m2", False)]
    store.set_label("rev", "g1", "role", "m2", True)
    assert store.labels().rows() == [("g1", "role", "m2", True)]
    assert store.restore(folder) == {"labels": 0}


def test_a_draft_stamped_in_the_future_never_replaces_the_stores_draft(tmp_path: Path) -> None:
    store = RatingStore(tmp_path / "s.db")
    store.save_draft("ana", "g1", 2, notes="typed here")
    folder = tmp_path / "b"
    folder.mkdir()
    (folder / "drafts.csv").write_text(
        "kind,rater,id,score,answers,notes,text_sha256,updated_at\n"
        "game,ana,g1,5,{},from a clock ahead,,2099-01-01T00:00:00+00:00\n"
        "game,ana,g2,5,{},new here,,2099-01-01T00:00:00+00:00\n",
        encoding="utf-8",
    )
    assert store.restore(folder) == {"drafts": 1}
    kept = store.draft("ana", "g1")
    assert kept is not None and kept.notes == "typed here"


# --- the archive itself ---------------------------------------------------------------


def _zip(path: Path, members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", method) as zipped:
        for name, data in members.items():
            zipped.writestr(name, data)
    return path


def _with_method(path: Path, method: int, flags: int = 0) -> Path:
    """Rewrite every member's compression method (and OR in general-purpose flags) in
    both the local and the central headers, as an archiver using that method writes
    them (APPNOTE 4.3.7 and 4.3.12: method at offsets 8 and 10, flags at 6 and 8)."""
    data = bytearray(path.read_bytes())
    for sig, flag_at, method_at in ((b"PK\x03\x04", 6, 8), (b"PK\x01\x02", 8, 10)):
        at = data.find(sig)
        while at != -1:
            old_flags = struct.unpack_from("<H", data, at + flag_at)[0]
            struct.pack_into("<H", data, at + flag_at, old_flags | flags)
            struct.pack_into("<H", data, at + method_at, method)
            at = data.find(sig, at + 4)
    path.write_bytes(bytes(data))
    return path


RATINGS_CSV = (
    b"uid,rater,transcript_id,score,answers,notes,created_at,instrument\n"
    b"u1,ana,g1,4,{},fine,2026-11-01T10:00:00Z,\n"
)


@pytest.mark.parametrize(
    ("method", "flags", "said"),
    [
        (zipfile.ZIP_STORED, 0x1, "member ratings.csv: encrypted"),
        (99, 0, "member ratings.csv: compressed with method 99 (AES encryption)"),
        (98, 0, "member ratings.csv: compressed with method 98 (PPMd)"),
        (93, 0, "member ratings.csv: compressed with method 93 (zstandard)"),
    ],
)
def test_an_archive_the_standard_library_cannot_read_is_one_line(
    tmp_path: Path, method: int, flags: int, said: str
) -> None:
    archive = _with_method(_zip(tmp_path / "b.zip", {"ratings.csv": RATINGS_CSV},
                                zipfile.ZIP_STORED), method, flags)  # fmt: skip
    store = RatingStore(tmp_path / "s.db")
    with pytest.raises(InputError) as info:
        store.restore(archive)
    assert str(info.value).startswith(f"{archive}: {said}") and "\n" not in str(info.value)
    assert store.events().height == 0


def test_a_corrupt_deflate_stream_is_one_line(tmp_path: Path) -> None:
    archive = _zip(tmp_path / "b.zip", {"ratings.csv": RATINGS_CSV * 50})
    data = bytearray(archive.read_bytes())
    start = 30 + len("ratings.csv")  # the local header's fixed part, then the name
    for i in range(start + 2, start + 40):
        data[i] ^= 0xFF
    archive.write_bytes(bytes(data))
    with pytest.raises(InputError) as info:
        RatingStore(tmp_path / "s.db").restore(archive)
    said = str(info.value)
    assert said.startswith(f"{archive}: member ratings.csv: cannot be read (") and "\n" not in said


def test_a_member_that_inflates_a_hundredfold_is_refused_before_it_is_read(
    tmp_path: Path,
) -> None:
    archive = _zip(tmp_path / "b.zip", {"ratings.csv": RATINGS_CSV + b"\n" * (4 << 20)})
    with pytest.raises(InputError, match=r"member ratings\.csv: inflates [\d,]+ times"):
        RatingStore(tmp_path / "s.db").restore(archive)


def test_blank_lines_and_parquet_rows_count_against_the_row_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOOLKIT_MAX_ROWS", "1000")
    padded = _zip(tmp_path / "p.zip", {"ratings.csv": RATINGS_CSV + b"\n" * 1000})
    with pytest.raises(InputError, match=r"member ratings\.csv: holds 1,002 rows \(blank"):
        RatingStore(tmp_path / "s.db").restore(padded)
    folder = tmp_path / "padded"
    folder.mkdir()
    (folder / "ratings.csv").write_bytes(RATINGS_CSV + b"\n" * 1000)
    with pytest.raises(InputError, match=r"padded/ratings\.csv: holds 1,002 rows"):
        RatingStore(tmp_path / "s.db").restore(folder)
    buffer = io.BytesIO()
    pl.DataFrame({"uid": ["same"] * 5000}).write_parquet(buffer)
    many = _zip(tmp_path / "m.zip", {"ratings.parquet": buffer.getvalue()})
    with pytest.raises(InputError, match=r"member ratings\.parquet: holds 5,000 rows"):
        RatingStore(tmp_path / "s.db").restore(many)


def test_a_bad_row_in_a_zip_is_named_by_the_zip_not_a_temporary_folder(tmp_path: Path) -> None:
    bad = RATINGS_CSV.replace(b",4,", b",9,")
    archive = _zip(tmp_path / "mine.zip", {"ratings.csv": bad})
    with pytest.raises(InputError) as info:
        RatingStore(tmp_path / "s.db").restore(archive)
    assert str(info.value).startswith(f"{archive}:ratings.csv:2: score=")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_named_as_a_backup_or_a_part_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "backup.zip"
    os.mkfifo(fifo)
    folder = tmp_path / "folder"
    folder.mkdir()
    os.mkfifo(folder / "ratings.csv")
    store = RatingStore(tmp_path / "s.db")
    said: list[str] = []

    def attempt() -> None:
        for target in (fifo, folder):
            try:
                store.restore(target)
            except InputError as exc:
                said.append(str(exc))

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(timeout=10)
    assert not worker.is_alive(), "restore blocked on a FIFO"
    assert said == [
        f"{fifo}: a named pipe (FIFO), not a regular file",
        f"{folder / 'ratings.csv'}: a named pipe (FIFO), not a regular file",
    ]
