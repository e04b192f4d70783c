"""The ledger's projections on SQLite and PostgreSQL: score sheets equal the engine's
results, and duplicated, re-ordered and re-delivered events after a crash in the
middle of a batch change nothing (issue 5). No Kafka here: the consumer's
ordering and commit logic is driven by a simulated partition log."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest

from hand_ledger import grpc_messages, reads
from hand_ledger.privacy import Viewer
from hand_ledger.consumer import LedgerConsumer
from hand_wire import Delivered
from hand_ledger.ratings import PRIOR
from hand_ledger.store import LedgerStore
from hand_table import RoundScored
from hand_sim.matches import play_match, published
from tests.ledger_support import SCENARIOS, scenario_runs  # noqa: F401 - fixture

from .ledger_fixtures import Crash, all_events, ingest_in_order
from .ledger_fixtures import assert_sheet_matches_engine, ledger_db, snapshot  # noqa: F401 - fixture


async def test_score_sheets_of_full_matches_equal_the_engines_results(ledger_db, scenario_runs) -> None:
    """Solo and partnership, a Hand, exhausted and void rounds, ties broken by most
    outs, by fewer penalty points, by a playoff, shared: every line and total."""
    store = await ingest_in_order(await ledger_db(), scenario_runs)
    try:
        for name, run in scenario_runs.items():
            await assert_sheet_matches_engine(store, run, SCENARIOS[name][1])
            if SCENARIOS[name][2]:
                assert run.room.match.winners == SCENARIOS[name][2], name
        finishes = Counter(r.finish for run in scenario_runs.values() for r in run.room.match.results)
        assert {"normal", "hand", "exhausted", "void"} <= set(finishes)
    finally:
        await store.close()


def interleave(runs, rng: random.Random) -> list[Delivered]:
    """The rooms' events interleaved, each room in order (as one partition would carry them)."""
    queues = [list(run.events) for run in runs.values()]
    out = []
    while any(queues):
        q = rng.choice([q for q in queues if q])
        out.append(q.pop(0))
    return out


def chaos(events: list[Delivered], rng: random.Random) -> list[Delivered]:
    """Duplicates, replays of earlier stretches, and events swapped within small windows."""
    out = []
    for e in events:
        out.append(e)
        if rng.random() < 0.15:
            out.append(e)
        if rng.random() < 0.02 and out:
            out.extend(out[-rng.randint(1, 20):])  # a redelivered stretch
    for i in range(0, len(out) - 8, 5):
        window = out[i:i + 8]
        rng.shuffle(window)
        out[i:i + 8] = window
    return out


async def test_duplicated_and_reordered_deliveries_change_nothing(ledger_db, scenario_runs) -> None:
    reference = await ingest_in_order(await ledger_db(), scenario_runs)
    store = LedgerStore(await ledger_db())
    await store.start()
    try:
        rng = random.Random(7)
        delivered = chaos(interleave(scenario_runs, rng), rng)
        assert len(delivered) > len(all_events(scenario_runs))
        consumer = LedgerConsumer(store, None)
        i = 0
        while i < len(delivered):
            n = rng.randint(1, 60)
            await consumer.record(delivered[i:i + n])
            i += n
        assert consumer.hold.waiting() == {}
        assert consumer.recorded == len(all_events(scenario_runs))
        assert await snapshot(store, ratings=False) == await snapshot(reference, ratings=False)
    finally:
        await store.close()
        await reference.close()


async def consume_log(url: str, log: list[Delivered], committed: int, *, crash_at: int | None = None,
                      batch: int = 40, commit: bool = True) -> int:
    """Read ``log`` from ``committed`` like a consumer of one partition; return the new
    committed offset. ``crash_at``: raise :class:`Crash` after that many events were
    projected in this run (in the middle of a batch's transaction)."""
    seen = 0

    def after_event(_: Delivered) -> None:
        nonlocal seen
        seen += 1
        if crash_at is not None and seen == crash_at:
            raise Crash

    store = LedgerStore(url, after_event=after_event)
    await store.start()
    consumer = LedgerConsumer(store, None)
    position = committed  # a restarted consumer reads on from the committed offset
    try:
        while position < len(log):
            records = log[position:position + batch]
            position += len(records)
            await consumer.record(records)
            if not commit:
                break
            committed = consumer.hold.commit_offsets()["p0"]  # the Kafka commit, after the database's
    finally:
        await store.close()
    return committed


