"""A SQLite connection on a thread of its own: the event store's writer (and its reader).

Through SQLAlchemy's async engine each statement on SQLite is a hop to
aiosqlite's worker thread and back (a future, a wake-up of the event loop, the
greenlet bridge): a five-statement append cost ~3 ms of CPU, against ~0.1 ms
for the same transaction as plain ``sqlite3`` calls in one thread (measured:
docs/decisions/0031-store-hot-path.md). A :class:`SqliteThread` runs a whole
transaction — ``BEGIN IMMEDIATE``, the caller's function on the raw
connection, ``COMMIT`` — as one call on its thread: one hop per transaction;
``query`` runs a read the same way, outside a transaction. The event store
keeps two: one writer (every write of the process is serialized there anyway
by SQLite's lock) and one reader (WAL readers never wait for the writer).

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
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from sqlalchemy.exc import DBAPIError

__all__ = ["SqliteThread"]

T = TypeVar("T")


class SqliteThread:
    """``await writer.transaction(fn, *args)`` runs ``fn(conn, *args)`` in a write transaction."""

    def __init__(self, path: str, busy_timeout_ms: int, name: str = "sqlite") -> None:
        self.path, self.busy_timeout_ms, self.name = path, busy_timeout_ms, name
        self._executor: ThreadPoolExecutor | None = None
        self._conn: sqlite3.Connection | None = None

    def _open(self) -> None:
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                               timeout=self.busy_timeout_ms / 1000)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(f"PRAGMA busy_timeout={int(self.busy_timeout_ms)}")
        self._conn = conn

    async def start(self) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=self.name)
        await asyncio.get_running_loop().run_in_executor(self._executor, _translated(self._open))

    def _run(self, fn: Callable[..., T], args: tuple, abandoned: threading.Event) -> T:
        conn = self._conn
        assert conn is not None, "SQLite thread not started"
        conn.execute("BEGIN IMMEDIATE")  # may wait for the lock up to the busy timeout
        try:
            result = fn(conn, *args)
            if abandoned.is_set():  # the caller gave up meanwhile: it was told nothing was written
                raise TimeoutError("the caller gave up on this transaction")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return result

    async def transaction(self, fn: Callable[..., T], *args: object) -> T:
        """``fn(conn, *args)`` in a write transaction. A caller that stops waiting (a timeout,
        a cancellation) is never left with a transaction that commits behind its back: one
        still queued does not run, one running rolls back instead of committing."""
        if self._executor is None:
            raise RuntimeError("SQLite thread not started")
        abandoned = threading.Event()
        try:
            return await asyncio.get_running_loop().run_in_executor(
                self._executor, _translated(self._run), fn, args, abandoned)
        except asyncio.CancelledError:
            abandoned.set()
            raise

    async def query(self, fn: Callable[..., T], *args: object) -> T:
        """``fn(conn, *args)`` outside a transaction (a read: takes no write lock)."""
        if self._executor is None:
            raise RuntimeError("SQLite thread not started")
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
