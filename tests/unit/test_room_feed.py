"""``RoomFeed`` (hand_room/feeds.py): every subscriber gets a room's events once each, in
seq order, whether they come from this instance's owner (the room after them attached)
or from the topic, with gaps filled from the store. The owner's next event is handed on
at once when nothing is pending (no wake-up of the feed's task); while the task reads
the store it waits its turn."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from hand_engine import resolve
from hand_table import CreateRoom, JoinRoom, evolve
from hand_wire import encode
from hand_room.feeds import RoomFeed
from hand_room.repository import RoomRepository

from tests.room_domain_support import Room


def _events():
    r = Room()
    r.run(CreateRoom("ABCDEF", False, "hand", resolve("hand", {"rounds": 1}).seated(4), 30, "host", "p0", "h0"))
    for i in range(1, 4):
        r.run(JoinRoom(f"p{i}", f"p{i}", f"h{i}"))
    return r.events


class HeldStore:
    """An event store holding the room's stored events; ``hold`` makes reads wait."""

    def __init__(self, events) -> None:
        self.events, self.hold, self.reading = list(events), None, asyncio.Event()

    async def load(self, room_id: str, from_seq: int = 0, limit: int | None = None):
        out = [SimpleNamespace(seq=r.seq, payload=encode(r)) for r in self.events if r.seq >= from_seq]
        if self.hold is not None:
            self.reading.set()
            await self.hold.wait()
        return out[:limit] if limit is not None else out


def _rooms(events):
    rooms, room = [], None
    for rec in events:
        room = evolve(room, rec)
        rooms.append(room)
    return rooms


async def _feed(store, events_before: int):
    feed = RoomFeed("r1", store, RoomRepository(store))
    await feed.start()
    queue: asyncio.Queue = asyncio.Queue()
    feed.subscribers.add(queue)
    assert feed.room.seq == events_before
    return feed, queue


def _seqs(queue: asyncio.Queue) -> list[int]:
    out = []
    while not queue.empty():
        out.append(queue.get_nowait().seq)
    return out


def _with_feed(stored: int, scenario):
    """Run ``scenario(store, feed, queue, events, rooms)`` on a started feed whose store
    holds the room's first ``stored`` events, with one subscriber's queue."""
    events = _events()
    rooms = _rooms(events)

    async def run():
        store = HeldStore(events[:stored])
        feed, queue = await _feed(store, stored)
        try:
            return await scenario(store, feed, queue, events, rooms)
        finally:
            await feed.stop()

    return asyncio.run(run())


def test_the_owners_next_event_reaches_the_streams_at_once() -> None:
    async def scenario(store, feed, queue, events, rooms):
        feed.offer(events[2], rooms[2], trusted=True)
        return _seqs(queue)  # no await between the offer and the look

    assert _with_feed(2, scenario) == [2]


def test_an_owners_event_waits_while_the_feed_reads_the_store_and_all_arrive_once_in_order() -> None:
    async def scenario(store, feed, queue, events, rooms):
        store.events = events[:3]  # two events the topic has not brought yet
        store.hold = asyncio.Event()
        feed.sync()  # the feed's task reads the store (held)
        await asyncio.wait_for(store.reading.wait(), 5)
        feed.offer(events[1], rooms[1], trusted=True)  # the owner's commit the read will bring too
        feed.offer(events[3], rooms[3], trusted=True)  # and its next one
        early = _seqs(queue)
        store.hold.set()
        for _ in range(100):
            await asyncio.sleep(0)
        return early, _seqs(queue), feed.room.seq

    early, later, head = _with_feed(1, scenario)
    assert early == []  # nothing overtook the catch-up
    assert later == [1, 2, 3] and head == 4
