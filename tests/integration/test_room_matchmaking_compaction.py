"""The pools' log compacted (hand_room/matchmaking/log.py; docs/decisions/0028-matchmaking.md,
"Compaction"), on SQLite and PostgreSQL: after many tickets a pool's log holds at most the
threshold and a few rows, a fresh load sees the same pool, and a stale writer — of a
snapshot, or of events into a range a snapshot deleted — is refused."""

from __future__ import annotations

import asyncio
import itertools
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import insert, select

from hand_infra.eventstore import EventStore, StaleAppend
from hand_room.matchmaking.log import SNAPSHOT, PoolLog, encode, match_events, match_players
from hand_room.matchmaking.pool import Opened, Pool, Schedule, Seated, Ticket, cancel, match, open_ticket, pool_key
from hand_table import token_hash

from .room_support import make_topics, start_instance, topics_for, wait_for

EVERY = 20
SCHEDULE = Schedule(range_start=100, range_step=0, step_s=5, range_max=100, bot_fill_s=30, quit_ladder_s=(0,))
KEY = pool_key("hand", 2)


async def _rows(store: EventStore, key: str) -> list[tuple[int, str]]:
    q = select(match_events.c.seq, match_events.c.kind).where(match_events.c.pool == key).order_by(
        match_events.c.seq)
    async with store.engine.connect() as conn:
        return [tuple(r) for r in (await conn.execute(q)).all()]


async def _claims(store: EventStore) -> set[str]:
    async with store.engine.connect() as conn:
        return set((await conn.execute(select(match_players.c.player_id))).scalars())


def _same(a: Pool, b: Pool) -> None:
    assert (a.seq, a.base, a.tickets, a.groups) == (b.seq, b.base, b.tickets, b.groups)


async def _play(log: PoolLog, pool: Pool, n: int, start: int = 0, at: float | None = None) -> None:
    """``n`` tickets through the pool: opened, one in five cancelled, the rest paired and seated."""
    ids = itertools.count()
    for i in range(start, start + n):
        now = time.time() if at is None else at + i
        await log.append(pool, [open_ticket(pool, Ticket(f"t{i}", f"player{i}", "P", 1.0, "h", now))])
        if i % 5 == 4:
            await log.append(pool, [cancel(pool, f"t{i}", now)])
        elif formed := match(pool, now, SCHEDULE, lambda: (f"g{i}-{next(ids)}", f"r{i}-{next(ids)}")):
            await log.append(pool, formed)
            await log.append(pool, [Seated(f.group.group_id, now) for f in formed])
        rows = await _rows(log.store, pool.key)
        assert len(rows) <= EVERY + 2, rows  # the threshold, the snapshot, and one append's batch


async def test_a_busy_pools_log_stays_short_and_loads_the_same_pool(store: EventStore) -> None:
    log = PoolLog(store, snapshot_every=EVERY)
    await log.start()
    pool = await log.load(KEY, "hand", 2)
    other = await log.load(pool_key("hand", 4), "hand", 4)
    await log.append(other, [open_ticket(other, Ticket("o1", "other1", "O", 1.0, "h", time.time()))])

    await _play(log, pool, 150)

    rows = await _rows(store, KEY)
    assert rows[0][1] == SNAPSHOT and rows[0][0] == pool.base > 0
    assert [seq for seq, _ in rows] == list(range(pool.base, pool.seq))  # contiguous from the snapshot
    assert pool.seq > 300  # ≈ 330 events written, ≤ 22 rows kept
    fresh = await log.load(KEY, "hand", 2)
    _same(fresh, pool)
    assert len(fresh.tickets) == 150  # all closed within KEEP_CLOSED_S: still readable
    assert {t.status for t in fresh.tickets.values()} <= {"seated", "cancelled", "waiting"}
    assert await _claims(store) == {t.player_id for t in fresh.tickets.values() if t.open} | {"other1"}
    # the other pool is untouched, and both pools are listed for a new owner
    assert len(await _rows(store, other.key)) == 1
    assert sorted(await log.keys()) == sorted([KEY, other.key])
    # the fresh load goes on where the old one stopped
    await _play(log, fresh, 30, start=150)
    _same(await log.load(KEY, "hand", 2), fresh)


async def test_a_snapshot_leaves_out_tickets_closed_long_ago(store: EventStore) -> None:
    log = PoolLog(store, snapshot_every=EVERY, keep_closed_s=600)
    await log.start()
    pool = await log.load(KEY, "hand", 2)
    await _play(log, pool, 100, at=time.time() - 10_000)  # closed hours ago
    fresh = await log.load(KEY, "hand", 2)
    _same(fresh, pool)
    assert len(fresh.tickets) < 15  # those since the latest snapshot, and the open ones
    assert all(t.ticket_id in fresh.tickets for t in pool.waiting())


async def test_a_stale_snapshot_writer_is_refused(store: EventStore) -> None:
    log = PoolLog(store, snapshot_every=0)  # no compaction but the one asked for
    await log.start()
    first = await log.load(KEY, "hand", 2)
    await log.append(first, [open_ticket(first, Ticket("t1", "p1", "P", 1.0, "h", time.time()))])
    stale = await log.load(KEY, "hand", 2)
    await log.append(first, [open_ticket(first, Ticket("t2", "p2", "P", 1.0, "h", time.time()))])

    with pytest.raises(StaleAppend):
        await log.compact(stale)
    assert await _rows(store, KEY) == [(0, "opened"), (1, "opened")]  # nothing written, nothing deleted
    _same(await log.load(KEY, "hand", 2), first)

    await log.compact(first)
    assert await _rows(store, KEY) == [(2, SNAPSHOT)]
    _same(await log.load(KEY, "hand", 2), first)
    with pytest.raises(StaleAppend):  # the same seq again
        await log.compact(stale)


