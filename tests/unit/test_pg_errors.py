"""How the asyncpg hot path's errors are classified (``hand_infra.eventstore_pg``): a
connection that broke is "unreachable" (a client hears UNAVAILABLE with a retry hint,
not INTERNAL); a unique violation is an ``IntegrityError``; anything else stays itself. The same
for the stores on SQLAlchemy (``hand_infra.sqlstore.unreachable``): a server that is not serving
yet, shutting down or full is unreachable by its SQLSTATE."""

from __future__ import annotations

import asyncio
import struct

import asyncpg
import pytest
import structlog
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from sqlalchemy.ext.asyncio import create_async_engine

from hand_infra.eventstore_pg import _translated
from hand_infra.sqlstore import log_failure, store_refusal, unreachable


@pytest.mark.parametrize("exc", [
    # PostgreSQL killed under a query (seen in test_room_store_timeout: GetRoom answered INTERNAL)
    asyncpg.InternalClientError("cannot switch to state 12; another operation (2) is in progress"),
    asyncpg.InterfaceError("connection is closed"),
    asyncpg.exceptions.ConnectionDoesNotExistError("connection was closed in the middle of operation"),
    asyncpg.exceptions.AdminShutdownError("terminating connection due to administrator command"),
    asyncpg.exceptions.CannotConnectNowError("the database system is starting up"),
], ids=lambda e: type(e).__name__)
def test_a_broken_connection_is_unreachable_and_refused_unavailable(exc: Exception) -> None:
    translated = _translated(exc)
    assert unreachable(translated)
    refusal = store_refusal(translated)
    assert refusal is not None and refusal.params["retry_after_ms"] > 0


def test_a_unique_violation_is_an_integrity_error_and_not_unreachable() -> None:
    translated = _translated(asyncpg.UniqueViolationError("duplicate key"))
    assert isinstance(translated, IntegrityError) and not unreachable(translated)


def test_an_error_of_ours_stays_itself() -> None:
    exc = ValueError("a bug")
    assert _translated(exc) is exc and not unreachable(exc)


async def _not_accepting_yet(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """A PostgreSQL server in crash recovery, on the wire: it reads the client's SSL request
    (answers "no") and startup message, then sends ``FATAL 57P03`` and closes."""
    size, code = struct.unpack("!II", await reader.readexactly(8))
    if code == 80877103:  # SSLRequest
        writer.write(b"N")
        size = struct.unpack("!I", await reader.readexactly(4))[0]
        await reader.readexactly(size - 4)
    else:
        await reader.readexactly(size - 8)
    fields = b"SFATAL\0VFATAL\0C57P03\0Mthe database system is not yet accepting connections\0\0"
    writer.write(b"E" + struct.pack("!I", 4 + len(fields)) + fields)
    await writer.drain()
    writer.close()


async def test_a_server_not_yet_accepting_connections_is_unreachable_through_sqlalchemy() -> None:
    """SQLAlchemy's asyncpg dialect raises "not yet accepting connections" (PostgreSQL in
    crash recovery after a restart) as a plain ``DBAPIError``, not ``OperationalError``: it
    was taken for a fault, logged with a traceback and answered INTERNAL (CI 2026-12-07,
    test_chaos_dependencies, the ledger while PostgreSQL restarted)."""
    server = await asyncio.start_server(_not_accepting_yet, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    engine = create_async_engine(f"postgresql+asyncpg://hand@127.0.0.1:{port}/ledger")
    try:
        with pytest.raises(DBAPIError) as raised:
            async with engine.connect() as conn:
                await conn.execute(text("SELECT 1"))
    finally:
        await engine.dispose()
        server.close()
        await server.wait_closed()
    exc = raised.value
    assert isinstance(exc.orig.__cause__, asyncpg.exceptions.CannotConnectNowError), repr(exc.orig)
    assert not isinstance(exc, OperationalError)
    assert unreachable(exc)
    refusal = store_refusal(exc)
    assert refusal is not None and refusal.code == "SERVICE_UNAVAILABLE"
    with structlog.testing.capture_logs() as logs:
        log_failure(structlog.get_logger(), "ledger_batch_failed", exc)
    assert logs == [{"event": "ledger_batch_failed", "error": "DBAPIError", "store": "unreachable",
                     "log_level": "warning"}]


def test_a_server_shutting_down_or_full_is_unreachable_and_a_bad_query_is_not() -> None:
    def dbapi_error(sqlstate: str) -> DBAPIError:
        orig = Exception("from the server")
        orig.sqlstate = sqlstate
        return DBAPIError("SELECT 1", None, orig)

    for state in ("57P01", "57P02", "57P03", "53300", "08006", "08001"):
        assert unreachable(dbapi_error(state)), state
    for state in ("42P01", "23505", "22P02", None):
        assert not unreachable(dbapi_error(state)), state
