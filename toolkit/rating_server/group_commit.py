"""The group commit: the saves that arrive while one commit is written go together in
the next (:class:`GroupCommit`)."""

from __future__ import annotations

import asyncio

from starlette.concurrency import run_in_threadpool

from toolkit.ratings.store import RatingStore, Save

__all__ = ["GroupCommit"]


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
