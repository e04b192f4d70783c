"""Tables of the event store, and an async engine set up per backend.

One schema for SQLite and PostgreSQL (SQLAlchemy Core, no ORM):

- ``room_events``: the source of truth, primary key ``(room_id, seq)`` —
  the database, not the broker, stops two owners from forking a room;
- ``outbox``: one row per event, written in the same transaction, marked
  ``published`` by the relay once the broker has acked it;
- ``action_ids``: the client action ids already applied, for idempotent
  retries.

SQLite gets WAL mode and ``BEGIN IMMEDIATE`` for writes (a deferred
transaction that reads then writes fails with SQLITE_BUSY instead of
waiting when another connection wrote in between).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from sqlalchemy import (
    BigInteger, Boolean, LargeBinary, Column, DateTime, Index, Integer, MetaData, String, Table, Text,
    event, false,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import URL, make_url
from sqlalchemy.schema import CreateIndex
from sqlalchemy.exc import IntegrityError, OperationalError, ProgrammingError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from .settings import db_timeout_s

metadata = MetaData()

room_events = Table(
    "room_events", metadata,
    Column("room_id", String(64), primary_key=True),
    Column("seq", BigInteger, primary_key=True, autoincrement=False),
    Column("kind", String(64), nullable=False),
    Column("payload", LargeBinary, nullable=False),  # an encoded hand.v1.RoomEvent
    Column("created_at", DateTime(timezone=True), nullable=False),
)

outbox = Table(
    "outbox", metadata,
    # SQLite only auto-increments an INTEGER PRIMARY KEY.
    Column("id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True,
           autoincrement=True),
    Column("room_id", String(64), nullable=False),
    Column("seq", BigInteger, nullable=False),
    Column("published", Boolean, nullable=False, default=False),
)
Index("ix_outbox_pending", outbox.c.id,
      sqlite_where=outbox.c.published == false(),
      postgresql_where=outbox.c.published == false())

action_ids = Table(
    "action_ids", metadata,
    Column("room_id", String(64), primary_key=True),
    Column("action_id", String(128), primary_key=True),
    Column("first_seq", BigInteger, nullable=False),
    Column("last_seq", BigInteger, nullable=False),
)

SQLITE_BEGIN = "hand_sqlite_begin"
"""Execution option: ``"IMMEDIATE"`` makes a SQLite transaction take the write lock."""


def async_url(url: str | URL) -> URL:
    """Map plain ``sqlite://`` / ``postgresql://`` URLs to their async drivers."""
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        if parsed.database in (None, "", ":memory:"):
            raise ValueError("the event store needs a SQLite file URL, not :memory:")
        return parsed.set(drivername="sqlite+aiosqlite")
    if backend in ("postgresql", "postgres"):
        return parsed.set(drivername="postgresql+asyncpg")
    raise ValueError(f"unsupported event store URL: {parsed.render_as_string()}")


def _setup_sqlite(engine: AsyncEngine, busy_timeout_ms: int) -> None:
    """WAL, a busy timeout, and our own BEGIN (IMMEDIATE for writers)."""

    @event.listens_for(engine.sync_engine, "connect")
    def _connect(dbapi_connection, _record) -> None:
        dbapi_connection.isolation_level = None  # the driver must not BEGIN
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={busy_timeout_ms}")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _begin(conn) -> None:
        mode = conn.get_execution_options().get(SQLITE_BEGIN, "DEFERRED")
        conn.exec_driver_sql(f"BEGIN {mode}")


def make_engine(url: str | URL, lock_timeout_s: float | None = None, **kwargs: object) -> AsyncEngine:
    """An async engine for ``url`` with the per-backend set-up applied.

    ``lock_timeout_s`` bounds how long a SQLite statement waits for the write lock
    (busy timeout; default 10 s). The room service passes its store timeout: a
    thread blocked on the lock cannot be cancelled, so a busy timeout longer than the
    caller's timeout held the caller (and the connection's clean-up) until it expired
    — a process frozen while it held the lock stalled every room for 10 s at a time.
    On PostgreSQL it sets ``lock_timeout`` (a statement waits that long for a row
    lock) and ``idle_in_transaction_session_timeout`` (twice it): the server ends
    the session of a client frozen inside a transaction, so its row locks (an
    uncommitted ``(room_id, seq)``) do not hold up the room's next owner for good.
    """
    parsed = async_url(url)
    if parsed.get_backend_name() == "sqlite":
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_async_engine(parsed, **kwargs)
        _setup_sqlite(engine, round(1000 * (10.0 if lock_timeout_s is None else lock_timeout_s)))
        return engine
    # a frozen or cut-off server hangs instead of failing: bound the connect and each
    # statement, so callers see TimeoutError ("unreachable": UNAVAILABLE, retry)
    timeout = db_timeout_s()
    connect_args: dict = {"timeout": timeout, "command_timeout": timeout}
    if lock_timeout_s is not None:  # a frozen client's open transaction is ended by the server
        ms = str(round(1000 * lock_timeout_s))
        connect_args["server_settings"] = {"lock_timeout": ms, "idle_in_transaction_session_timeout": str(
            round(2000 * lock_timeout_s))}
    kwargs = {**kwargs, "connect_args": {**connect_args, **kwargs.get("connect_args", {})}}
    return create_async_engine(parsed, pool_pre_ping=True, **kwargs)


@asynccontextmanager
async def write_transaction(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """A write transaction; on SQLite ``BEGIN IMMEDIATE``, so concurrent writers wait for
    the lock (busy timeout) instead of failing with "database is locked" when a read
    transaction upgrades after another writer committed."""
    async with engine.connect() as conn:
        conn = await conn.execution_options(**{SQLITE_BEGIN: "IMMEDIATE"})
        async with conn.begin():
            yield conn


def upsert_into(conn: AsyncConnection, table: Table):
    """An INSERT into ``table`` that takes ``ON CONFLICT`` (``on_conflict_do_update`` /
    ``_do_nothing``), in the dialect of ``conn``: PostgreSQL's or SQLite's."""
    return (postgresql if conn.dialect.name == "postgresql" else sqlite).insert(table)


def create_missing(conn, tables: MetaData) -> None:
    """The missing tables, and the missing indexes of tables that exist (``create_all`` makes
    a table's indexes only with the table: an index added in a later release would never
    reach a database made before it)."""
    tables.create_all(conn)
    for table in tables.sorted_tables:
        for index in table.indexes:  # IF NOT EXISTS, not a reflection: SQLite's reflection
            conn.execute(CreateIndex(index, if_not_exists=True))  # skips an index on an expression


async def create_tables(engine: AsyncEngine, tables: MetaData, attempts: int = 10) -> None:
    """Create ``tables``' missing tables and indexes. Instances starting together race on it:
    on SQLite the write lock is taken first; on PostgreSQL two ``CREATE TABLE`` (or ``CREATE
    INDEX``) of one name can still collide (a unique violation in the catalogue), so the loser
    retries and then finds it."""
    for attempt in range(attempts):
        try:
            async with write_transaction(engine) as conn:
                await conn.run_sync(create_missing, tables)
            return
        except (OperationalError, IntegrityError, ProgrammingError):
            if attempt == attempts - 1:
                raise
            await asyncio.sleep(0.1 * (attempt + 1))
