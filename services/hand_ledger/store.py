"""The ledger's store: ingest room events exactly once, and read the projections.

SQLite (the embedded default, a file in WAL mode) or PostgreSQL, by URL,
one code path (the event store's engine set-up). :meth:`LedgerStore.ingest`
writes a batch of events — each one's archive row (its tracking record)
and all its effects — in **one transaction**: after a crash either all of
the batch is there or none of it. A row already archived makes the insert
fail on the key (``IntegrityError``): the batch was, at least in part,
recorded before (by this process before a restart, or by another replica
during a rebalance), and the caller re-reads from the archive.

An event whose projection raises (a payload that does not fit its room) cannot block the
others: the batch is retried one event per transaction, and such an event
is archived with its error and no effect.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime

import structlog
from sqlalchemy import insert, select, update
from sqlalchemy.engine import URL
from sqlalchemy.exc import IntegrityError, OperationalError, ProgrammingError
from sqlalchemy.ext.asyncio import AsyncConnection

from hand_infra.sqlstore import STORE_ERRORS, SqlStore
from hand_wire import Delivered

from . import handles, reads, tournament_schema  # noqa: F401  (the tournament tables join metadata)
from ._schema import cursors, events, metadata
from .caught_up import Progress
from .project import project
from .settings import DEV_HANDLE_SECRET

log = structlog.get_logger("hand_ledger.store")


class LedgerStore(SqlStore):
    """See the module doc. ``after_event`` is a test hook run after each event's effects."""

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
                    await conn.run_sync(metadata.create_all)
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

    # ------------------------------------------------------------------ writes
    async def ingest(self, batch: Sequence[Delivered]) -> int:
        """Record ``batch`` (in seq order per room) and its effects; return its size.

        Raises ``IntegrityError`` if any of it was recorded before, other
        database errors (and a database that is down: ``STORE_ERRORS``) as they
        come; nothing of the batch is kept then. Only an event whose projection
        itself fails is archived with its error (quarantined).
        """
        if not batch:
            return 0
        try:
            await self._ingest(batch)
        except STORE_ERRORS:  # the database failed (or is down), not the event: nothing recorded
            raise
        except Exception:
            if len(batch) == 1:
                await self._quarantine(batch[0])
            else:
                for item in batch:
                    await self.ingest([item])
                return len(batch)
        self.ingested += len(batch)
        self.progress.moved()
        return len(batch)

    async def _ingest(self, batch: Sequence[Delivered], error: str | None = None) -> None:
        now = datetime.now(UTC)
        async with self._write() as conn:
            await conn.execute(insert(events), [
                {"room_id": e.room_id, "seq": e.seq, "kind": e.kind, "payload": e.payload,
                 "recorded_at": now, "error": error} for e in batch])
            if error is not None:
                return
            for e in batch:
                await project(conn, e.recorded)
                await handles.record(conn, self.handle_secret, e.recorded)
                if self.after_event is not None:
                    self.after_event(e)

    async def _quarantine(self, item: Delivered) -> None:
        try:
            await self._ingest([item])
            return
        except STORE_ERRORS:  # the database failed (or is down), not the event: nothing recorded
            raise
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"
        log.error("projection_failed", room_id=item.room_id, seq=item.seq, kind=item.kind, error=error)
        await self._ingest([item], error=error)
        self.failed += 1

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
