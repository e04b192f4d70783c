"""Room discovery: rooms the ledger never heard of, found in the event store.

Gap repair (hand_ledger/repair.py) completes a room the ledger knows. A room
whose every event the broker lost (created, played and the broker restarted
before the ledger read one) never reaches it — the ledger would not know the
room exists. Discovery reads the room service's store, the source of truth:
its ``outbox`` holds one row per stored event under an increasing ``id`` (the
primary key, so a range read is an index scan on SQLite and PostgreSQL
alike). Each pass reads at most ``batch`` rows after the ledger's cursor and
hands the rooms among them that the archive lacks events of, and whose
``hand.room-events`` partition this replica holds, to gap repair (it then
reads them from the store unless the broker delivers first).

The cursor (``ledger_cursors``, in the ledger's own database, shared by the
replicas) moves past a row only when its event is archived — by whichever
replica — and is older than ``settle_s``: on PostgreSQL a transaction may
commit after one with a higher id, and such a row must not be passed before
it is visible. So a row is read again on every pass until its room is
archived that far, and nothing found is forgotten if the ledger restarts.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from hand_infra._schema import outbox, room_events
from hand_infra.topics import partition_of

from .settings import DISCOVER_BATCH, DISCOVER_S

CURSOR = "eventstore-outbox"


@dataclass(frozen=True)
class Window:
    """One pass's rows: the highest stored seq per room, and where the cursor may go."""

    heads: dict[str, int]
    rows: list[tuple[int, str, int, datetime]]  # (outbox id, room, seq, stored at), by id

    def cursor_after(self, archived: dict[str, int], settled_before: datetime, cursor: int) -> int:
        """The last id of the longest prefix of archived, settled rows (else ``cursor``)."""
        for row_id, room_id, seq, at in self.rows:
            if archived.get(room_id, 0) <= seq or at >= settled_before:
                break
            cursor = row_id
        return cursor


@dataclass
class RoomDiscovery:
    """Scans the event store's outbox for rooms behind in the archive; see the module doc."""

    interval_s: float = DISCOVER_S.value
    batch: int = DISCOVER_BATCH.value
    settle_s: float = 10.0
    discovered: int = 0  # rooms handed to gap repair
    _due: float = field(default=0.0)

    def due(self, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        if now < self._due:
            return False
        self._due = now + self.interval_s
        return True

    async def window(self, engine, cursor: int) -> Window:
        """The outbox rows after ``cursor`` (at most ``batch``), with their events' time."""
        query = (select(outbox.c.id, outbox.c.room_id, outbox.c.seq, room_events.c.created_at)
                 .join(room_events, (room_events.c.room_id == outbox.c.room_id)
                       & (room_events.c.seq == outbox.c.seq))
                 .where(outbox.c.id > cursor).order_by(outbox.c.id).limit(self.batch))
        async with engine.connect() as conn:
            rows = [(r.id, r.room_id, r.seq, _utc(r.created_at)) for r in (await conn.execute(query)).all()]
        heads: dict[str, int] = {}
        for _, room_id, seq, _ in rows:
            heads[room_id] = max(seq, heads.get(room_id, -1))
        return Window(heads, rows)

    def behind(self, window: Window, archived: dict[str, int], partitions: set[int], count: int) -> list[str]:
        """The window's rooms the archive lacks events of, on this replica's partitions."""
        return [room_id for room_id, head in window.heads.items()
                if archived.get(room_id, 0) <= head and partition_of(room_id, count) in partitions]

    def settled_before(self) -> datetime:
        return datetime.now(UTC) - timedelta(seconds=self.settle_s)


def _utc(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=UTC)  # SQLite drops the zone
