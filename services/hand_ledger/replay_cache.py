"""Folded archives for GetReplay, cached per room and extended as events arrive.

Stepping through a replay asks for the same room again and again, so the
steps of the last ``capacity`` rooms stay in memory (least recently used
out); a room's cached fold is extended with the events archived since. The
fold runs in a worker thread so a long match does not stall the event loop.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict

from . import reads
from .replay import Step, fold
from .store import LedgerStore


class Replays:
    def __init__(self, store: LedgerStore, capacity: int = 8) -> None:
        self.store, self.capacity = store, capacity
        self._cache: OrderedDict[str, list[Step]] = OrderedDict()
        self._locks: dict[str, asyncio.Lock] = {}

    async def steps(self, room_id: str) -> list[Step]:
        """Every step of the room's archive so far (empty for an unknown room)."""
        lock = self._locks.setdefault(room_id, asyncio.Lock())
        async with lock:
            cached = self._cache.get(room_id, [])
            async with self.store.read() as conn:
                new = await reads.load_events(conn, room_id, from_seq=len(cached))
            if new:
                start = cached[-1].room if cached else None
                cached = cached + await asyncio.to_thread(fold, new, start)
            if cached:
                self._cache[room_id] = cached
                self._cache.move_to_end(room_id)
                while len(self._cache) > self.capacity:
                    old, _ = self._cache.popitem(last=False)
                    self._locks.pop(old, None)
        if not cached:
            self._locks.pop(room_id, None)
        return cached