async def test_a_ledger_killed_mid_batch_and_restarted_has_exact_totals(ledger_db, scenario_runs) -> None:
    """Kills inside a batch's transaction, and one between the database commit and the
    offset commit: after restarts nothing is double-counted and nothing is missing."""
    url = await ledger_db()
    rng = random.Random(11)
    events = chaos(interleave(scenario_runs, rng), rng)
    log = [replace(e, partition="p0", offset=offset) for offset, e in enumerate(events)]
    committed = 0
    for crash_at in (25, 170, 333):
        with pytest.raises(Crash):
            committed = await consume_log(url, log, committed, crash_at=crash_at)
    committed = await consume_log(url, log, committed, commit=False)  # recorded, offsets not committed
    committed = await consume_log(url, log, committed)
    assert committed == len(log)
    reference_url = await ledger_db()
    assert await consume_log(reference_url, log, 0, batch=len(log)) == len(log)  # no crash
    reference, store = LedgerStore(reference_url), LedgerStore(url)
    await reference.start()
    await store.start()
    try:
        assert await snapshot(store) == await snapshot(reference)
        for name, run in scenario_runs.items():
            await assert_sheet_matches_engine(store, run, SCENARIOS[name][1])
    finally:
        await store.close()
        await reference.close()



async def test_a_rebalance_while_a_batch_seeds_rooms_holds_no_room_back(ledger_db, scenario_runs) -> None:
    """aiokafka runs a rebalance in its own task, so a partition can be revoked at any await
    of a batch: here while the batch seeds a new room from the archive. The hold forgets the
    revoked partition's rooms; a room of that partition later in the same batch must be
    seeded again from the archive, not expected from seq 0, where it waited forever (a CI
    run, 2026-12-02: 44 events never archived)."""
    store = LedgerStore(await ledger_db())
    await store.start()
    try:
        consumer = LedgerConsumer(store, None)
        first, second = (run.events for run in list(scenario_runs.values())[:2])
        half = len(first) // 2

        def at(events, partition: str, start: int) -> list[Delivered]:
            return [replace(e, partition=partition, offset=start + i) for i, e in enumerate(events)]

        assert await consumer.record(at(first[:half], "p0", 0)) == half
        seed = store.next_seqs

        async def revoked_while_seeding(room_ids):
            out = await seed(room_ids)
            await consumer.on_revoked({"p0"})
            return out

        store.next_seqs = revoked_while_seeding
        recorded = await consumer.record(at(second[:1], "p1", 0) + at(first[half:], "p0", half))
        assert consumer.hold.waiting() == {}
        assert recorded == 1 + len(first) - half
        assert await store.next_seqs([first[0].room_id]) == {first[0].room_id: len(first)}
    finally:
        await store.close()



async def test_a_batch_read_before_a_rebalance_leaves_revoked_partitions_to_their_new_owner(
        ledger_db, scenario_runs) -> None:
    """Events of a partition revoked after ``getmany`` read them are neither recorded nor
    committed here: the partition's new owner reads them from the committed offset, and an
    offset of a foreign partition left in the hold could be committed past its progress."""

    class Assigned:  # the aiokafka consumer, as far as the ledger asks it
        def __init__(self, partitions: set[str]) -> None:
            self.partitions, self.commits = partitions, []

        def assignment(self) -> set[str]:
            return set(self.partitions)

        async def commit(self, offsets) -> None:
            self.commits.append(dict(offsets))

    store = LedgerStore(await ledger_db())
    await store.start()
    try:
        consumer = LedgerConsumer(store, None)
        consumer.loop.consumer = kafka = Assigned({"p0", "p1"})
        first, second = (run.events for run in list(scenario_runs.values())[:2])
        batch = ([replace(e, partition="p0", offset=i) for i, e in enumerate(first)]
                 + [replace(e, partition="p1", offset=i) for i, e in enumerate(second)])
        kafka.partitions = {"p0"}  # p1 revoked after the batch was read
        assert await consumer.record(batch) == len(first)
        await consumer._commit()
        assert kafka.commits == [{"p0": len(first)}]
        assert await store.next_seqs([second[0].room_id]) == {second[0].room_id: 0}
    finally:
        await store.close()


