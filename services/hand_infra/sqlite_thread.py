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
wait for SQLite's lock bounded by the store's lock timeout, so a writer frozen
while it holds the lock holds up the others no longer than that. The writer
does not wait through SQLite's busy handler: it gives up at once (``busy_timeout``
0) and tries ``BEGIN IMMEDIATE`` again every 0.2–2 ms until the bound. The busy
handler sleeps 1, 2, 5, 10 … 100 ms between tries and no process is woken when
the lock frees, so with several instances writing to one file most of each wait
was sleep past the lock's release (docs/decisions/0039;
``bench/sqlite_lock_contention.py`` on 2 CPUs: four writer processes ×1.14–1.21 the
transactions with a quarter of the p99 wait, eight ×1.23–1.27 with half of it; one
writer unchanged). Errors come back as SQLAlchemy's ``DBAPIError`` subclasses
(``OperationalError``, ``IntegrityError``), so callers classify them as they do the
engine's (``hand_infra.sqlstore.unreachable``).
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from sqlalchemy.exc import DBAPIError

__all__ = ["SqliteThread", "polling"]

T = TypeVar("T")
#: first and longest pause between two tries for SQLite's write lock
LOCK_POLL_FIRST_S, LOCK_POLL_MAX_S = 0.0002, 0.002


def _busy(exc: sqlite3.OperationalError) -> bool:
    """Another connection holds the lock (SQLITE_BUSY or SQLITE_LOCKED, extended codes too)."""
    return (getattr(exc, "sqlite_errorcode", 0) & 0xFF) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def polling(call: Callable[[], T], wait_s: float, abandoned: threading.Event | None = None) -> T:
    """``call()`` on a connection whose busy timeout is 0, tried again every 0.2–2 ms for up
    to ``wait_s`` while another connection holds the lock it needs; then the last "database
    is locked" error is raised. A caller that gives up meanwhile (``abandoned``) stops it."""
    deadline = time.monotonic() + wait_s
    pause = LOCK_POLL_FIRST_S
    while True:
        try:
            return call()
        except sqlite3.OperationalError as exc:
            left = deadline - time.monotonic()
            if not _busy(exc) or left <= 0:
                raise
            if abandoned is not None and abandoned.is_set():
                raise TimeoutError("the caller gave up waiting for the lock") from exc
            time.sleep(min(pause, left))
            pause = min(pause * 2, LOCK_POLL_MAX_S)


class SqliteThread:
    """``await writer.transaction(fn, *args)`` runs ``fn(conn, *args)`` in a write transaction."""

    def __init__(self, path: str, busy_timeout_ms: int, name: str = "sqlite") -> None:
        self.path, self.busy_timeout_ms, self.name = path, busy_timeout_ms, name
        self._executor: ThreadPoolExecutor | None = None
        self._conn: sqlite3.Connection | None = None

    def _open(self) -> None:
        # timeout 0: no busy handler; the lock is waited for here, polling (module doc)
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=0)
        conn.execute("PRAGMA journal_mode=WAL")
        self._conn = conn

    async def start(self) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=self.name)
        await asyncio.get_running_loop().run_in_executor(self._executor, _translated(self._open))

    def _run(self, fn: Callable[..., T], args: tuple, abandoned: threading.Event) -> T:
        conn = self._conn
        assert conn is not None, "SQLite thread not started"
        polling(lambda: conn.execute("BEGIN IMMEDIATE"), self.busy_timeout_ms / 1000, abandoned)
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
        return await asyncio.get_running_loop().run_in_executor(
            self._executor, _translated(self._read), fn, args)

    def _read(self, fn: Callable[..., T], args: tuple) -> T:
        """A read: WAL readers do not wait for the writer; one that meets a lock (another
        process recovering the WAL after a crash) is tried again, as ``BEGIN IMMEDIATE`` is."""
        return polling(lambda: fn(self._conn, *args), self.busy_timeout_ms / 1000)

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
