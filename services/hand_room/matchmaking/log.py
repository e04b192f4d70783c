"""The pools' event log: table ``match_events`` in the room service's event store, primary
key ``(pool, seq)`` — as ``room_events``, the database refuses a second writer of a seq, so
a stale owner of a pool cannot fork it (it reloads and decides again). No outbox: a pool's
events are not published; the players learn their ticket's fate from GetTicket.

Payloads are JSON (the pool is internal to the room service; tickets carry a seat token's
hash, never the token).

``match_players`` holds one row per player with an open ticket, in any pool (primary key
``player_id``), written in the transaction of the ``opened`` event and removed in that of the
``cancelled`` or ``seated`` one: the database keeps a player to one open ticket across pools,
whose owners may be different instances (``TicketTaken``).

Compaction (docs/decisions/0028-matchmaking.md, "Compaction"): once a pool's log holds more
than ``snapshot_every`` rows since its latest snapshot (``HAND_MATCH_SNAPSHOT_EVERY``), its
owner appends a ``snapshot`` row — the folded pool, less the tickets closed more than
``KEEP_CLOSED_S`` ago — at the pool's next seq, under the same primary key (a stale writer of
the snapshot is refused), and deletes the rows before it in the same transaction. Loading
starts at the latest snapshot. A stale writer whose seq falls in a deleted range meets no
row to collide with, so every append also checks, in its transaction, that no snapshot sits
at or after its seq (the snapshot and its deletions commit together: a writer that inserted
into the deleted range waited for that commit, and then sees the snapshot).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict
from datetime import UTC, datetime

import structlog
from sqlalchemy import BigInteger, Column, DateTime, MetaData, String, Table, Text, delete, func, insert, select
from sqlalchemy.exc import IntegrityError

from hand_infra.eventstore import EventStore, StaleAppend
from hand_infra.sqlstore import create_tables

from .pool import (
    KEEP_CLOSED_S, Cancelled, Event, Formed, Group, Opened, Pool, Seated, Snapshot, Ticket, apply, snapshot,
)

log = structlog.get_logger("hand_room.matchmaking")
#: a pool's log is compacted once it holds more rows than this since its latest snapshot
#: (the default of ``HAND_MATCH_SNAPSHOT_EVERY``)
SNAPSHOT_EVERY = 1000
SNAPSHOT = "snapshot"

metadata = MetaData()
match_events = Table(
    "match_events", metadata,
    Column("pool", String(64), primary_key=True),
    Column("seq", BigInteger, primary_key=True, autoincrement=False),
    Column("kind", String(16), nullable=False),
    Column("payload", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)
match_players = Table(
    "match_players", metadata,
    Column("player_id", String(128), primary_key=True),
    Column("ticket_id", String(128), nullable=False),
)


class TicketTaken(Exception):
    """The player has an open ticket (``ticket_id``) already, maybe in another pool."""

    def __init__(self, ticket_id: str) -> None:
        super().__init__(ticket_id)
        self.ticket_id = ticket_id


def encode(event: Event) -> tuple[str, str]:
    match event:
        case Opened(ticket):
            return "opened", json.dumps(asdict(ticket))
        case Cancelled():
            return "cancelled", json.dumps(asdict(event))
        case Formed(group):
            return "formed", json.dumps(asdict(group))
        case Seated():
            return "seated", json.dumps(asdict(event))
        case Snapshot(tickets, groups):
            return SNAPSHOT, json.dumps({"tickets": [asdict(t) for t in tickets],
                                         "groups": [asdict(g) for g in groups]})
    raise TypeError(type(event).__name__)


def decode(kind: str, payload: str) -> Event:
    raw = json.loads(payload)
    match kind:
        case "opened":
            return Opened(Ticket(**raw))
        case "cancelled":
            return Cancelled(**raw)
        case "formed":
            return Formed(Group(**{**raw, "tickets": tuple(raw["tickets"])}))
        case "seated":
            return Seated(**raw)
        case "snapshot":
            return Snapshot(tuple(Ticket(**t) for t in raw["tickets"]),
                            tuple(Group(**{**g, "tickets": tuple(g["tickets"])}) for g in raw["groups"]))
    raise ValueError(f"unknown match event {kind!r}")


class PoolLog:
    def __init__(self, store: EventStore, *, snapshot_every: int = SNAPSHOT_EVERY,
                 keep_closed_s: float = KEEP_CLOSED_S) -> None:
        self.store = store
        self.snapshot_every, self.keep_closed_s = snapshot_every, keep_closed_s

    async def start(self) -> None:
        await create_tables(self.store.engine, metadata)

    def _rows(self, pool: Pool, events: list[Event]) -> list[dict]:
        now = datetime.now(UTC)
        return [{"pool": pool.key, "seq": pool.seq + i, "kind": k, "payload": p, "created_at": now}
                for i, (k, p) in enumerate(map(encode, events))]

    async def append(self, pool: Pool, events: list[Event]) -> None:
        """Append at the pool's seq and fold the events in (StaleAppend: another writer was first);
        then compact the log if it is due (``compact``; a failure there fails nothing)."""
        if any(isinstance(e, Snapshot) for e in events):
            raise ValueError("a snapshot is written by compact()")
        rows = self._rows(pool, events)
        claims = [{"player_id": e.ticket.player_id, "ticket_id": e.ticket.ticket_id}
                  for e in events if isinstance(e, Opened) and e.ticket.player_id]
        closed = [e.ticket_id for e in events if isinstance(e, Cancelled)] + [
            t for e in events if isinstance(e, Seated) and (g := pool.groups.get(e.group_id)) for t in g.tickets]
        try:
            async with self.store.engine.begin() as conn:
                await conn.execute(insert(match_events), rows)
                await self._refuse_below_a_snapshot(conn, pool, pool.seq)
                if closed:
                    await conn.execute(delete(match_players).where(match_players.c.ticket_id.in_(closed)))
                if claims:
                    await conn.execute(insert(match_players), claims)
        except IntegrityError:
            held = await self._holder(claims)
            if held is not None:
                raise TicketTaken(held) from None
            raise StaleAppend(pool.key, pool.seq) from None
        for e in events:
            apply(pool, e)
        if self.snapshot_every and pool.seq - pool.base > self.snapshot_every:
            try:
                await self.compact(pool)
            except StaleAppend:  # another writer appended: this pool is stale, its next append reloads
                log.info("pool_snapshot_stale", pool=pool.key)
            except Exception as exc:  # the append stands; the next one tries again
                log.warning("pool_snapshot_failed", pool=pool.key, error=type(exc).__name__,
                            detail=str(exc)[:200])

    async def compact(self, pool: Pool, now: float | None = None) -> None:
        """Write the pool's snapshot at its seq and delete the rows before it, in one transaction
        (StaleAppend: another writer has that seq). The tickets closed ``keep_closed_s`` before
        ``now`` are left out of it, as the owner's memory forgets them."""
        now = time.time() if now is None else now
        snap = snapshot(pool, now - self.keep_closed_s)
        try:
            async with self.store.engine.begin() as conn:
                await conn.execute(insert(match_events), self._rows(pool, [snap]))
                await self._refuse_below_a_snapshot(conn, pool, pool.seq + 1)
                await conn.execute(delete(match_events).where(
                    match_events.c.pool == pool.key, match_events.c.seq < pool.seq))
        except IntegrityError:
            raise StaleAppend(pool.key, pool.seq) from None
        apply(pool, snap)
        log.info("pool_snapshot", pool=pool.key, seq=pool.base, tickets=len(snap.tickets))

    @staticmethod
    async def _refuse_below_a_snapshot(conn, pool: Pool, since: int) -> None:
        """StaleAppend when a snapshot sits at ``since`` or after: the seqs just written were free
        only because that snapshot deleted them (called after the insert, in its transaction)."""
        if await conn.scalar(select(func.max(match_events.c.seq)).where(
                match_events.c.pool == pool.key, match_events.c.kind == SNAPSHOT,
                match_events.c.seq >= since)) is not None:
            raise StaleAppend(pool.key, pool.seq)

    async def _holder(self, claims: list[dict]) -> str | None:
        """The open ticket that holds one of these players already, if any."""
        if not claims:
            return None
        q = select(match_players.c.ticket_id).where(
            match_players.c.player_id.in_([c["player_id"] for c in claims]))
        async with self.store.engine.connect() as conn:
            return await conn.scalar(q)

    async def load(self, key: str, preset: str, seats: int) -> Pool:
        """The pool folded from its latest snapshot (if any) and the events after it."""
        pool = Pool(key, preset, seats)
        latest = select(func.max(match_events.c.seq)).where(
            match_events.c.pool == key, match_events.c.kind == SNAPSHOT).scalar_subquery()
        q = select(match_events.c.seq, match_events.c.kind, match_events.c.payload).where(
            match_events.c.pool == key, match_events.c.seq >= func.coalesce(latest, 0)
        ).order_by(match_events.c.seq)
        async with self.store.engine.connect() as conn:
            for seq, kind, payload in (await conn.execute(q)).all():
                if kind == SNAPSHOT:
                    pool.seq = seq
                apply(pool, decode(kind, payload))
        return pool

    async def keys(self) -> list[str]:
        """Every pool that has a log (a new owner loads those of its partitions)."""
        async with self.store.engine.connect() as conn:
            return [r[0] for r in (await conn.execute(select(match_events.c.pool).distinct())).all()]
