"""``SqlStore``: what every store on one SQLAlchemy async engine shares (the event
store, the ledger's, the auth service's): the engine made from the URL at start
(``make_engine``: the per-backend set-up), write transactions, closing."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy.engine import URL
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from ._schema import SQLITE_BEGIN, make_engine

__all__ = ["SqlStore"]


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
        async with self.engine.connect() as conn:
            conn = await conn.execution_options(**{SQLITE_BEGIN: "IMMEDIATE"})
            async with conn.begin():
                yield conn
