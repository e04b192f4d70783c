"""The event store on SQLite and PostgreSQL: order, optimistic appends, action ids, outbox."""

from __future__ import annotations

import json

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Column, MetaData, String, Table

import hand_infra.eventstore as eventstore_module
from hand_infra._schema import async_url
from hand_infra.eventstore import DuplicateAction, EventStore, SeqGap, StaleAppend

ROUND = {"deck": ["AS", "2H", "JK"], "dealer": 2, "name": "لاعب"}


def b(payload: dict) -> bytes:
    """An event payload as the store keeps it: opaque bytes (here JSON, for readable tests)."""
    return json.dumps(payload, ensure_ascii=False).encode()


async def test_appended_events_load_back_in_order_with_their_payloads(store: EventStore) -> None:
    assert await store.next_seq("r1") == 0
    assert await store.append("r1", 0, [("RoundStarted", b(ROUND)), ("CardDrawn", b({"seat": 0}))]) == [0, 1]
    assert await store.append("r1", 2, [("CardDiscarded", b({"seat": 0, "card": "AS"}))]) == [2]
    await store.append("other", 0, [("RoundStarted", b({}))])

    events = await store.load("r1")
    assert [(e.seq, e.kind) for e in events] == [
        (0, "RoundStarted"), (1, "CardDrawn"), (2, "CardDiscarded")]
    assert json.loads(events[0].payload) == ROUND
    assert all(e.room_id == "r1" and e.created_at.tzinfo is not None for e in events)
    assert events[0].created_at.utcoffset() == UTC.utcoffset(None)
    assert [e.seq for e in await store.load("r1", from_seq=1)] == [1, 2]
    assert [e.seq for e in await store.load("r1", from_seq=1, limit=1)] == [1]
    assert await store.next_seq("r1") == 3
    assert await store.load("nobody") == []


async def test_an_append_at_a_taken_seq_is_stale_and_writes_nothing(store: EventStore) -> None:
    await store.append("r1", 0, [("A", b({})), ("B", b({}))])
    with pytest.raises(StaleAppend) as info:
        await store.append("r1", 1, [("Fork", b({}))])
    assert (info.value.expected_seq, info.value.next_seq) == (1, 2)
    assert [e.kind for e in await store.load("r1")] == ["A", "B"]
    assert len(await store.pending_outbox()) == 2


async def test_an_append_past_the_end_would_leave_a_gap_and_is_refused(store: EventStore) -> None:
    await store.append("r1", 0, [("A", b({}))])
    with pytest.raises(SeqGap):
        await store.append("r1", 5, [("Z", b({}))])
    assert await store.next_seq("r1") == 1


async def test_of_concurrent_appenders_at_one_seq_exactly_one_wins(store: EventStore) -> None:
    """Several owners race for each seq; the log never forks."""
    for seq in range(8):
        results = await asyncio.gather(
            *(store.append("r1", seq, [("Owner", b({"owner": i}))]) for i in range(3)),
            return_exceptions=True)
        winners = [r for r in results if not isinstance(r, BaseException)]
        assert winners == [[seq]], results
        assert all(isinstance(r, StaleAppend) for r in results if isinstance(r, BaseException))
    events = await store.load("r1")
    assert [e.seq for e in events] == list(range(8))
    assert len(await store.pending_outbox()) == 8


