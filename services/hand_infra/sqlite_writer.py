"""One writer connection per process for a SQLite store, on one thread of its own.

Through SQLAlchemy's async engine each statement on SQLite is a hop to
aiosqlite's worker thread and back (a future, a wake-up of the event loop, the
greenlet bridge): a five-statement append cost ~3 ms of CPU, against ~0.1 ms
for the same transaction as plain ``sqlite3`` calls in one thread (measured:
docs/decisions/0031-one-sqlite-writer.md). A :class:`SqliteWriter` runs a whole
transaction — ``BEGIN IMMEDIATE``, the caller's function on the raw
connection, ``COMMIT`` — as one call on its thread: one hop per transaction.

The connection is set up like the engine's (``hand_infra._schema``): WAL, and a
busy timeout equal to the store's lock timeout, so a writer frozen while it
holds the lock holds up the others no longer than that. Errors come back as
SQLAlchemy's ``DBAPIError`` subclasses (``OperationalError``,
``IntegrityError``), so callers classify them as they do the engine's
(``hand_infra.sqlstore.unreachable``).
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from sqlalchemy.exc import DBAPIError

__all__ = ["SqliteWriter"]

T = TypeVar("T")


class SqliteWriter:
    """``await writer.transaction(fn, *args)`` runs ``fn(conn, *args)`` in a write transaction."""

    def __init__(self, path: str, busy_timeout_ms: int) -> None:
        self.path, self.busy_timeout_ms = path, busy_timeout_ms
        self._executor: ThreadPoolExecutor | None = None
        self._conn: sqlite3.Connection | None = None

    def _open(self) -> None:
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                               timeout=self.busy_timeout_ms / 1000)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(f"PRAGMA busy_timeout={int(self.busy_timeout_ms)}")
        self._conn = conn

    async def start(self) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sqlite-writer")
        await asyncio.get_running_loop().run_in_executor(self._executor, _translated(self._open))

    def _run(self, fn: Callable[..., T], args: tuple) -> T:
        conn = self._conn
        assert conn is not None, "writer not started"
        conn.execute("BEGIN IMMEDIATE")
        try:
            result = fn(conn, *args)
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return result

    async def transaction(self, fn: Callable[..., T], *args: object) -> T:
        if self._executor is None:
            raise RuntimeError("SQLite writer not started")
        return await asyncio.get_running_loop().run_in_executor(self._executor, _translated(self._run), fn, args)

    async def query(self, fn: Callable[..., T], *args: object) -> T:
        """``fn(conn, *args)`` outside a transaction (a read: takes no write lock)."""
        if self._executor is None:
            raise RuntimeError("SQLite writer not started")
        return await asyncio.get_running_loop().run_in_executor(self._executor, _translated(fn), self._conn, *args)

    async def close(self) -> None:
        executor, self._executor = self._executor, None
        if executor is None:
            return

        def _close() -> None:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

        await asyncio.get_running_loop().run_in_executor(executor, _close)
        executor.shutdown(wait=False)


def _translated(fn: Callable[..., T]) -> Callable[..., T]:
    """``fn`` with ``sqlite3`` errors raised as SQLAlchemy's (the engine's) exception types."""

    def call(*args: object) -> T:
        try:
            return fn(*args)
        except sqlite3.Error as exc:
            raise DBAPIError.instance(None, None, exc, sqlite3.Error) from exc

    return call
