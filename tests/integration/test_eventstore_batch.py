"""Group commit: many rooms' appends in one transaction, each item on its own."""

from __future__ import annotations

import json

import asyncio

from hand_infra.eventstore import DuplicateAction, EventStore, SeqGap, StaleAppend


def b(payload: dict) -> bytes:
    """An event payload as the store keeps it: opaque bytes (here JSON, for readable tests)."""
    return json.dumps(payload, ensure_ascii=False).encode()


async def test_a_batch_appends_each_item_or_reports_why_not(store: EventStore) -> None:
    await store.append("r0", 0, [("A", b({}))], action_id="done")
    results = await store.append_batch([
        ("r1", 0, [("A", b({"n": 1}))], "a1"),
        ("r1", 1, [("B", b({})), ("C", b({}))], None),
        ("r2", 0, [("A", b({}))], None),
        ("r1", 0, [("X", b({}))], None),          # seq taken: stale
        ("r3", 5, [("X", b({}))], None),          # past the end: gap
        ("r0", 1, [("X", b({}))], "done"),        # action already applied
        ("r1", 3, [("D", b({}))], "a1"),          # action applied earlier in this batch
    ])
    assert results[:3] == [[0], [1, 2], [0]]
    assert isinstance(results[3], StaleAppend) and isinstance(results[4], SeqGap)
    assert isinstance(results[5], DuplicateAction) and results[5].seqs == [0]
    assert isinstance(results[6], DuplicateAction) and results[6].seqs == [0]
    assert [(e.seq, e.kind) for e in await store.load("r1")] == [(0, "A"), (1, "B"), (2, "C")]
    assert await store.load("r3") == []
    assert await store.lookup_actions([("r1", "a1"), ("r0", "done"), ("r2", "none")]) == {
        ("r1", "a1"): [0], ("r0", "done"): [0]}
    assert len(await store.pending_outbox()) == 1 + 4


async def test_a_batch_racing_a_single_append_forks_nothing(store: EventStore) -> None:
    results = await asyncio.gather(
        store.append_batch([("r1", 0, [("batch", b({}))], None), ("r2", 0, [("batch", b({}))], None)]),
        store.append("r1", 0, [("single", b({}))]),
        return_exceptions=True)
    events = await store.load("r1")
    assert len(events) == 1
    winner = events[0].kind
    if winner == "single":
        assert isinstance(results[0][0], StaleAppend)
    else:
        assert isinstance(results[1], StaleAppend)
    assert [e.kind for e in await store.load("r2")] == ["batch"]


async def test_a_batch_failing_late_in_its_transaction_writes_nothing(store: EventStore, monkeypatch) -> None:
    """The events, their outbox rows and the action ids commit together or not at all, on
    either backend's write path (SQLite's own writer connection, PostgreSQL's engine)."""
    import hand_infra.eventstore_pg as pg_module
    import hand_infra.eventstore_sqlite as sqlite_module

    real_sqlite, real_pg = sqlite_module.insert, pg_module.insert

    def sqlite_insert_then_fail(conn, events, actions, now):
        real_sqlite(conn, events, actions, now)
        conn.execute("INSERT INTO no_such_table VALUES (1)")

    async def pg_insert_then_fail(conn, events, actions, now):
        await real_pg(conn, events, actions, now)
        await conn.execute("INSERT INTO no_such_table VALUES (1)")

    monkeypatch.setattr(sqlite_module, "insert", sqlite_insert_then_fail)
    monkeypatch.setattr(pg_module, "insert", pg_insert_then_fail)
    try:
        await store.append_batch([("r1", 0, [("A", b({}))], "a1"), ("r2", 0, [("A", b({}))], "a2")])
    except Exception as exc:
        assert "no_such_table" in str(exc)
    else:
        raise AssertionError("the failing transaction was reported as written")
    monkeypatch.undo()
    assert await store.load("r1") == [] and await store.load("r2") == []
    assert await store.pending_outbox() == []
    assert await store.lookup_actions([("r1", "a1")]) == {}
    assert await store.append_batch([("r1", 0, [("A", b({}))], "a1")]) == [[0]]  # the writer goes on


async def test_an_append_whose_caller_gave_up_never_commits_behind_its_back(tmp_path) -> None:
    """SQLite: a group commit waiting for the write lock is given up by its caller (the
    owner's store budget); when the lock frees within the busy timeout, the transaction must
    not commit after all — the owner told the client nothing was written, and a commit
    nobody saw left the room's streams waiting for that event (found by the locked-store
    contract test)."""
    import sqlite3

    import pytest

    db = tmp_path / "events.db"
    async with EventStore(f"sqlite:///{db}", lock_timeout_s=3.0) as store:
        locker = sqlite3.connect(db, isolation_level=None)
        locker.execute("BEGIN IMMEDIATE")
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(store.append_batch([("r1", 0, [("A", b({}))], "a1")]), 0.3)
        locker.execute("ROLLBACK")  # the waiting transaction gets the lock now
        locker.close()
        await asyncio.sleep(0.5)
        assert await store.load("r1") == []
        assert await store.lookup_actions([("r1", "a1")]) == {}
        assert await store.append_batch([("r1", 0, [("A", b({}))], "a1")]) == [[0]]
