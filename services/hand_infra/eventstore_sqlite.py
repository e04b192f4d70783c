"""The event store's hot statements as plain SQL on SQLite, run on the process's one
writer connection (``hand_infra.sqlite_thread``) inside its transaction.

Same tables, same column encodings as SQLAlchemy writes them (``_schema.py``): a
``DateTime`` is the text ``YYYY-MM-DD HH:MM:SS.ffffff`` in UTC, a ``Boolean``
0 or 1, a ``LargeBinary`` a blob; so rows written here read back through the
engine unchanged, and the other way round. What to write is decided in
``hand_infra.eventstore`` (``plan_bulk``) for every backend alike.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime

from .appends import EventStoreError, plan_bulk, stored_key
from .sqlite_thread import SqliteThread

CHUNK = 500  # host parameters per IN list, well under SQLite's limit


def _chunks(seq: Sequence, size: int = CHUNK) -> Iterable[Sequence]:
    for start in range(0, len(seq), size):
        yield seq[start:start + size]


def _marks(n: int) -> str:
    return ",".join("?" * n)


def stored_time(moment: datetime) -> str:
    """How SQLAlchemy's SQLite dialect stores a ``DateTime``: UTC text, no zone."""
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")


def heads(conn: sqlite3.Connection, rooms: Sequence[str]) -> dict[str, int | None]:
    """Each room's highest stored seq (rooms with none are left out). One ``MAX(seq)`` per
    room, each a single step down the primary key's index: ``… WHERE room_id IN (…) GROUP BY
    room_id`` read every stored event of the rooms, so an append cost more the longer its
    room's log (3,000 events: ~0.2 ms a room; docs/room-service.md)."""
    out: dict[str, int | None] = {}
    for part in _chunks(rooms):
        out.update(row for row in conn.execute(
            "SELECT wanted.column1, (SELECT MAX(seq) FROM room_events WHERE room_id = wanted.column1)"
            f" FROM (VALUES {','.join(['(?)'] * len(part))}) AS wanted", tuple(part)).fetchall()
            if row[1] is not None)
    return out


def action_rows(conn: sqlite3.Connection, keys: Sequence[tuple[str, str]]) -> list[tuple[str, str, int, int]]:
    """``(room_id, stored action key, first_seq, last_seq)`` of the keys already applied;
    both key columns are constrained, so the primary key's index answers it."""
    rows: list[tuple[str, str, int, int]] = []
    for part in _chunks(keys):
        rooms, ids = sorted({k[0] for k in part}), sorted({k[1] for k in part})
        rows += conn.execute(
            f"SELECT room_id, action_id, first_seq, last_seq FROM action_ids WHERE room_id IN ({_marks(len(rooms))})"
            f" AND action_id IN ({_marks(len(ids))})", (*rooms, *ids)).fetchall()
    return rows


