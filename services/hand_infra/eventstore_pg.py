"""The event store's hot statements on PostgreSQL, straight on asyncpg.

Through SQLAlchemy's async engine a group commit cost ~1.6 ms of CPU (a pool
checkout with its ping, then each statement through the adaptation layer);
the same transaction as plain asyncpg calls ~0.25 ms (decision 0031). This
module keeps a small asyncpg pool of its own, set up like the engine's
(``hand_infra._schema.make_engine``: connect and statement timeouts, and the
lock / idle-in-transaction timeouts that keep a frozen writer from holding
up the others), and runs the hot paths on it: the group commit, the outbox's
marks and read, and event loads. What a group commit writes is judged by
``appends.plan_bulk``, as on SQLite. Errors come back as SQLAlchemy's
exception types, so callers classify them as they do the engine's.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any

import asyncpg
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError

from .appends import EventStoreError, plan_bulk, stored_key
from .settings import db_timeout_s

# A connection that broke (or a server going away) — a retry may work: the store is unreachable.
# InternalClientError: asyncpg's protocol found the connection mid-operation ("cannot switch to
# state 12; another operation (2) is in progress"), as when the server is killed under a query.
_BROKEN = (asyncpg.PostgresConnectionError, asyncpg.InterfaceError, asyncpg.InternalClientError,
           asyncpg.exceptions.LockNotAvailableError, asyncpg.exceptions.QueryCanceledError,
           asyncpg.exceptions.CannotConnectNowError, asyncpg.exceptions.AdminShutdownError,
           asyncpg.exceptions.IdleInTransactionSessionTimeoutError)


def dsn(url: str) -> str:
    """The asyncpg DSN of a SQLAlchemy PostgreSQL URL."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def _translated(exc: Exception) -> Exception:
    if isinstance(exc, asyncpg.UniqueViolationError):
        return IntegrityError(None, None, exc)
    if isinstance(exc, _BROKEN):
        return OperationalError(None, None, exc)
    if isinstance(exc, asyncpg.PostgresError):
        return DBAPIError(None, None, exc)
    return exc


#: each room's highest stored seq, one index probe a room (``max`` of one room is its index's
#: last entry; ``… = ANY(…) GROUP BY room_id`` read every stored event of the rooms)
HEADS = ("SELECT wanted.room_id, (SELECT max(seq) FROM room_events WHERE room_events.room_id = wanted.room_id)"
         " FROM unnest($1::text[]) AS wanted(room_id)")


async def heads(conn: Any, rooms: Sequence[str]) -> dict[str, int | None]:
    """Each room's highest stored seq (rooms with none are left out)."""
    return {room_id: head for room_id, head in await conn.fetch(HEADS, list(rooms)) if head is not None}


async def action_rows(conn: Any, keys: Sequence[tuple[str, str]]) -> list[tuple[str, str, int, int]]:
    rooms, ids = sorted({k[0] for k in keys}), sorted({k[1] for k in keys})
    return [tuple(r) for r in await conn.fetch(
        "SELECT room_id, action_id, first_seq, last_seq FROM action_ids"
        " WHERE room_id = ANY($1::text[]) AND action_id = ANY($2::text[])", rooms, ids)]


async def insert(conn: Any, events: Sequence[tuple[str, int, str, bytes]],
                 actions: Sequence[tuple[str, str, int, int]], now: datetime) -> None:
    if events:
        await conn.executemany("INSERT INTO room_events (room_id, seq, kind, payload, created_at)"
                               " VALUES ($1, $2, $3, $4, $5)", [(r, q, k, p, now) for r, q, k, p in events])
        await conn.executemany("INSERT INTO outbox (room_id, seq, published) VALUES ($1, $2, false)",
                               [(r, q) for r, q, _, _ in events])
    if actions:
        await conn.executemany("INSERT INTO action_ids (room_id, action_id, first_seq, last_seq)"
                               " VALUES ($1, $2, $3, $4)", actions)


