"""Live room feeds: each room followed by a stream on this instance is folded
once, and each of its events rendered once per audience, whatever the number
of streams.

A ``RoomFeed`` takes a room's events in any order and with repeats (from
hand.room-events, and straight from this instance's owner after a commit),
folds them strictly in seq order (a gap is filled from the event store) and
hands every subscriber the same ``Live`` item: the event, the room after it,
and a per-audience cache of the rendered Watch message.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass

import structlog

from hand.v1 import room_service_pb2 as pb
from hand_infra.eventstore import EventStore

from hand_table import Recorded, Room, evolve
from hand_wire import decode
from .repository import RoomRepository
from .grpc_messages import EventMessages

log = structlog.get_logger("hand_room.feeds")
#: events read from the store per page when a feed catches up
CATCH_UP_PAGE = 500


@dataclass
class Live:
    rec: Recorded
    room: Room  # the room after ``rec``
    stored: bytes | None = None  # ``encode(rec)`` where the owner just appended it: its whole event, parsed
    _rendered: EventMessages | None = None

    @property
    def seq(self) -> int:
        return self.rec.seq

    def message(self, seat: int | None) -> pb.WatchResponse:
        """The Watch message for ``seat`` (None: spectators), rendered once."""
        if self._rendered is None:
            self._rendered = EventMessages(self.room, self.rec, self.stored)
        return self._rendered.message(seat)


class RoomFeed:
    def __init__(self, room_id: str, store: EventStore, repo: RoomRepository) -> None:
        self.room_id, self.store, self.repo = room_id, store, repo
        self.room: Room | None = None
        self.subscribers: set[asyncio.Queue] = set()
        self._inbox: asyncio.Queue[tuple[Recorded, Room | None, bool]] = asyncio.Queue()
        self.known = 0  # the seq after the last event offered or read: what the feed will reach
        self._task: asyncio.Task | None = None
        self._ready = asyncio.Event()
        self._busy = False  # the task is taking an item (it may be reading the store)

    async def start(self) -> None:
        self.room = await self.repo.get(self.room_id, fresh=True)
        self.known = max(self.known, self.room.seq if self.room is not None else 0)
        self._ready.set()
        self._task = asyncio.create_task(self._run(), name=f"feed-{self.room_id}")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    def offer(self, rec: Recorded, after: Room | None = None, trusted: bool = False,
              stored: bytes | None = None) -> None:
        self.known = max(self.known, rec.seq + 1)
        if (after is not None and not self._busy and self._inbox.empty() and self._ready.is_set()
                and rec.seq == (self.room.seq if self.room is not None else 0)):
            # the owner's next event, nothing before it pending: handed on now, without
            # waking the feed's task (one loop wake-up less per event at human pace)
            try:
                self._publish(rec, after, trusted, stored)
            except Exception as exc:
                log.error("feed_event_failed", room_id=self.room_id, seq=rec.seq, error=type(exc).__name__)
            return
        self._inbox.put_nowait((rec, after, trusted, stored))

    def sync(self) -> None:
        """Catch up with the store, in turn with the offers: for events the topic may never
        bring (published while this instance's consumer was away or not yet at its place)."""
        self._inbox.put_nowait((None, None, False, None))

    async def _run(self) -> None:
        while True:
            rec, after, trusted, stored = await self._inbox.get()
            self._busy = True  # offers wait in the inbox meanwhile: a catch-up may be reading
            try:
                if rec is None:
                    await self._catch_up()
                else:
                    await self._take(rec, after, trusted, stored)
            except Exception as exc:
                log.error("feed_event_failed", room_id=self.room_id, seq=rec.seq if rec else None,
                          error=type(exc).__name__)
            finally:
                self._busy = False

    async def _catch_up(self) -> None:
        while True:
            head = self.room.seq if self.room is not None else 0
            stored = await self.store.load(self.room_id, head, limit=CATCH_UP_PAGE)
            for ev in stored:
                self._publish(decode(ev.payload), None, False)
            self.known = max(self.known, self.room.seq if self.room is not None else 0)
            if len(stored) < CATCH_UP_PAGE:
                return

    async def _take(self, rec: Recorded, after: Room | None, trusted: bool, stored: bytes | None) -> None:
        head = self.room.seq if self.room is not None else 0
        if rec.seq < head:
            return  # seen already
        if rec.seq > head:  # a gap: the store has what the topic has not brought yet
            for ev in await self.store.load(self.room_id, head, limit=rec.seq - head):
                self._publish(decode(ev.payload), None, False)
            if (self.room.seq if self.room is not None else 0) != rec.seq:
                return
        self._publish(rec, after, trusted, stored)

    def _publish(self, rec: Recorded, after: Room | None, trusted: bool, stored: bytes | None = None) -> None:
        """Fold ``rec`` once (or take the owner's fold) and hand it to every stream."""
        self.room = after if after is not None else evolve(self.room, rec)
        self.repo.observe(rec, self.room, trusted)
        item = Live(rec, self.room, stored)
        for queue in self.subscribers:
            queue.put_nowait(item)


class Feeds:
    """The feeds of this instance, one per room with at least one stream."""

    def __init__(self, store: EventStore, repo: RoomRepository) -> None:
        self.store, self.repo = store, repo
        self._feeds: dict[str, RoomFeed] = {}
        self.version = 0  # bumped when a feed starts or ends (the bus reads what they need)

    def rooms(self):
        return self._feeds.keys()

    def following(self, room_id: str) -> bool:
        return room_id in self._feeds

    def offer(self, rec: Recorded, after: Room | None = None, trusted: bool = False,
              stored: bytes | None = None) -> None:
        """A committed event (from the topic, or from this instance's owner with the room
        after it and ``stored``, the bytes it appended: ``encode(rec)``)."""
        feed = self._feeds.get(rec.room_id)
        if feed is not None:
            feed.offer(rec, after, trusted, stored)
        else:
            self.repo.observe(rec, after, trusted)

    def behind(self, rooms: dict[str, Room | None]) -> None:
        """The owner's rooms as it holds them: a feed that will not reach one of them (an event
        committed by a previous owner after the room moved here, which no topic brings this
        instance any more) catches up with the store."""
        for room_id, room in rooms.items():
            feed = self._feeds.get(room_id)
            if feed is not None and room is not None and feed.known < room.seq:
                feed.known = room.seq
                feed.sync()

    def sync(self, room_ids=None) -> None:
        """Each feed of ``room_ids`` (None: every feed) catches up with the store."""
        for room_id in list(self._feeds) if room_ids is None else room_ids:
            feed = self._feeds.get(room_id)
            if feed is not None:
                feed.sync()

    async def join(self, room_id: str) -> tuple[RoomFeed, asyncio.Queue]:
        feed = self._feeds.get(room_id)
        if feed is None:
            feed = self._feeds[room_id] = RoomFeed(room_id, self.store, self.repo)
            self.version += 1
            try:
                await feed.start()
            except BaseException:
                self._feeds.pop(room_id, None)
                raise
        await feed._ready.wait()
        queue: asyncio.Queue = asyncio.Queue()
        feed.subscribers.add(queue)
        return feed, queue

    async def leave(self, feed: RoomFeed, queue: asyncio.Queue) -> None:
        feed.subscribers.discard(queue)
        if not feed.subscribers and self._feeds.get(feed.room_id) is feed:
            del self._feeds[feed.room_id]
            self.version += 1
            await feed.stop()

    async def stop(self) -> None:
        for feed in list(self._feeds.values()):
            await feed.stop()
        self._feeds.clear()
