"""A Watch stream once the gateway has let it in: a snapshot of the room just before
``from_seq``, the stored tail up to the live feed, then the feed itself (``feeds.py``:
each event folded once and rendered once per audience, whatever the number of streams).

A seat's stream is also its presence: the owner counts each seat's open streams across
every instance (``presence.py``), so a seat is away only when no stream of it is open
anywhere; after an ownership change every stream open here is announced to the (maybe
new) owner.
"""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from collections.abc import AsyncIterator, Callable

import structlog

from hand.v1 import room_pb2
from hand.v1 import room_service_pb2 as pb
from hand_infra.eventstore import EventStore
from hand_table import Command, Presence, Room, evolve
from hand_wire import decode

from . import metrics as M
from .feeds import Feeds
from .grpc_messages import event_message, snapshot_message
from .router import CommandRouter

log = structlog.get_logger("hand_room.gateway")
_END = object()  # put in a stream's queue: the stream ends (a graceful stop, ``drain``)


class WatchStreams:
    def __init__(self, router: CommandRouter, store: EventStore, feeds: Feeds,
                 info: Callable[[Room, int | None], room_pb2.RoomInfo]) -> None:
        self.router, self.store, self.feeds, self.info = router, store, feeds, info
        self._open: dict[str, tuple[str, int, float]] = {}  # stream id -> (room, seat, opened at)
        self._queues: dict[str, asyncio.Queue] = {}  # stream id -> its queue, every stream's
        self._draining = False

    async def serve(self, room_id: str, seat: int | None, from_seq: int, *,
                    presence: bool) -> AsyncIterator[pb.WatchResponse]:
        """The stream's messages for ``seat`` (None: a spectator) from event ``from_seq`` on."""
        feed, queue = await self.feeds.join(room_id)
        live_from = feed.room.seq  # every queued item has a seq >= this
        stream_id = f"{self.router.ownership.me.instance_id}/{uuid.uuid4().hex[:12]}"
        self._queues[stream_id] = queue
        if self._draining:  # opened while this instance stops: the snapshot, then the end
            queue.put_nowait(_END)
        audience = "seat" if seat is not None else "spectator"
        M.WATCH_STREAMS.labels(audience).inc()
        if from_seq:
            M.RECONNECTS.labels(audience).inc()
        try:
            room = await self._room_at(room_id, from_seq, feed.room)
            yield self._snapshot(room, from_seq, seat)
            if presence:
                self._open[stream_id] = (room_id, seat, time.time())
                await self._presence(room_id, seat, True, time.time(), stream_id)
            next_seq = from_seq
            for ev in (await self.store.load(room_id, next_seq, limit=live_from - next_seq)
                       if next_seq < live_from else ()):
                rec = decode(ev.payload)
                room = evolve(room, rec)
                yield event_message(room, rec, seat)
                next_seq += 1
            while True:
                item = await queue.get()
                if item is _END:
                    return
                if item.seq < next_seq:
                    continue
                if item.seq > next_seq:  # fell behind the feed: the store fills the gap
                    for ev in await self.store.load(room_id, next_seq, limit=item.seq - next_seq):
                        rec = decode(ev.payload)
                        room = evolve(room, rec)
                        yield event_message(room, rec, seat)
                        next_seq += 1
                yield item.message(seat)
                room, next_seq = item.room, item.seq + 1
        finally:
            self._queues.pop(stream_id, None)
            M.WATCH_STREAMS.labels(audience).dec()
            await self.feeds.leave(feed, queue)
            if self._open.pop(stream_id, None) is not None:
                asyncio.ensure_future(self._presence(room_id, seat, False, time.time(), stream_id))

    def _snapshot(self, room: Room | None, next_seq: int, seat: int | None) -> pb.WatchResponse:
        msg = snapshot_message(room, next_seq, seat)
        if room is not None:
            msg.room.CopyFrom(self.info(room, seat))
        return msg

    async def _room_at(self, room_id: str, next_seq: int, head: Room | None) -> Room | None:
        """The room just before event ``next_seq``."""
        if head is not None and head.seq == next_seq:
            return head
        room = None
        for ev in await self.store.load(room_id, 0, limit=next_seq) if next_seq else ():
            room = evolve(room, decode(ev.payload))
        return room

    async def _presence(self, room_id: str, seat: int, connected: bool, at: float, stream_id: str) -> None:
        """One stream of a seat opened or closed: the owner counts them (presence.py)."""
        try:
            await self.router.send(Command(room_id, Presence(connected, at, stream_id), seat=seat), wait=False)
        except Exception:
            log.warning("presence_send_failed", room_id=room_id, seat=seat)

    async def drain(self, over_s: float) -> None:
        """A graceful stop: end every stream open here, one after another over ``over_s``
        seconds in a random order, so that their clients reconnect elsewhere spread out
        (docs/clients.md §8: a Watch that ends is resumed from the last seq + 1) rather
        than all at once when the server's grace runs out — 1,200 streams reopening in
        one instant met the rebalance that moves the rooms, and moves waited past 3 s."""
        self._draining = True
        queues = list(self._queues.values())
        random.shuffle(queues)
        loop = asyncio.get_running_loop()
        step = over_s / len(queues) if queues else 0.0
        for i, queue in enumerate(queues):
            loop.call_later(step * i, queue.put_nowait, _END)
        log.info("streams_draining", streams=len(queues), over_s=over_s)
        if len(queues) > 1:
            await asyncio.sleep(step * (len(queues) - 1))  # until the last one is told to end

    def announce(self) -> None:
        """Ownership moved: tell the owners (maybe new) of every stream open here."""
        for stream_id, (room_id, seat, opened) in list(self._open.items()):
            asyncio.ensure_future(self._presence(room_id, seat, True, opened, stream_id))