def insert(conn: sqlite3.Connection, events: Sequence[tuple[str, int, str, bytes]],
           actions: Sequence[tuple[str, str, int, int]], now: datetime) -> None:
    """The events with their outbox rows, and the action ids: one multi-row ``INSERT`` a
    table (per chunk), not one step a row."""
    at = stored_time(now)
    for part in _chunks(events, CHUNK // 5):
        conn.execute("INSERT INTO room_events (room_id, seq, kind, payload, created_at) VALUES "
                     + ",".join(["(?, ?, ?, ?, ?)"] * len(part)), [v for r, q, k, p in part for v in (r, q, k, p, at)])
        conn.execute("INSERT INTO outbox (room_id, seq, published) VALUES " + ",".join(["(?, ?, 0)"] * len(part)),
                     [v for r, q, _, _ in part for v in (r, q)])
    for part in _chunks(actions, CHUNK // 4):
        conn.execute("INSERT INTO action_ids (room_id, action_id, first_seq, last_seq) VALUES "
                     + ",".join(["(?, ?, ?, ?)"] * len(part)), [v for row in part for v in row])


def mark_published_at(conn: sqlite3.Connection, keys: Sequence[tuple[str, int]]) -> None:
    """Mark the rows of ``(room_id, seq)`` published: one pass over the pending rows per
    chunk of keys (a row-value list). The outbox is indexed by id only (pending rows), so
    an ``UPDATE … WHERE room_id = ? AND seq = ?`` per key scanned every pending row once per
    key: 1,000 keys against 1,000 pending rows took ~35 ms under the write lock, ~2 ms so."""
    for part in _chunks(keys, CHUNK // 2):
        conn.execute("UPDATE outbox SET published = 1 WHERE published = 0 AND (room_id, seq) IN"
                     f" (VALUES {','.join(['(?, ?)'] * len(part))})", [v for key in part for v in key])


def mark_published(conn: sqlite3.Connection, ids: Sequence[int]) -> None:
    for part in _chunks(list(ids)):
        conn.execute(f"UPDATE outbox SET published = 1 WHERE id IN ({_marks(len(part))})", tuple(part))


def load(conn: sqlite3.Connection, room_id: str, from_seq: int, limit: int | None
         ) -> list[tuple[str, int, str, bytes, str]]:
    """``(room_id, seq, kind, payload, created_at text)`` from ``from_seq`` on, in order."""
    return conn.execute("SELECT room_id, seq, kind, payload, created_at FROM room_events"
                        " WHERE room_id = ? AND seq >= ? ORDER BY seq LIMIT ?",
                        (room_id, from_seq, -1 if limit is None else limit)).fetchall()


def stored_at(text: str) -> datetime:
    """A stored ``created_at`` back to an aware UTC datetime."""
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def pending(conn: sqlite3.Connection, limit: int, before: datetime | None = None,
            after: int = 0) -> list[tuple[int, str, int, str, bytes]]:
    """Unpublished ``(outbox id, room_id, seq, kind, payload)`` with an outbox id past
    ``after``, oldest first; with ``before``, only events appended before that moment."""
    young = "" if before is None else " AND room_events.created_at < ?"
    return conn.execute(
        "SELECT outbox.id, outbox.room_id, outbox.seq, room_events.kind, room_events.payload FROM outbox"
        " JOIN room_events ON room_events.room_id = outbox.room_id AND room_events.seq = outbox.seq"
        f" WHERE outbox.published = 0 AND outbox.id > ?{young} ORDER BY outbox.id LIMIT ?",
        (after, limit) if before is None else (after, stored_time(before), limit)).fetchall()


def append_bulk(conn: sqlite3.Connection, items, now: datetime) -> list[list[int] | EventStoreError]:
    """``append_batch``'s fast path on the SQLite writer's connection (its thread, its
    transaction): the same plan as every backend's, written as plain SQL."""
    wanted = {(i[0], stored_key(i[3])): (i[0], i[3]) for i in items if i[3] is not None}
    prior = {wanted[(r, a)]: list(range(first, last + 1))
             for r, a, first, last in action_rows(conn, list(wanted)) if (r, a) in wanted}
    plan = plan_bulk(items, heads(conn, sorted({i[0] for i in items})), prior)
    insert(conn, plan.events, plan.actions, now)
    return plan.results


def _select_one(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT 1").fetchone() == (1,)


class SqliteHotPath:
    """The hot statements on two connections of their own: a writer and a reader thread
    (``sqlite_thread.py``); the same interface as ``eventstore_pg.PgHotPath``."""

    def __init__(self, path: str, busy_timeout_ms: int) -> None:
        self.writer = SqliteThread(path, busy_timeout_ms, "eventstore-writer")
        self.reader = SqliteThread(path, busy_timeout_ms, "eventstore-reader")

    async def start(self) -> None:
        await self.writer.start()
        await self.reader.start()

    async def close(self) -> None:
        await self.writer.close()
        await self.reader.close()

    async def ping(self) -> bool:
        return await self.reader.query(_select_one)

    async def append_bulk(self, items, now: datetime) -> list[list[int] | EventStoreError]:
        return await self.writer.transaction(append_bulk, items, now)

    async def mark_published_at(self, keys: Sequence[tuple[str, int]]) -> None:
        await self.writer.transaction(mark_published_at, list(keys))

    async def mark_published(self, ids: Sequence[int]) -> None:
        await self.writer.transaction(mark_published, list(ids))

    async def pending(self, limit: int, before: datetime | None = None,
                      after: int = 0) -> list[tuple[int, str, int, str, bytes]]:
        return await self.reader.query(pending, limit, before, after)

    async def load(self, room_id: str, from_seq: int, limit: int | None) -> list[tuple[str, int, str, bytes, datetime]]:
        return [(r, q, k, p, stored_at(at)) for r, q, k, p, at in await self.reader.query(load, room_id, from_seq, limit)]