async def test_player_statistics_and_ratings_add_up_over_matches(ledger_db, scenario_runs) -> None:
    store = await ingest_in_order(await ledger_db(), scenario_runs)
    expected: dict[str, Counter] = {}
    for run in scenario_runs.values():
        m = run.room.match
        for seat, slot in enumerate(run.room.seats):
            c = expected.setdefault(slot.player_id, Counter())
            c["matches"] += 1
            c["wins"] += m.unit_of(seat) in m.winners
            for r in m.results:
                c["rounds"] += 1
                c["rounds_won"] += r.winner == seat
                c["hand_finishes"] += r.winner == seat and r.finish == "hand"
                c["rounds_opened"] += r.seats[seat].opened
                c["score_sum"] += r.seats[seat].score
    try:
        async with store.read() as conn:
            board = await reads.leaderboard(conn, offset=0, limit=50, min_matches=1)
            for player_id, c in expected.items():
                stats = await reads.load_player(conn, player_id)
                assert {k: getattr(stats, k) for k in c} == dict(c), player_id
                assert stats.rating.sigma < PRIOR.sigma
                assert stats.mean_round_score == pytest.approx(c["score_sum"] / c["rounds"])
                assert stats.opening_rate == pytest.approx(c["rounds_opened"] / c["rounds"])
        assert sorted(s.player_id for s in board) == sorted(expected)
        ordinals = [s.rating.ordinal for s in board]
        assert ordinals == sorted(ordinals, reverse=True)
    finally:
        await store.close()


async def test_a_malformed_event_is_archived_with_its_error_and_blocks_nothing(ledger_db) -> None:
    run = await play_match("hand", 2, rounds=1, seed=4, room_id="broken")
    events = list(run.events)
    i = next(k for k, e in enumerate(events) if isinstance(e.recorded.event, RoundScored))
    rec = events[i].recorded
    one_seat = replace(rec.event.result, seats=rec.event.result.seats[:1])  # a result for 1 of 2 seats
    events[i] = published(replace(rec, event=replace(rec.event, result=one_seat)))
    store = LedgerStore(await ledger_db())
    await store.start()
    try:
        consumer = LedgerConsumer(store, None)
        assert await consumer.record(events) == len(events)
        assert store.failed == 1
        async with store.read() as conn:
            archived = await reads.load_events(conn, "broken")
            outcome = await reads.load_outcome(conn, "broken")
        assert [e.seq for e in archived] == list(range(len(events)))
        assert archived[i] == events[i].recorded  # archived as published, bytes and all
        assert outcome is not None and outcome.winners == run.room.match.winners
    finally:
        await store.close()


async def test_a_database_that_is_down_quarantines_nothing(ledger_db, monkeypatch) -> None:
    """A connection refused mid-projection (PostgreSQL restarting) is the store's failure,
    not the event's: the batch fails whole and is recorded, projected, on the retry —
    never archived as a broken event whose effects are skipped for good."""
    from hand_ledger import project as project_module

    run = await play_match("hand", 2, rounds=1, seed=4, room_id="outage")
    store = LedgerStore(await ledger_db())
    await store.start()
    real, down = project_module.project, {"calls": 2}

    async def flaky(conn, rec):
        if down["calls"] > 0:  # the first two projections meet a server that is going away
            down["calls"] -= 1
            raise ConnectionRefusedError(111, "Connect call failed")
        return await real(conn, rec)

    monkeypatch.setattr(project_module, "project", flaky)
    try:
        consumer = LedgerConsumer(store, None)
        with pytest.raises(ConnectionRefusedError):
            await consumer.record(list(run.events))
        assert store.failed == 0
        down["calls"] = 0  # the server is back
        consumer = LedgerConsumer(store, None)  # the consumer's rewind: from the archive again
        assert await consumer.record(list(run.events)) == len(run.events)
        assert store.failed == 0
        async with store.read() as conn:
            outcome = await reads.load_outcome(conn, "outage")
        assert outcome is not None and outcome.winners == run.room.match.winners
    finally:
        await store.close()


