"""``RoomRepository``: a read from the store that finishes after the owner cached a newer
room never puts the older one back (the cache only moves forward)."""

from __future__ import annotations

import asyncio
import dataclasses
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


class CountingStore:
    """An event store that counts its reads and where they start."""

    def __init__(self, events) -> None:
        self.events, self.reads = list(events), []

    async def load(self, room_id: str, from_seq: int = 0, limit: int | None = None):
        self.reads.append(from_seq)
        return [SimpleNamespace(seq=r.seq, payload=encode(r)) for r in self.events if r.seq >= from_seq]


def _doubted_room(events) -> tuple[RoomRepository, CountingStore]:
    store = CountingStore(events[:2])
    repo = RoomRepository(store)
    repo.put(_fold(events[:2]))
    store.events = events  # another instance appended the last event while it owned the room
    repo.doubt_where(lambda room_id: room_id == "r1")
    return repo, store


def test_a_doubted_room_is_read_from_its_tail_before_its_next_use_not_folded_again() -> None:
    events = _room_events()
    repo, store = _doubted_room(events)

    async def run():
        return await repo.get("r1"), await repo.get("r1")

    first, second = asyncio.run(run())
    assert first.seq == second.seq == events[-1].seq + 1  # the other instance's event applied
    assert store.reads == [2]  # one read, of the tail only; the next get uses the cache
    assert repo.loads == 0


def test_a_room_put_or_forgotten_is_no_longer_in_doubt() -> None:
    events = _room_events()
    repo, store = _doubted_room(events)

    async def run():
        repo.put(_fold(events))
        await repo.get("r1")
        reads_after_put = list(store.reads)
        repo.doubt_where(lambda room_id: True)
        repo.forget("r1")
        await repo.get("r1")
        return store.reads, reads_after_put, repo.loads

    reads, after_put, loads = asyncio.run(run())
    assert after_put == []  # the room put is the newest: nothing read
    assert reads == [0] and loads == 1  # forgotten: folded from the start


def test_at_hand_answers_only_what_get_would_answer_without_reading_the_store() -> None:
    events = _room_events()
    store = CountingStore(events)
    repo = RoomRepository(store)
    assert repo.at_hand("r1") is None  # not cached: get must fold it
    repo.put(_fold(events[:2]))
    assert repo.at_hand("r1").seq == 2
    assert repo.at_hand("r1", min_seq=2).seq == 2
    assert repo.at_hand("r1", min_seq=3) is None  # behind what the caller needs
    assert repo.at_hand("r1", fresh=True) is None
    repo.doubt_where(lambda room_id: True)
    assert repo.at_hand("r1") is None  # in doubt: get reads its tail first
    assert store.reads == []

    got = asyncio.run(repo.get("r1"))
    assert got.seq == len(events) and store.reads == [2]
    assert repo.at_hand("r1") is got  # no longer in doubt


def test_at_hand_keeps_the_room_it_answers_among_the_recently_used() -> None:
    events = _room_events()
    repo = RoomRepository(CountingStore(events), max_rooms=2)
    first = _fold(events)
    repo.put(first)
    repo.put(dataclasses.replace(first, room_id="r2"))
    assert repo.at_hand("r1") is first  # r1 used last: r2 is the least recently used
    repo.put(dataclasses.replace(first, room_id="r3"))
    assert repo.cached("r2") is None and repo.cached("r1") is first