async def test_the_unique_key_stops_a_fork_even_when_the_head_check_is_fooled(
    store: EventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database's (room_id, seq) key is the guard, not the read before the write."""
    await store.append("r1", 0, [("A", b({})), ("B", b({}))])

    async def stale_head(_self: EventStore, _conn: object, _room_id: str) -> int:
        return 1  # what a stale owner believed

    monkeypatch.setattr(EventStore, "_next_seq", stale_head)
    with pytest.raises(StaleAppend):
        await store.append("r1", 1, [("Fork", b({}))])
    monkeypatch.undo()
    assert [e.kind for e in await store.load("r1")] == ["A", "B"]
    assert len(await store.pending_outbox()) == 2


async def test_a_client_action_id_is_applied_once(store: EventStore) -> None:
    assert await store.lookup_action("r1", "act-1") is None
    assert await store.append("r1", 0, [("Drew", b({})), ("Discarded", b({}))], action_id="act-1") == [0, 1]
    assert await store.lookup_action("r1", "act-1") == [0, 1]
    with pytest.raises(DuplicateAction) as info:
        await store.append("r1", 2, [("Drew", b({}))], action_id="act-1")
    assert info.value.seqs == [0, 1]
    assert await store.next_seq("r1") == 2
    # Action ids are per room.
    assert await store.append("r2", 0, [("Drew", b({}))], action_id="act-1") == [0]


async def test_concurrent_retries_of_one_action_apply_it_once(store: EventStore) -> None:
    results = await asyncio.gather(
        *(store.append("r1", 0, [("Drew", b({}))], action_id="retry") for _ in range(3)),
        return_exceptions=True)
    assert sorted(map(repr, results)).count("[0]") == 1, results
    assert all(isinstance(r, DuplicateAction) and r.seqs == [0]
               for r in results if isinstance(r, BaseException)), results
    assert len(await store.load("r1")) == 1


async def test_outbox_rows_are_written_with_the_events_in_one_transaction(
    store: EventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    await store.append("r1", 0, [("A", b({"n": 1}))])
    await store.append("r2", 0, [("A", b({"n": 2})), ("B", b({"n": 3}))])
    await store.append("r1", 1, [("B", b({"n": 4}))])
    pending = await store.pending_outbox()
    assert [(p.room_id, p.seq, p.kind, json.loads(p.payload)["n"]) for p in pending] == [
        ("r1", 0, "A", 1), ("r2", 0, "A", 2), ("r2", 1, "B", 3), ("r1", 1, "B", 4)]
    assert [p.room_id for p in await store.pending_outbox(limit=2)] == ["r1", "r2"]

    # A failure late in the transaction (the action id insert) leaves no event and no row.
    broken = Table("no_such_table", MetaData(), Column("room_id", String), Column("action_id", String),
                   Column("first_seq", String), Column("last_seq", String))
    monkeypatch.setattr(eventstore_module, "action_ids", broken)
    with pytest.raises(Exception, match="no_such_table"):
        await store.append("r3", 0, [("A", b({}))], action_id="x")
    monkeypatch.undo()
    assert await store.load("r3") == []
    assert len(await store.pending_outbox()) == 4

    await store.mark_published([pending[0].id, pending[2].id])
    assert [(p.room_id, p.seq) for p in await store.pending_outbox()] == [("r2", 0), ("r1", 1)]


async def test_reopening_a_store_keeps_its_events(store: EventStore) -> None:
    await store.append("r1", 0, [("A", b({}))])
    async with EventStore(store.url) as again:
        assert [e.kind for e in await again.load("r1")] == ["A"]
        assert await again.append("r1", 1, [("B", b({}))]) == [1]


async def test_sqlite_runs_in_wal_mode(tmp_path: Path) -> None:
    async with EventStore(f"sqlite:///{tmp_path / 'wal.db'}") as store:
        async with store.engine.connect() as conn:
            assert (await conn.exec_driver_sql("PRAGMA journal_mode")).scalar() == "wal"


def test_a_sqlite_memory_url_is_refused() -> None:
    """Concurrent connections to ``:memory:`` would each see their own empty database."""
    with pytest.raises(ValueError, match="file URL"):
        async_url("sqlite://")
    assert async_url("postgresql://u@h/db").drivername == "postgresql+asyncpg"
    assert async_url("sqlite:///x.db").drivername == "sqlite+aiosqlite"


async def test_ping_answers_on_the_hot_paths_own_connections(store: EventStore) -> None:
    """The readiness probe's query goes through the hot path (the reader thread, the asyncpg
    pool), not a check-out of the SQLAlchemy pool (~8 thread hops over aiosqlite, a second)."""
    from sqlalchemy import event

    checkouts: list[object] = []

    def on_checkout(*_: object) -> None:
        checkouts.append(_)

    event.listen(store.engine.sync_engine.pool, "checkout", on_checkout)
    try:
        assert await store.ping() is True
        assert await store.ping() is True
        assert checkouts == []
    finally:
        event.remove(store.engine.sync_engine.pool, "checkout", on_checkout)


async def test_rows_marked_by_room_and_seq_are_those_and_no_others(store: EventStore) -> None:
    """A direct publish's acks mark their rows published, however many, and only theirs:
    keys already marked or never written change nothing."""
    for r in range(30):
        await store.append(f"r{r}", 0, [("A", b({})), ("B", b({}))])
    keys = [(f"r{r}", q) for r in range(0, 30, 2) for q in (0, 1)] + [("r1", 1), ("nope", 0)]
    await store.mark_published_at(keys)
    await store.mark_published_at(keys[:5])  # again: nothing more
    left = {(p.room_id, p.seq) for p in await store.pending_outbox(limit=1000)}
    assert left == {(f"r{r}", q) for r in range(1, 30, 2) for q in (0, 1)} - {("r1", 1)}


async def test_pending_rows_before_a_moment_are_those_appended_earlier_in_order(store: EventStore) -> None:
    """The polling relay's read of rows old enough to be a dead writer's (``before``): the
    younger rows are left out, the older come oldest first; without it, every pending row."""
    await store.append("old", 0, [("A", b({})), ("B", b({}))])
    await asyncio.sleep(0.05)
    cut = datetime.now(UTC)
    await asyncio.sleep(0.05)
    await store.append("young", 0, [("A", b({}))])
    await store.append("old", 2, [("C", b({}))])
    assert [(p.room_id, p.seq) for p in await store.pending_outbox(limit=100, before=cut)] == [("old", 0), ("old", 1)]
    assert [(p.room_id, p.seq) for p in await store.pending_outbox(limit=100)] == [
        ("old", 0), ("old", 1), ("young", 0), ("old", 2)]
    assert await store.pending_outbox(limit=100, before=cut - timedelta(hours=1)) == []


async def test_sqlite_marks_many_rows_in_one_statement_a_chunk_not_one_a_row(tmp_path: Path) -> None:
    """The outbox is indexed by id only: a statement per (room_id, seq) scanned every pending
    row once per key (quadratic, under the write lock: ~35 ms for 1,000 keys); one row-value
    list per chunk scans them once."""
    from hand_infra.eventstore_sqlite import CHUNK

    async with EventStore(f"sqlite:///{tmp_path / 'marks.db'}") as store:
        for r in range(300):
            await store.append(f"r{r}", 0, [("A", b({})), ("B", b({}))])
        keys = [(f"r{r}", q) for r in range(300) for q in (0, 1)]
        statements: list[str] = []
        store.hot.writer._conn.set_trace_callback(statements.append)
        await store.mark_published_at(keys)
        updates = [s for s in statements if s.lstrip().upper().startswith("UPDATE")]
        assert len(updates) == -(-len(keys) // (CHUNK // 2))  # 600 keys: 3 statements (600 before)
        assert await store.pending_outbox() == []


async def test_an_appends_head_check_reads_no_more_of_a_long_room_than_of_a_short_one(store: EventStore) -> None:
    """The group commit reads each room's head before it writes. ``MAX(seq) … WHERE room_id IN
    (…) GROUP BY room_id`` read every stored event of the rooms (an append cost more the longer
    its room: 2,000 events, ~2,000 index entries read); one ``MAX`` a room is one index probe.
    Counted as the database's own work: SQLite's virtual-machine steps for one append, and
    PostgreSQL's rows read by the head query (``EXPLAIN ANALYZE``)."""
    await store.append_batch([("long", 0, [("A", b({}))] * 2000, None), ("short", 0, [("A", b({}))] * 2, None)])
    if store.engine.dialect.name == "sqlite":
        conn = store.hot.writer._conn
        steps = [0]

        def step() -> int:
            steps[0] += 1
            return 0  # go on

        async def steps_of_an_append(room_id: str, at: int) -> int:
            steps[0] = 0
            conn.set_progress_handler(step, 1)
            try:
                assert await store.append_batch([(room_id, at, [("B", b({}))], None)]) == [[at]]
            finally:
                conn.set_progress_handler(None, 1)
            return steps[0]

        short, long = await steps_of_an_append("short", 2), await steps_of_an_append("long", 2000)
        assert long < short * 1.5 + 50, (short, long)  # before: 22,091 steps against 112
    else:
        from hand_infra.eventstore_pg import HEADS

        async with store.hot.pool.acquire() as conn:
            plan = json.loads(await conn.fetchval(f"EXPLAIN (ANALYZE, FORMAT JSON) {HEADS}", ["long", "short", "none"]))

        def nodes(node: dict):
            yield node
            for child in node.get("Plans", []):
                yield from nodes(child)

        read = [n for n in nodes(plan[0]["Plan"]) if n.get("Relation Name") == "room_events"]
        assert read and all(n["Actual Rows"] <= 1 for n in read), read  # before: 2,000 rows of "long"
    # the heads it reads are right: a room with none starts at 0, a stale append is told apart
    long_next, short_next = await store.next_seq("long"), await store.next_seq("short")
    results = await store.append_batch([("long", long_next, [("C", b({}))], None), ("none", 0, [("C", b({}))], None),
                                        ("short", short_next - 1, [("C", b({}))], None)])
    assert results[:2] == [[long_next], [0]]
    assert isinstance(results[2], StaleAppend) and results[2].next_seq == short_next
