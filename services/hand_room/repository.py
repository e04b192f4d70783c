"""``RoomRepository``: the one way to get a room — in memory when it can be,
folded from the event store when it must be (the eventsourcing library's
``Repository.get`` with a cache that fast-forwards is the model).

A cached room is fast-forwarded from the store's tail (``get(room_id, min_seq)``
reads only the events after the cached seq) or from live events of
hand.room-events (``observe``). Live events carry no seat credentials, so a
human ``seat_taken`` seen live drops the cached room instead: the next ``get``
reads the credentials back from the store. The cache is bounded (least
recently used rooms are dropped first).

A room whose partition moved (``doubt_where``) may be behind the store (another
instance may have owned it meanwhile): it stays cached, and the next ``get``
reads its tail first — a short read of the events after it, usually none,
instead of folding the room's whole log again.
"""

from __future__ import annotations

from collections import OrderedDict

from hand_infra.eventstore import EventStore

from hand_table import Recorded, Room, SeatTaken, evolve
from hand_wire import decode


class RoomRepository:
    def __init__(self, store: EventStore, max_rooms: int = 20_000) -> None:
        self.store = store
        self.max_rooms = max_rooms
        self._rooms: OrderedDict[str, Room] = OrderedDict()
        self._doubted: set[str] = set()  # cached rooms to fast-forward before their next use
        self.loads = 0  # folds from the store (for tests and metrics)

    def rooms(self) -> list[Room]:
        """The rooms held in memory now."""
        return list(self._rooms.values())

    def cached(self, room_id: str) -> Room | None:
        return self._rooms.get(room_id)

    def at_hand(self, room_id: str, min_seq: int | None = None, fresh: bool = False) -> Room | None:
        """The cached room when ``get`` would answer it without reading the store; None
        when ``get`` must read (not cached, in doubt, behind ``min_seq``, or ``fresh``)."""
        room = self._rooms.get(room_id)
        if room is None or fresh or room_id in self._doubted or (min_seq is not None and room.seq < min_seq):
            return None
        self._rooms.move_to_end(room_id)
        return room

    async def get(self, room_id: str, min_seq: int | None = None, fresh: bool = False) -> Room | None:
        """The room, at least at ``min_seq`` (its next seq), or the store's head with
        ``fresh``; None if the room does not exist."""
        if (room := self.at_hand(room_id, min_seq, fresh)) is not None:
            return room
        room = self._rooms.get(room_id)  # cached but not usable as it is: its tail first
        room = await self._fast_forward(room) if room is not None else await self._fold(room_id)
        if room is not None:
            room = self.put(room)
        return room

    def put(self, room: Room) -> Room:
        """Cache ``room`` unless a newer one is cached (a read from the store that ended
        after the owner cached the room after its append): the cache only moves forward.
        Returns the room cached: read from the store or decided on a room read so, it is
        no longer in doubt."""
        self._doubted.discard(room.room_id)
        cached = self._rooms.get(room.room_id)
        if cached is not None and cached.seq > room.seq:
            room = cached
        self._rooms[room.room_id] = room
        self._rooms.move_to_end(room.room_id)
        while len(self._rooms) > self.max_rooms:
            self._rooms.popitem(last=False)
        return room

    def forget(self, room_id: str) -> None:
        self._rooms.pop(room_id, None)
        self._doubted.discard(room_id)

    def forget_where(self, gone) -> None:
        """Drop every cached room for which ``gone(room_id)`` (partitions moved away)."""
        for room_id in [r for r in list(self._rooms) if gone(r)]:
            self.forget(room_id)

    def doubt_where(self, moved) -> None:
        """Every cached room for which ``moved(room_id)`` (its partition was revoked, or
        dealt here) may be behind the store: the next ``get`` fast-forwards it first."""
        self._doubted.update(r for r in self._rooms if moved(r))

    def observe(self, rec: Recorded, after: Room | None = None, trusted: bool = False) -> None:
        """A live event: fast-forward the cached room if it is the next one. ``trusted``:
        from this instance's owner, credentials included, with ``after`` the room after it
        as the owner folded it. An untrusted event (from hand.room-events, no credentials)
        is folded here, onto the cached room, never adopted from another's fold: a feed's
        copy lacks the token hashes, and adopting it refused valid seat tokens (issue 24)."""
        room = self._rooms.get(rec.room_id)
        if room is None or rec.seq < room.seq:
            return
        human_seat = isinstance(rec.event, SeatTaken) and rec.event.kind == "human"
        if rec.seq > room.seq or (human_seat and not trusted):
            self._rooms.pop(rec.room_id, None)  # a gap, or credentials to read: reload on demand
            return
        self._rooms[rec.room_id] = after if trusted and after is not None else evolve(room, rec)

    async def _fold(self, room_id: str) -> Room | None:
        self.loads += 1
        room = None
        for ev in await self.store.load(room_id):
            room = evolve(room, decode(ev.payload))
        return room

    async def _fast_forward(self, room: Room) -> Room:
        for ev in await self.store.load(room.room_id, room.seq):
            room = evolve(room, decode(ev.payload))
        return room
