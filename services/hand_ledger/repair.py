"""Gap repair: the ledger reads what the broker lost from the room's event store.

The room service's event store is the source of truth; ``hand.room-events``
is only its copy, and a broker can lose messages (the embedded Tansu loses
everything on a restart; a relay's events can be acked then lost with an
unreplicated topic). When a room the ledger follows makes no progress for
``after_s`` seconds — an event ahead of a gap is held, or nothing more came
while its match is open — :class:`GapRepair` reads the room's events from
its next expected seq out of the event store (read-only: no schema is
created, nothing is written) and hands them to the consumer, which records
them like delivered ones: the :class:`~hand_ledger.ordering.Hold` drops any
seq already recorded, and the archive's ``(room_id, seq)`` key keeps them
exactly once. A room with nothing missing is asked again later, with a
back-off (``after_s`` doubling up to ``max_backoff_s``), so idle lobbies
cost next to nothing.

``HAND_LEDGER_EVENTSTORE_URL`` gives the URL; empty: no repair (the ledger
then waits for the broker, as before).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import structlog
from sqlalchemy import select

from hand_infra._schema import make_engine, room_events
from hand_table import private
from hand_wire import decode, encode, Delivered

from .settings import REPAIR_AFTER_S

log = structlog.get_logger("hand_ledger.repair")


@dataclass
class _Watch:
    progress_at: float  # when the room last released an event
    check_at: float  # when to look in the store next
    backoff: float


@dataclass
class GapRepair:
    """Finds rooms without progress and reads their missing events from the store."""

    url: str
    after_s: float = REPAIR_AFTER_S.value
    max_backoff_s: float = 60.0
    batch: int = 1000
    repaired: int = 0
    _rooms: dict[str, _Watch] = field(default_factory=dict)
    _engine: object = None

    async def start(self) -> None:
        self._engine = make_engine(self.url)

    @property
    def engine(self):
        """The event store's engine (read-only use), None before ``start``."""
        return self._engine

    async def close(self) -> None:
        if self._engine is not None:
            await self._engine.dispose()
            self._engine = None

    # -------------------------------------------------------- what the consumer tells it
    def progressed(self, room_id: str, now: float | None = None) -> None:
        """``room_id`` released events (or was first seen) just now."""
        now = time.monotonic() if now is None else now
        self._rooms[room_id] = _Watch(now, now + self.after_s, self.after_s)

    def seen(self, room_id: str, now: float | None = None) -> None:
        """An event of ``room_id`` arrived (maybe held): start watching it if new."""
        if room_id not in self._rooms:
            self.progressed(room_id, now)

    def finished(self, room_id: str) -> None:
        """The room's match ended and is recorded: nothing more to repair."""
        self._rooms.pop(room_id, None)

    def watched(self) -> list[str]:
        """The rooms being watched (open matches the ledger has heard of)."""
        return list(self._rooms)

    def due(self, now: float | None = None) -> list[str]:
        """Rooms whose time to look in the store has come."""
        now = time.monotonic() if now is None else now
        return [room for room, w in self._rooms.items() if w.check_at <= now]

    def nothing_missing(self, room_id: str, now: float | None = None) -> None:
        """The store has nothing past the ledger for ``room_id``: back off."""
        now = time.monotonic() if now is None else now
        w = self._rooms.get(room_id)
        if w is not None:
            w.backoff = min(w.backoff * 2, self.max_backoff_s)
            w.check_at = now + w.backoff

    # -------------------------------------------------------- the store
    async def missing(self, room_id: str, from_seq: int, upto: int | None = None) -> list[Delivered]:
        """The room's stored events from ``from_seq`` on (below ``upto``, the lowest seq
        held, if given), as hand.room-events carries them."""
        if self._engine is None:
            return []
        where = [room_events.c.room_id == room_id, room_events.c.seq >= from_seq]
        if upto is not None:
            where.append(room_events.c.seq < upto)
        query = (select(room_events.c.payload).where(*where)
                 .order_by(room_events.c.seq).limit(self.batch))
        async with self._engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        out = []
        for row in rows:
            rec = private(decode(bytes(row.payload)))  # what the relay publishes on hand.room-events
            out.append(Delivered(rec, encode(rec)))
        return out
