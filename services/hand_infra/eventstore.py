"""The event store: every room's events, in order, guarded by ``(room_id, seq)``.

Async SQLAlchemy Core over SQLite (embedded default, a file in WAL mode) or
PostgreSQL — one code path, chosen by URL. Sequence numbers start at 0 and
have no gaps. An append names the seq its first event must take
(``expected_seq`` = how many events the writer has seen); if that seq is
taken the append fails with :class:`StaleAppend` and writes nothing, so a
stale room owner cannot fork a game. The events, their outbox rows and the
client action id are written in one transaction.

    async with EventStore("sqlite:///var/events.db") as store:
        seqs = await store.append("r1", 0, [("room_created", b"...")], action_id="a1")
        events = await store.load("r1")

A payload is opaque bytes to the store (the room service keeps an encoded
``hand.v1.RoomEvent`` there); ``kind`` names it for people and queries.

The hot statements — the group commit, the outbox's marks and read, event
loads — bypass SQLAlchemy (decision 0031): on SQLite they run as plain SQL on
a writer and a reader connection with a thread each (``eventstore_sqlite.py``,
``sqlite_thread.py``: one thread hop per transaction instead of one per
statement), on PostgreSQL on an asyncpg pool of their own
(``eventstore_pg.py``). What a group commit writes is judged in one place for
both (``appends.plan_bulk``); the single ``append``, the reads by action id
and the schema stay on SQLAlchemy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import structlog
from sqlalchemy import func, insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.engine import URL
from sqlalchemy.ext.asyncio import AsyncConnection

from hand_infra._schema import action_ids, create_tables, metadata, outbox, room_events
from hand_infra.eventstore_pg import PgHotPath
from hand_infra.eventstore_sqlite import SqliteHotPath
from hand_infra.sqlstore import SqlStore

from .appends import (  # noqa: F401 - re-exported: the store's API
    ACTION_KEY_MAX, DuplicateAction, EventStoreError, SeqGap, StaleAppend, encode_payload, plan_bulk, stored_key,
)

log = structlog.get_logger("hand_infra.eventstore")


@dataclass(frozen=True)
class StoredEvent:
    """One event as stored (``payload``: the bytes appended)."""

    room_id: str
    seq: int
    kind: str
    payload: bytes
    created_at: datetime


@dataclass(frozen=True)
class OutboxEntry:
    """An event still to be published; ``id`` orders the outbox."""

    id: int
    room_id: str
    seq: int
    kind: str
    payload: bytes


def _utc(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=UTC)  # SQLite drops the zone


class EventStore(SqlStore):
    """Append-only per-room event log with an outbox; see the module doc."""

    what = "event store"

    def __init__(self, url: str | URL, *, lock_timeout_s: float | None = None, **engine_kwargs: object) -> None:
        super().__init__(url, lock_timeout_s=lock_timeout_s, **engine_kwargs)
        self.lock_timeout_s = lock_timeout_s
        self._hot: SqliteHotPath | PgHotPath | None = None  # the hot statements, off SQLAlchemy

    async def start(self) -> None:
        """Connect and create the tables that don't exist yet."""
        engine = self.connect()
        await create_tables(engine, metadata)
        if engine.dialect.name == "sqlite":
            self._hot = SqliteHotPath(engine.url.database, round(1000 * (
                10.0 if self.lock_timeout_s is None else self.lock_timeout_s)))
        else:
            self._hot = PgHotPath(engine.url.render_as_string(hide_password=False), self.lock_timeout_s)
        await self._hot.start()
        log.info("eventstore_started", backend=engine.dialect.name)

    @property
    def hot(self) -> SqliteHotPath | PgHotPath:
        if self._hot is None:
            raise RuntimeError("event store not started")
        return self._hot

    async def ping(self) -> bool:
        """The store answers a trivial query on the hot path's own connections (the reader
        thread, or the asyncpg pool) once started: one hop, where a check-out of the
        SQLAlchemy pool over aiosqlite took about eight (a readiness probe a second was
        ~12 % of an idle room instance's CPU)."""
        if self._hot is None:
            return await super().ping()
        return await self._hot.ping()

    async def close(self) -> None:
        hot, self._hot = self._hot, None
        if hot is not None:
            await hot.close()
        await super().close()

    async def append(
        self,
        room_id: str,
        expected_seq: int,
        events: Sequence[tuple[str, bytes]],
        action_id: str | None = None,
    ) -> list[int]:
        """Append ``(kind, payload)`` events from ``expected_seq`` on; return their seqs.

        Raises :class:`StaleAppend` if ``expected_seq`` is taken,
        :class:`SeqGap` if it is past the room's next seq, and
        :class:`DuplicateAction` if ``action_id`` was already applied to
        this room. Nothing is written when it raises.
        """
        if not events or expected_seq < 0:
            raise ValueError("append needs at least one event and expected_seq >= 0")
        seqs = list(range(expected_seq, expected_seq + len(events)))
        now = datetime.now(UTC)
        try:
            async with self._write() as conn:
                if action_id is not None:
                    prior = await self._lookup(conn, room_id, action_id)
                    if prior is not None:
                        raise DuplicateAction(room_id, action_id, prior)
                next_seq = await self._next_seq(conn, room_id)
                if expected_seq < next_seq:
                    raise StaleAppend(room_id, expected_seq, next_seq)
                if expected_seq > next_seq:
                    raise SeqGap(f"room {room_id}: append at {expected_seq}, next is {next_seq}")
                await conn.execute(insert(room_events), [
                    {"room_id": room_id, "seq": s, "kind": kind, "payload": encode_payload(payload),
                     "created_at": now} for s, (kind, payload) in zip(seqs, events, strict=True)])
                await conn.execute(insert(outbox), [
                    {"room_id": room_id, "seq": s, "published": False} for s in seqs])
                if action_id is not None:
                    await conn.execute(insert(action_ids).values(
                        room_id=room_id, action_id=stored_key(action_id),
                        first_seq=seqs[0], last_seq=seqs[-1]))
        except (IntegrityError, StaleAppend) as exc:
            # A concurrent writer committed first (PostgreSQL read committed): if it
            # wrote this very action, between our two reads, this is a duplicate.
            prior = None if action_id is None else await self.lookup_action(room_id, action_id)
            if prior is not None:
                raise DuplicateAction(room_id, action_id, prior) from None
            if isinstance(exc, StaleAppend):
                raise
            raise StaleAppend(room_id, expected_seq) from None
        return seqs

    async def append_batch(
        self, items: Sequence[tuple[str, int, Sequence[tuple[str, bytes]], str | None]],
    ) -> list[list[int] | EventStoreError]:
        """Group commit: several appends ``(room_id, expected_seq, events, action_id)`` in
        one transaction (one fsync). Each item succeeds or fails on its own: its result is
        its seqs, or the :class:`StaleAppend` / :class:`SeqGap` / :class:`DuplicateAction`
        it would have raised alone. Items of one room must be listed in seq order.

        Fast path: one query for the rooms' heads, then bulk inserts; if a concurrent
        writer slips in (a unique-key violation), the batch is retried item by item
        with savepoints."""
        if not items:
            return []
        try:
            return await self._append_bulk(items)
        except IntegrityError:
            log.info("append_batch_slow_path", items=len(items))
            return await self._append_each(items)

    async def _append_bulk(self, items) -> list[list[int] | EventStoreError]:
        return await self.hot.append_bulk(items, datetime.now(UTC))

    async def _lookup_many(self, conn: AsyncConnection, keys) -> dict[tuple[str, str], list[int]]:
        out: dict[tuple[str, str], list[int]] = {}
        for start in range(0, len(keys), 500):
            chunk = keys[start:start + 500]
            wanted = {(room_id, stored_key(action_id)): (room_id, action_id)
                      for room_id, action_id in chunk}
            rows = (await conn.execute(select(
                action_ids.c.room_id, action_ids.c.action_id, action_ids.c.first_seq,
                action_ids.c.last_seq).where(  # both key columns: the primary key's index, not a scan
                    action_ids.c.room_id.in_({k[0] for k in wanted}),
                    action_ids.c.action_id.in_({k[1] for k in wanted})))).all()
            for r in rows:
                original = wanted.get((r.room_id, r.action_id))
                if original is not None:
                    out[original] = list(range(r.first_seq, r.last_seq + 1))
        return out

    async def _append_each(self, items) -> list[list[int] | EventStoreError]:
        results: list[list[int] | EventStoreError] = []
        for room_id, expected_seq, events, action_id in items:
            try:
                results.append(await self.append(room_id, expected_seq, events, action_id))
            except EventStoreError as exc:
                results.append(exc)
        return results

    async def lookup_actions(self, keys: Sequence[tuple[str, str]]) -> dict[tuple[str, str], list[int]]:
        """The seqs of every ``(room_id, action_id)`` in ``keys`` already applied."""
        if not keys:
            return {}
        async with self.engine.connect() as conn:
            return await self._lookup_many(conn, list(keys))

    async def _next_seq(self, conn: AsyncConnection, room_id: str) -> int:
        head = await conn.scalar(
            select(func.max(room_events.c.seq)).where(room_events.c.room_id == room_id))
        return 0 if head is None else head + 1

    async def _lookup(self, conn: AsyncConnection, room_id: str, action_id: str) -> list[int] | None:
        row = (await conn.execute(
            select(action_ids.c.first_seq, action_ids.c.last_seq).where(
                action_ids.c.room_id == room_id,
                action_ids.c.action_id == stored_key(action_id)))).first()
        return None if row is None else list(range(row.first_seq, row.last_seq + 1))

    async def next_seq(self, room_id: str) -> int:
        """The seq the room's next event will take (0 for a new room)."""
        async with self.engine.connect() as conn:
            return await self._next_seq(conn, room_id)

    async def lookup_action(self, room_id: str, action_id: str) -> list[int] | None:
        """The seqs written by ``action_id`` in ``room_id``, or None if never applied."""
        async with self.engine.connect() as conn:
            return await self._lookup(conn, room_id, action_id)

    async def load(self, room_id: str, from_seq: int = 0, limit: int | None = None) -> list[StoredEvent]:
        """The room's events with ``seq >= from_seq``, in order."""
        return [StoredEvent(r, q, k, bytes(p), _utc(at))
                for r, q, k, p, at in await self.hot.load(room_id, from_seq, limit)]

    async def pending_outbox(self, limit: int = 500, before: datetime | None = None,
                             after: int = 0) -> list[OutboxEntry]:
        """Unpublished events, oldest first (so in seq order within a room), from the outbox id
        after ``after`` on (a pass reading on past rows it leaves); with ``before`` (aware),
        only events appended before that moment."""
        return [OutboxEntry(i, room_id, seq, kind, bytes(payload))
                for i, room_id, seq, kind, payload in await self.hot.pending(limit, before, after)]

    async def mark_published_at(self, keys: Sequence[tuple[str, int]]) -> None:
        """Mark the outbox rows of ``(room_id, seq)`` published (a direct publish's acks)."""
        await self.hot.mark_published_at(keys)

    async def mark_published(self, ids: Sequence[int]) -> None:
        """Mark outbox rows as published (after the broker acked them)."""
        await self.hot.mark_published(ids)