class PgHotPath:
    """The hot statements on an asyncpg pool of their own."""

    def __init__(self, url: str, lock_timeout_s: float | None, max_size: int = 4) -> None:
        self.url, self.lock_timeout_s, self.max_size = url, lock_timeout_s, max_size
        self._pool: asyncpg.Pool | None = None

    async def start(self) -> None:
        settings = {}
        if self.lock_timeout_s is not None:  # a frozen client's open transaction is ended by the server
            settings = {"lock_timeout": str(round(1000 * self.lock_timeout_s)),
                        "idle_in_transaction_session_timeout": str(round(2000 * self.lock_timeout_s))}
        timeout = db_timeout_s()
        self._pool = await asyncpg.create_pool(dsn(self.url), min_size=1, max_size=self.max_size, timeout=timeout,
                                               command_timeout=timeout, server_settings=settings)

    async def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.close()

    @property
    def pool(self) -> asyncpg.Pool:
        if self._pool is None:
            raise RuntimeError("event store not started")
        return self._pool

    @asynccontextmanager
    async def _connection(self, transaction: bool = False) -> AsyncIterator[asyncpg.Connection]:
        """A pooled connection, in a transaction with ``transaction``. A caller that gives up
        (the store timeout, a cancellation) is not held by the connection again: it is
        terminated, not rolled back — on a frozen or half-dead server a ROLLBACK hangs as
        the statement did, up to ``HAND_DB_TIMEOUT_S``, and the timeout could not end the
        wait before it (an Act on a frozen PostgreSQL was refused after 6.0 s against a 1 s
        store timeout; tests/integration/test_room_store_timeout.py)."""
        conn = await self.pool.acquire()
        tr = None
        try:
            if transaction:
                tr = conn.transaction()
                await tr.start()
            yield conn
            if tr is not None:
                await tr.commit()
        except asyncio.CancelledError:
            conn.terminate()
            raise
        except BaseException:
            if tr is not None and not conn.is_closed():
                await tr.rollback()
            raise
        finally:
            await self.pool.release(conn)

    async def append_bulk(self, items, now: datetime) -> list[list[int] | EventStoreError]:
        try:
            async with self._connection(transaction=True) as conn:
                wanted = {(i[0], stored_key(i[3])): (i[0], i[3]) for i in items if i[3] is not None}
                prior = {wanted[(r, a)]: list(range(first, last + 1))
                         for r, a, first, last in (await action_rows(conn, list(wanted)) if wanted else [])
                         if (r, a) in wanted}
                plan = plan_bulk(items, await heads(conn, sorted({i[0] for i in items})), prior)
                await insert(conn, plan.events, plan.actions, now)
                return plan.results
        except Exception as exc:
            raise _translated(exc) from exc

    async def mark_published_at(self, keys: Sequence[tuple[str, int]]) -> None:
        # one statement over the pending rows, not one per key (eventstore_sqlite.mark_published_at)
        await self._execute("UPDATE outbox SET published = true WHERE published = false AND (room_id, seq) IN"
                            " (SELECT * FROM unnest($1::text[], $2::bigint[]))",
                            [room_id for room_id, _ in keys], [seq for _, seq in keys])

    async def mark_published(self, ids: Sequence[int]) -> None:
        await self._execute("UPDATE outbox SET published = true WHERE id = ANY($1::bigint[])", list(ids))

    async def ping(self) -> bool:
        rows = await self._fetch("SELECT 1")
        return bool(rows) and rows[0][0] == 1

    async def pending(self, limit: int, before: datetime | None = None,
                      after: int = 0) -> list[tuple[int, str, int, str, bytes]]:
        young = "" if before is None else " AND room_events.created_at < $3"
        return [tuple(r) for r in await self._fetch(
            "SELECT outbox.id, outbox.room_id, outbox.seq, room_events.kind, room_events.payload FROM outbox"
            " JOIN room_events ON room_events.room_id = outbox.room_id AND room_events.seq = outbox.seq"
            f" WHERE outbox.published = false AND outbox.id > $2{young} ORDER BY outbox.id LIMIT $1",
            *((limit, after) if before is None else (limit, after, before)))]

    async def load(self, room_id: str, from_seq: int, limit: int | None) -> list[tuple[str, int, str, bytes, datetime]]:
        return [tuple(r) for r in await self._fetch(
            "SELECT room_id, seq, kind, payload, created_at FROM room_events WHERE room_id = $1 AND seq >= $2"
            " ORDER BY seq LIMIT $3", room_id, from_seq, limit)]

    async def _fetch(self, sql: str, *args: object) -> list:
        try:
            async with self._connection() as conn:
                return await conn.fetch(sql, *args)
        except Exception as exc:
            raise _translated(exc) from exc

    async def _execute(self, sql: str, *args: object) -> None:
        try:
            async with self._connection() as conn:
                await conn.execute(sql, *args)
        except Exception as exc:
            raise _translated(exc) from exc