async def test_quitters_take_their_seat_result_bots_earn_nothing_and_kinds_of_play_rate_apart(
        ledger_db) -> None:
    """Decision 0027: a seat away when its match ends (seat 2 left at the start; a bot played it)
    is flagged in the result, counted as a quit and rated from its seat's place without any gain;
    a seat that left and came back (seat 1) is rated for its own share of the moves; a
    partnership match moves the partnership rating only."""
    ids = ["q0", "q1", "q2"]
    solo = await play_match("hand", 3, rounds=1, seed=5, room_id="quit-solo", player_ids=ids,
                            leave_at={1: 12, 2: 0}, back_at={1: 40})
    store = LedgerStore(await ledger_db())
    await store.start()
    consumer = LedgerConsumer(store, None)
    try:
        await consumer.record(solo.events)
        async with store.read() as conn:
            result = await reads.load_outcome(conn, "quit-solo")
            stats = {pid: await reads.load_player(conn, pid) for pid in ids}
            sheet = await reads.load_sheet(conn, "quit-solo")
        anyone = Viewer(None, b"secret")
        wire = grpc_messages.match_to_proto("quit-solo", sheet, result, anyone)
        assert wire.human_left and list(wire.left_seats) == [2]
        assert grpc_messages.stats_to_proto(stats["q2"], anyone).quits == 1
        assert result.left_seats == (2,)
        assert [stats[p].quits for p in ids] == [0, 0, 1] and stats["q2"].recent_quits == 1
        assert stats["q2"].rating.ordinal <= PRIOR.ordinal  # took the seat's place, gained nothing
        assert all(s.matches == 1 for s in stats.values())
        assert stats["q0"].rating.sigma < stats["q1"].rating.sigma < PRIOR.sigma  # q1: its share only
        assert all(s.partnership_rating == PRIOR for s in stats.values())

        team = await play_match("partnership", 4, rounds=1, seed=8, room_id="quit-team",
                                player_ids=["q0", "q1", "q2", "q3"])
        await consumer.record(team.events)
        async with store.read() as conn:
            after = {pid: await reads.load_player(conn, pid) for pid in ids}
            assert (await reads.load_outcome(conn, "quit-team")).left_seats == ()
        for pid in ids:
            assert after[pid].rating == stats[pid].rating  # free-for-all untouched
            assert after[pid].partnership_rating.sigma < PRIOR.sigma
        assert after["q2"].quits == 1 and after["q2"].recent_quits == 1 and after["q2"].matches == 2
    finally:
        await store.close()


async def test_the_leaderboard_ranks_players_without_a_finished_match_below_those_who_played(ledger_db) -> None:
    """A player who only sat down (no finished match) has the starting rating, whose ordinal (0) is
    above a loser's: ranked by ordinal alone they would top the board (issue 26, item 12)."""
    played = await play_match("hand", 2, rounds=1, seed=4, room_id="played", player_ids=["ann", "bob"])
    idle = await play_match("hand", 2, rounds=1, seed=5, room_id="idle", player_ids=["cat", "dan"], stop_after=3)
    store = LedgerStore(await ledger_db())
    await store.start()
    try:
        consumer = LedgerConsumer(store, None)
        for run in (played, idle):
            await consumer.record(list(run.events))
        async with store.read() as conn:
            board = await reads.leaderboard(conn, offset=0, limit=50, min_matches=0)
            assert [s.matches for s in board] == [1, 1, 0, 0]
            assert min(s.rating.ordinal for s in board[:2]) < PRIOR.ordinal  # the loser, below the start
            assert [s.player_id for s in board[2:]] == ["cat", "dan"]
            one_each = await reads.leaderboard(conn, offset=2, limit=1, min_matches=0)  # pages agree
            assert [s.player_id for s in one_each] == ["cat"]
            assert [s.player_id for s in await reads.leaderboard(conn, offset=0, limit=50, min_matches=1)] \
                == [s.player_id for s in board[:2]]
    finally:
        await store.close()


async def test_next_seqs_reads_one_index_entry_a_room_however_long_its_log(ledger_db) -> None:
    """The consumer asks the archived heads of a batch's rooms on every batch. ``max(seq) … IN
    (…) GROUP BY room_id`` read every archived event of those rooms (a long match's every
    event, again per batch); one ``max`` a room is one index probe. Heads are right for a room
    never seen (0) and past a chunk of rooms; on SQLite the work, in virtual-machine steps,
    does not grow with the room's log."""
    from datetime import UTC, datetime

    from hand_ledger._schema import events

    store = LedgerStore(await ledger_db())
    await store.start()
    try:
        now = datetime.now(UTC)
        async with store.engine.begin() as conn:
            await conn.execute(events.insert(), [{"room_id": room_id, "seq": q, "kind": "k", "payload": b"x",
                                                  "recorded_at": now}
                                                 for room_id, n in (("long", 2000), ("short", 2)) for q in range(n)])
        others = [f"never-{i}" for i in range(reads.HEADS_CHUNK + 50)]
        assert await store.next_seqs(["long", "short", *others]) == {"long": 2000, "short": 2, **dict.fromkeys(others, 0)}
        if store.engine.dialect.name == "sqlite":
            async with store.engine.connect() as conn:
                driver = (await conn.get_raw_connection()).driver_connection
                steps = [0]

                def step() -> int:
                    steps[0] += 1
                    return 0

                async def steps_of(room_id: str) -> int:
                    steps[0] = 0
                    await driver.set_progress_handler(step, 1)
                    try:
                        await reads.next_seqs(conn, [room_id])
                    finally:
                        await driver.set_progress_handler(None, 1)
                    return steps[0]

                short, long = await steps_of("short"), await steps_of("long")
                assert long <= short + 10, (short, long)  # before: 22,032 steps against 56
    finally:
        await store.close()
