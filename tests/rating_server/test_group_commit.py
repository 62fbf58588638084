"""Saves that arrive together are committed together, each answered only once it is in
the store, and one refused save never fails the others."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from toolkit.errors import InputError
from toolkit.rating_server import GroupCommit
from toolkit.ratings.store import RatingStore, Save


def _recording(store: RatingStore, batches: list[int]) -> None:
    real = store.save_many

    def save_many(saves: Sequence[Save]) -> list[int | str]:
        batches.append(len(saves))
        return real(saves)

    store.save_many = save_many  # type: ignore[method-assign]


def test_concurrent_saves_share_commits_and_all_land(tmp_path: Path) -> None:
    store = RatingStore(tmp_path / "r.db", keep_open=True)
    batches: list[int] = []
    _recording(store, batches)
    commits = GroupCommit(store)

    async def go() -> list[int | str]:
        saves = [Save(f"r{i:02d}", "g1", 1 + i % 5, notes=f"n{i}") for i in range(40)]
        saves += [Save(f"r{i:02d}", "g2", 3, submit=True) for i in range(10)]
        return await asyncio.gather(*(commits.save(s) for s in saves))

    results = asyncio.run(go())
    assert sum(batches) == 50
    assert len(batches) < 50  # saves that waited went together
    assert all(isinstance(r, str) for r in results[:40])
    assert sorted(r for r in results[40:] if isinstance(r, int)) == list(range(1, 11))
    drafts = store.drafts()
    assert drafts.height == 50
    assert store.latest()["transcript_id"].to_list() == ["g2"] * 10


def test_a_refused_save_fails_alone_and_the_others_are_committed(tmp_path: Path) -> None:
    store = RatingStore(tmp_path / "r.db")
    commits = GroupCommit(store)

    async def go() -> list[object]:
        saves = [Save("ana", "g1", 4), Save("ben", "g1", 9), Save("chidi", "g1", 2)]
        return await asyncio.gather(*(commits.save(s) for s in saves), return_exceptions=True)

    ana, ben, chidi = asyncio.run(go())
    assert isinstance(ana, str) and isinstance(chidi, str)
    assert isinstance(ben, InputError) and "score must be a whole number" in str(ben)
    assert store.drafts()["rater"].to_list() == ["ana", "chidi"]
