"""``RoomRepository``: a read from the store that finishes after the owner cached a newer
room never puts the older one back (the cache only moves forward)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from hand_engine import resolve
from hand_table import evolve, CreateRoom, JoinRoom
from hand_wire import encode
from hand_room.repository import RoomRepository

from tests.room_domain_support import Room


class SlowStore:
    """An event store whose reads wait until the test lets them finish."""

    def __init__(self, events) -> None:
        self.events, self.release = events, asyncio.Event()

    async def load(self, room_id: str, from_seq: int = 0, limit: int | None = None):
        snapshot = [SimpleNamespace(seq=r.seq, payload=encode(r)) for r in self.events if r.seq >= from_seq]
        await self.release.wait()  # the owner appends meanwhile
        return snapshot


def _room_events():
    r = Room()
    r.run(CreateRoom("ABCDEF", False, "hand", resolve("hand", {"rounds": 1}).seated(3), 30, "host", "p0", "h0"))
    r.run(JoinRoom("p1", "p1", "h1"))
    r.run(JoinRoom("p2", "p2", "h2"))
    return r.events


def _fold(events):
    room = None
    for rec in events:
        room = evolve(room, rec)
    return room


async def _race(events, fresh: bool) -> tuple[int, int]:
    store = SlowStore(events[:2])
    repo = RoomRepository(store)
    if fresh:
        repo.put(_fold(events[:1]))
    reading = asyncio.create_task(repo.get("r1", fresh=fresh))
    await asyncio.sleep(0)
    newest = _fold(events)  # the owner appended the rest and caches the room after it
    repo.put(newest)
    store.release.set()
    got = await reading
    return got.seq, repo.cached("r1").seq


def test_a_fold_that_ends_after_a_newer_room_was_cached_keeps_the_newer_one() -> None:
    events = _room_events()
    got, cached = asyncio.run(_race(events, fresh=False))
    assert cached == got == len(events)


def test_a_fast_forward_that_ends_after_a_newer_room_was_cached_keeps_the_newer_one() -> None:
    events = _room_events()
    got, cached = asyncio.run(_race(events, fresh=True))
    assert cached == got == len(events)


def test_put_never_moves_a_cached_room_back() -> None:
    events = _room_events()
    repo = RoomRepository(SlowStore(events))
    repo.put(_fold(events))
    repo.put(_fold(events[:2]))
    assert repo.cached("r1").seq == len(events)
