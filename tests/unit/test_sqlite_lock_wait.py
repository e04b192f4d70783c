"""The event store's SQLite writer waits for the write lock by trying again every 0.2–2 ms
(``hand_infra.sqlite_thread.polling``), not through SQLite's sleeping busy handler: it takes
the lock once another process frees it, gives up at its bound, and stops when its caller does."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from sqlalchemy.exc import OperationalError

from hand_infra.sqlite_thread import SqliteThread, polling


def _db(tmp_path: Path) -> str:
    path = str(tmp_path / "lock.db")
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE t (n INTEGER)")
    conn.close()
    return path


def _holder(path: str) -> sqlite3.Connection:
    """Another connection (as another instance would) holding the write lock."""
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("INSERT INTO t VALUES (0)")
    return conn


@asynccontextmanager
async def _writer_while_locked(tmp_path: Path, bound_ms: int) -> AsyncIterator[tuple[str, SqliteThread, sqlite3.Connection]]:
    """A started writer with the bound ``bound_ms``, while another connection holds the lock."""
    path = _db(tmp_path)
    writer = SqliteThread(path, busy_timeout_ms=bound_ms)
    await writer.start()
    holder = _holder(path)
    try:
        yield path, writer, holder
    finally:
        holder.close()
        await writer.close()


def _insert(conn: sqlite3.Connection, n: int) -> int:
    conn.execute("INSERT INTO t VALUES (?)", (n,))
    return n


async def test_a_transaction_waiting_for_the_lock_commits_once_it_is_freed(tmp_path: Path) -> None:
    async with _writer_while_locked(tmp_path, 5000) as (path, writer, holder):
        pending = asyncio.ensure_future(writer.transaction(_insert, 1))
        await asyncio.sleep(0.3)
        assert not pending.done()  # waiting, not failed
        holder.execute("COMMIT")
        assert await asyncio.wait_for(pending, 5) == 1
        rows = sorted(n for (n,) in sqlite3.connect(path).execute("SELECT n FROM t"))
        assert rows == [0, 1]


async def test_a_lock_held_past_the_bound_is_refused_after_the_bound_and_nothing_is_written(tmp_path: Path) -> None:
    async with _writer_while_locked(tmp_path, 300) as (path, writer, holder):
        began = time.monotonic()
        with pytest.raises(OperationalError, match="locked"):
            await writer.transaction(_insert, 1)
        assert time.monotonic() - began >= 0.3
        holder.execute("COMMIT")
        assert [n for (n,) in sqlite3.connect(path).execute("SELECT n FROM t")] == [0]


def test_a_caller_that_gives_up_stops_the_wait(tmp_path: Path) -> None:
    path = _db(tmp_path)
    holder = _holder(path)
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA busy_timeout=0")
    abandoned = threading.Event()
    threading.Timer(0.1, abandoned.set).start()
    try:
        with pytest.raises(TimeoutError):
            polling(lambda: conn.execute("BEGIN IMMEDIATE"), 30, abandoned)
        assert not conn.in_transaction
    finally:
        holder.close()
        conn.close()


def test_an_error_other_than_a_lock_is_raised_at_once(tmp_path: Path) -> None:
    conn = sqlite3.connect(_db(tmp_path), isolation_level=None)
    calls = []

    def bad() -> None:
        calls.append(1)
        conn.execute("INSERT INTO missing VALUES (1)")

    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        polling(bad, 30)
    assert calls == [1]
