"""The ledger's store: its database, the positions it keeps in other stores, and the
reads the consumer needs (``next_seqs``).

SQLite (the embedded default, a file in WAL mode) or PostgreSQL, by URL,
one code path (the event store's engine set-up). Room events are written by
:func:`hand_ledger.project.ingest` (each one's archive row and its effects in one
transaction), which counts them here (``ingested``, ``failed``) and wakes the
reads waiting for them (``progress``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager

import structlog
from sqlalchemy import insert, select, text, update
from sqlalchemy.engine import URL
from sqlalchemy.exc import IntegrityError, OperationalError, ProgrammingError
from sqlalchemy.ext.asyncio import AsyncConnection

from hand_infra.sqlstore import SqlStore, create_missing
from hand_wire import Delivered

from . import handles, reads, tournament_schema  # noqa: F401  (the tournament tables join metadata)
from ._schema import RETIRED_INDEXES, cursors, metadata
from .caught_up import Progress
from .settings import DEV_HANDLE_SECRET

log = structlog.get_logger("hand_ledger.store")


class LedgerStore(SqlStore):
    """See the module doc. ``after_event`` is a test hook run after each event's effects
    (``project.ingest``)."""

    what = "ledger store"

    def __init__(self, url: str | URL, *, after_event: Callable[[Delivered], None] | None = None,
                 handle_secret: bytes = DEV_HANDLE_SECRET, **engine_kwargs: object) -> None:
        super().__init__(url, **engine_kwargs)
        self.after_event = after_event
        self.handle_secret = handle_secret  # the key of public handles: never logged
        self.ingested = 0
        self.failed = 0
        self.progress = Progress()  # wakes the reads waiting for a seq (caught_up.py)

    async def start(self, attempts: int = 10) -> None:
        """Connect and create missing tables (replicas starting together may race: retried)."""
        engine = self.connect()
        for attempt in range(attempts):
            try:
                async with self._write() as conn:
                    await conn.run_sync(create_missing, metadata)  # tables, and indexes added since
                    for name in RETIRED_INDEXES:
                        await conn.execute(text(f"DROP INDEX IF EXISTS {name}"))
                    added = await handles.backfill(conn, self.handle_secret)
                break
            except (OperationalError, IntegrityError, ProgrammingError) as exc:
                if attempt == attempts - 1:
                    raise
                log.warning("ledger_store_start_retry", attempt=attempt, error=str(exc).splitlines()[0])
                await asyncio.sleep(0.2 * (attempt + 1))
        log.info("ledger_store_started", backend=engine.dialect.name, handles_added=added)

    @asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncConnection]:
        """A connection for the read models in :mod:`hand_ledger.reads`."""
        async with self.engine.connect() as conn:
            yield conn

    # ------------------------------------------------------------------ positions
    async def cursor(self, name: str) -> int:
        """The ledger's position ``name`` in another store (0 if never set)."""
        async with self.read() as conn:
            return await conn.scalar(select(cursors.c.position).where(cursors.c.name == name)) or 0

    async def set_cursor(self, name: str, position: int) -> None:
        """Move position ``name`` forward (never back: replicas may race)."""
        async with self._write() as conn:
            current = await conn.scalar(select(cursors.c.position).where(cursors.c.name == name))
            if current is None:
                await conn.execute(insert(cursors).values(name=name, position=position))
            elif position > current:
                await conn.execute(update(cursors).where(cursors.c.name == name).values(position=position))

    # ------------------------------------------------------------------ reads
    async def next_seqs(self, room_ids: Sequence[str]) -> dict[str, int]:
        async with self.read() as conn:
            return await reads.next_seqs(conn, list(room_ids))
