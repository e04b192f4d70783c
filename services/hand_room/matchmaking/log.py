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
"""

from __future__ import annotations

import json
from dataclasses import asdict
from datetime import UTC, datetime

from sqlalchemy import BigInteger, Column, DateTime, MetaData, String, Table, Text, delete, insert, select
from sqlalchemy.exc import IntegrityError

from hand_infra.eventstore import EventStore, StaleAppend
from hand_infra.sqlstore import create_tables

from .pool import Cancelled, Event, Formed, Group, Opened, Pool, Seated, Ticket, apply

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
    raise ValueError(f"unknown match event {kind!r}")


class PoolLog:
    def __init__(self, store: EventStore) -> None:
        self.store = store

    async def start(self) -> None:
        await create_tables(self.store.engine, metadata)

    async def append(self, pool: Pool, events: list[Event]) -> None:
        """Append at the pool's seq and fold the events in (StaleAppend: another writer was first)."""
        now = datetime.now(UTC)
        rows = [{"pool": pool.key, "seq": pool.seq + i, "kind": k, "payload": p, "created_at": now}
                for i, (k, p) in enumerate(map(encode, events))]
        claims = [{"player_id": e.ticket.player_id, "ticket_id": e.ticket.ticket_id}
                  for e in events if isinstance(e, Opened) and e.ticket.player_id]
        closed = [e.ticket_id for e in events if isinstance(e, Cancelled)] + [
            t for e in events if isinstance(e, Seated) and (g := pool.groups.get(e.group_id)) for t in g.tickets]
        try:
            async with self.store.engine.begin() as conn:
                await conn.execute(insert(match_events), rows)
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

    async def _holder(self, claims: list[dict]) -> str | None:
        """The open ticket that holds one of these players already, if any."""
        if not claims:
            return None
        q = select(match_players.c.ticket_id).where(
            match_players.c.player_id.in_([c["player_id"] for c in claims]))
        async with self.store.engine.connect() as conn:
            return await conn.scalar(q)

    async def load(self, key: str, preset: str, seats: int) -> Pool:
        pool = Pool(key, preset, seats)
        q = select(match_events.c.kind, match_events.c.payload).where(
            match_events.c.pool == key).order_by(match_events.c.seq)
        async with self.store.engine.connect() as conn:
            for kind, payload in (await conn.execute(q)).all():
                apply(pool, decode(kind, payload))
        return pool

    async def keys(self) -> list[str]:
        """Every pool that has a log (a new owner loads those of its partitions)."""
        async with self.store.engine.connect() as conn:
            return [r[0] for r in (await conn.execute(select(match_events.c.pool).distinct())).all()]