async def test_a_stale_writer_into_a_range_a_snapshot_deleted_is_refused(store: EventStore) -> None:
    """Its seqs are free again (deleted), so only the append's snapshot check refuses it."""
    log = PoolLog(store, snapshot_every=EVERY)
    await log.start()
    owner = await log.load(KEY, "hand", 2)
    await log.append(owner, [open_ticket(owner, Ticket("t0", "p0", "P", 1.0, "h", time.time()))])
    stale = await log.load(KEY, "hand", 2)  # an old owner, at seq 1
    await _play(log, owner, 30, start=1)
    assert min(seq for seq, _ in await _rows(store, KEY)) > stale.seq + 5

    with pytest.raises(StaleAppend):
        await log.append(stale, [open_ticket(stale, Ticket("ghost", "ghost-player", "G", 1.0, "h", time.time()))])
    assert "ghost-player" not in await _claims(store)  # its claim rolled back with it
    fresh = await log.load(KEY, "hand", 2)
    _same(fresh, owner)
    assert "ghost" not in fresh.tickets


async def test_rows_left_before_a_snapshot_are_not_folded(store: EventStore) -> None:
    """A log with rows before its latest snapshot (deleted later, or never) loads from the snapshot."""
    log = PoolLog(store, snapshot_every=0)
    await log.start()
    pool = await log.load(KEY, "hand", 2)
    await log.append(pool, [open_ticket(pool, Ticket("t1", "p1", "P", 1.0, "h", time.time()))])
    await log.compact(pool)
    kind, payload = encode(Opened(Ticket("old", "p-old", "P", 1.0, "h", 0.0)))
    async with store.engine.begin() as conn:
        await conn.execute(insert(match_events), [{"pool": KEY, "seq": 0, "kind": kind, "payload": payload,
                                                   "created_at": datetime.now(UTC)}])
    fresh = await log.load(KEY, "hand", 2)
    _same(fresh, pool)
    assert set(fresh.tickets) == {"t1"}


async def test_a_stale_writer_racing_a_compaction_is_refused(store: EventStore) -> None:
    """The stale append and the snapshot's deletions run at once: whichever commits first, the
    stale events are refused (a row still there, or the snapshot seen) and its claim is not kept."""
    log = PoolLog(store, snapshot_every=0)
    await log.start()
    owner = await log.load(KEY, "hand", 2)
    for rnd in range(12):
        stale = await log.load(KEY, "hand", 2)
        for i in range(3):
            await log.append(owner, [open_ticket(owner, Ticket(f"t{rnd}-{i}", f"p{rnd}-{i}", "P", 1.0, "h",
                                                               time.time()))])
        ghost = open_ticket(stale, Ticket(f"ghost{rnd}", f"ghost{rnd}", "G", 1.0, "h", time.time()))
        results = await asyncio.gather(log.compact(owner), log.append(stale, [ghost]), return_exceptions=True)
        assert results[0] is None, results
        assert isinstance(results[1], StaleAppend), results
        assert not any(p.startswith("ghost") for p in await _claims(store))
        fresh = await log.load(KEY, "hand", 2)
        _same(fresh, owner)
        assert (await _rows(store, KEY))[0] == (owner.base, SNAPSHOT)


async def test_an_instance_compacting_its_pool_seats_every_ticket_once(broker, tmp_path: Path, unique: str) -> None:
    """The matchmaker with a short threshold: every ticket seated once, at its own seat of its own
    room; the pool folded again from the compacted log answers every ticket the same."""
    await make_topics(broker, topics_for(unique))
    db = tmp_path / "events.db"
    server = await start_instance(broker, unique, f"sqlite:///{db}", HAND_MATCH_TICK_MS="50",
                                  HAND_MATCH_SNAPSHOT_EVERY="10")
    try:
        await wait_for(lambda: server.owner.in_group, 30)
        mm = server.instance.matchmaker
        assert mm.log.snapshot_every == 10
        tickets = []
        for i in range(16):
            t = Ticket(f"{KEY}:{i}", f"guest:p{i}", f"P{i}", 0.0, token_hash(f"tok{i}"), time.time())
            tickets.append(await mm.find("hand", 2, t))
            if i % 2:  # pairs, one after another: the table formed and built between two
                await wait_for(lambda t=t: mm.pools[KEY].tickets[t.ticket_id].status == "seated", 20)
        got = [await mm.get(KEY, t.ticket_id, t.token_hash) for t in tickets]
        assert {t.status for t in got} == {"seated"}
        assert len({(t.room_id, t.seat) for t in got}) == 16 and len({t.room_id for t in got}) == 8
        rows = await _rows(server.store, KEY)
        assert rows[0][1] == SNAPSHOT and len(rows) <= 10 + 2, rows

        async with mm._lock(KEY):
            mm.pools.pop(KEY)  # as a new owner: folded from the log
        assert [await mm.get(KEY, t.ticket_id, t.token_hash) for t in tickets] == got
        assert await _claims(server.store) == set()
    finally:
        await server.stop()
