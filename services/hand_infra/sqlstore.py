"""``SqlStore``: what every store on one SQLAlchemy async engine shares (the event
store, the ledger's, the auth service's): the engine made from the URL at start
(``make_engine``: the per-backend set-up), write transactions, closing.

A database that is down (PostgreSQL restarting, a broken connection) raises
``OSError`` (connection refused, not wrapped by SQLAlchemy), ``TimeoutError`` or a
``DBAPIError``: :data:`STORE_ERRORS` are what a caller must treat as "the store
failed, nothing was written" (never as a fault of the data), and
:func:`log_failure` logs an unreachable store as one warning line (no traceback
repeated on every retry of an outage)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import structlog
from sqlalchemy import text
from sqlalchemy.engine import URL
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from hand_common.refusal import Refusal

from ._schema import create_missing, create_tables, make_engine, upsert_into, write_transaction

__all__ = ["STORE_ERRORS", "SqlStore", "create_missing", "create_tables", "upsert_into", "write_transaction", "log_failure", "store_refusal", "unreachable"]

STORE_ERRORS = (DBAPIError, OSError, TimeoutError)
"""What a statement raises when the database (or the way to it) failed."""


#: SQLSTATEs of a server that is there but will not serve now: 57P01 admin shutdown, 57P02 crash
#: shutdown, 57P03 cannot connect now (starting up, in recovery: "the database system is not yet
#: accepting connections"), 53300 too many connections; and class 08, connection exceptions.
#: SQLAlchemy's asyncpg dialect raises them as a plain ``DBAPIError``, not ``OperationalError``.
UNAVAILABLE_SQLSTATES = frozenset({"57P01", "57P02", "57P03", "53300"})


def unreachable(exc: BaseException) -> bool:
    """The database could not be reached, or the connection broke, or the server is not
    serving yet (a retry may work)."""
    if isinstance(exc, (OSError, TimeoutError, InterfaceError, OperationalError)):
        return True
    if not isinstance(exc, DBAPIError):
        return False
    state = getattr(exc.orig, "sqlstate", None) or ""
    return bool(exc.connection_invalidated) or state in UNAVAILABLE_SQLSTATES or state.startswith("08")


def store_refusal(exc: BaseException, retry_after_ms: int = 1000) -> Refusal | None:
    """``SERVICE_UNAVAILABLE`` (gRPC UNAVAILABLE, a retry hint) for a store that cannot be
    reached, so a client hears "retry", not ``INTERNAL``; None for any other exception."""
    if not unreachable(exc):
        return None
    return Refusal("SERVICE_UNAVAILABLE", "the database cannot be reached", retry_after_ms=retry_after_ms)


def log_failure(log: structlog.typing.FilteringBoundLogger, event: str, exc: BaseException, **kw: object) -> None:
    """``event`` with a traceback, unless the store is just unreachable: then one warning."""
    if unreachable(exc):
        log.warning(event, error=type(exc).__name__, store="unreachable", **kw)
    else:
        log.exception(event, **kw)


class SqlStore:
    """A store's engine and transactions; subclasses ``start()`` with ``connect()``."""

    what = "store"  # named in "… not started"

    def __init__(self, url: str | URL, **engine_kwargs: object) -> None:
        self.url = url
        self._engine_kwargs = engine_kwargs
        self._engine: AsyncEngine | None = None

    @property
    def engine(self) -> AsyncEngine:
        if self._engine is None:
            raise RuntimeError(f"{self.what} not started")
        return self._engine

    def connect(self) -> AsyncEngine:
        """Make the engine (no connection is opened yet)."""
        self._engine = make_engine(self.url, **self._engine_kwargs)
        return self._engine

    async def start(self) -> None:
        self.connect()

    async def ping(self) -> bool:
        """The store answers a trivial query (readiness: ``hand_common.readiness``)."""
        async with self.engine.connect() as conn:
            await conn.execute(text("SELECT 1"))
        return True

    async def close(self) -> None:
        """Close every pooled connection."""
        if self._engine is not None:
            await self._engine.dispose()
            self._engine = None

    async def __aenter__(self) -> Any:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[AsyncConnection]:
        """A write transaction; on SQLite ``BEGIN IMMEDIATE``, so concurrent writers wait for
        the lock (busy timeout) instead of failing with "database is locked" on upgrade."""
        async with write_transaction(self.engine) as conn:
            yield conn
