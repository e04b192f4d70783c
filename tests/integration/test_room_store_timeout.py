"""The event store hanging instead of failing (a crashed PostgreSQL's pooled connections
can hang on backends that have not yet noticed their postmaster died): the owner waits
``HAND_ROOM_STORE_TIMEOUT_S`` for a batch's append, then refuses it UNAVAILABLE with a
retry hint. Whether or not the append landed, the client's retry with the same action
id ends with the move stored exactly once."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from contextlib import asynccontextmanager
from pathlib import Path

import grpc
import pytest

from hand.v1 import room_service_pb2 as pb
from hand.v1 import room_service_pb2_grpc as pb_grpc
from hand_room.store_budget import MIN_SHARE

from .room_support import a_move_ready, make_topics, name, refusal, start_instance, topics_for

TIMEOUT_S = 0.3


@asynccontextmanager
async def a_room(broker, tmp_path: Path, unique: str, timeout_s: float):
    """A room service on SQLite with the store timeout given: (server, stub, a_move_ready's
    tuple); the watchers are closed after."""
    await make_topics(broker, topics_for(unique))
    server = await start_instance(broker, unique, f"sqlite:///{tmp_path / 'events.db'}",
                                  HAND_ROOM_STORE_TIMEOUT_S=str(timeout_s))
    channel = grpc.aio.insecure_channel(server.target)
    try:
        stub = pb_grpc.RoomServiceStub(channel)
        ready = await a_move_ready(stub)
        yield server, stub, ready
        await ready[1].close()  # the watchers
        await ready[3].close()
    finally:
        await channel.close()
        await server.stop(grace=0)


def hang_first_load(store, room_id: str):
    """Make ``store``'s first read of ``room_id`` hang (30 s); returns (the real load, the
    list that gets the room id once that read began)."""
    real_load, hung = store.load, []

    async def hanging_load(rid, *args, **kw):
        if rid == room_id and not hung:
            hung.append(rid)
            await asyncio.sleep(30)
        return await real_load(rid, *args, **kw)

    store.load = hanging_load
    return real_load, hung


@pytest.mark.parametrize("landed", [False, True], ids=["hangs-before-writing", "hangs-after-writing"])
async def test_a_hanging_store_is_refused_fast_and_the_retry_stores_the_move_once(
        broker, tmp_path: Path, unique: str, landed: bool) -> None:
    async with a_room(broker, tmp_path, unique, TIMEOUT_S) as (server, stub, ready):
        room_id, _, mover, _, discard, before = ready
        store, real, hung = server.store, server.store.append_batch, []

        async def hanging(items):
            if hung:
                return await real(items)
            hung.append(items)
            if landed:
                out = await real(items)
                await asyncio.sleep(30)
                return out
            await asyncio.sleep(30)

        store.append_batch = hanging
        started = time.monotonic()
        code, detail = await refusal(mover.act(discard, action_id="while-hanging"))
        took = time.monotonic() - started
        assert code == grpc.StatusCode.UNAVAILABLE and name(detail) == "ROOM_UNAVAILABLE", detail
        assert int(detail.params["retry_after_ms"]) > 0 and took < TIMEOUT_S + 1.5, took
        stored = (await stub.GetRoom(pb.GetRoomRequest(room_id=room_id))).room.next_seq
        assert stored == (before + 1 if landed else before)

        done = await mover.act(discard, action_id="while-hanging")  # the client's retry, same id
        assert done.first_seq == before and done.duplicate == landed
        events = await store.load(room_id)
        assert [e.seq for e in events] == list(range(len(events)))
        assert sum(e.kind == "move_made" for e in events) == 1


async def test_a_command_waiting_behind_a_stuck_pass_is_refused_within_the_timeout_of_its_arrival(
        broker, tmp_path: Path, unique: str) -> None:
    """Passes run one at a time: an Act that arrives while an earlier pass waits on a stuck
    store waits for it, and that wait counts against its store timeout (store_budget.py).
    Until 2026-12-07 each pass had the whole timeout, so the second Act below was refused
    after the rest of the first pass's wait plus a whole timeout of its own (3.7 s with a
    2 s timeout; a CI run failed on it). A real SQLite lock, held by this test's own
    connection; once it is freed, the client's retry stores the move once."""
    timeout_s = 2.0
    async with a_room(broker, tmp_path, unique, timeout_s) as (server, stub, ready):
        room_id, _, mover, _, discard, before = ready
        holder = sqlite3.connect(tmp_path / "events.db", isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")  # every append of the instance waits for the lock
        try:
            first = asyncio.ensure_future(refusal(mover.act(discard, action_id="first")))
            await asyncio.sleep(0.3)  # the first pass waits on the lock
            started = time.monotonic()
            code, detail = await refusal(mover.act(discard, action_id="second"))
            took = time.monotonic() - started
            assert code == grpc.StatusCode.UNAVAILABLE and name(detail) == "ROOM_UNAVAILABLE", detail
            assert (await first)[0] == grpc.StatusCode.UNAVAILABLE
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        # the timeout from its arrival, and a pass's least share of it (0.5 s): 2.5 s here
        assert took < timeout_s * (1 + MIN_SHARE) + 0.5, took
        done = await mover.act(discard, action_id="second")  # the client's retry, same id
        assert done.first_seq == before and not done.duplicate
        events = await server.store.load(room_id)
        assert sum(e.kind == "move_made" for e in events) == 1


async def test_a_cold_room_whose_load_hangs_is_refused_within_the_store_timeout(
        broker, tmp_path: Path, unique: str) -> None:
    """A command for a room not in the owner's cache (after a restart or a fail-over, or a
    command another instance forwarded) folds the room from the store first: that read
    shares the batch's store timeout, so a hanging store refuses it UNAVAILABLE in time
    instead of holding the command as long as the store hangs. Nothing is written; the
    client's retry stores the move once."""
    from hand_table import Act, Command
    from hand_wire import action_from_proto

    async with a_room(broker, tmp_path, unique, TIMEOUT_S) as (server, _, ready):
        room_id, _, mover, _, discard, before = ready
        real_load, hung = hang_first_load(server.store, room_id)
        server.repo.forget(room_id)  # cold: the owner must fold it from the store
        cmd = Command(room_id, Act(action_from_proto(discard), None), seat=mover.seat, action_id="cold-room")
        started = time.monotonic()
        reply = await asyncio.wait_for(server.owner.submit(cmd), 10)
        took = time.monotonic() - started
        assert hung == [room_id]
        assert not reply.ok and reply.code == "ROOM_UNAVAILABLE", reply
        assert took < TIMEOUT_S + 1.5, took
        assert [e.seq for e in await real_load(room_id)] == list(range(before))  # nothing written

        done = await mover.act(discard, action_id="cold-room")  # the client's retry
        assert done.first_seq == before and not done.duplicate
        assert sum(e.kind == "move_made" for e in await real_load(room_id)) == 1


async def test_a_room_read_on_a_hanging_store_is_refused_unavailable_within_the_timeout(
        broker, tmp_path: Path, unique: str) -> None:
    """The gateway reads a room not in its cache from the store (GetRoom, Watch, a seat's
    token check): on a hanging store that read is bounded by the same timeout and refused
    UNAVAILABLE with a retry hint; once the store answers the same call succeeds."""
    async with a_room(broker, tmp_path, unique, TIMEOUT_S) as (server, stub, ready):
        room_id, before = ready[0], ready[5]
        real_load, hung = hang_first_load(server.store, room_id)
        server.repo.forget(room_id)
        started = time.monotonic()
        code, detail = await refusal(stub.GetRoom(pb.GetRoomRequest(room_id=room_id), timeout=10))
        took = time.monotonic() - started
        assert hung == [room_id]
        assert code == grpc.StatusCode.UNAVAILABLE and name(detail) == "ROOM_UNAVAILABLE", detail
        assert int(detail.params["retry_after_ms"]) > 0 and took < TIMEOUT_S + 1.5, took
        assert (await stub.GetRoom(pb.GetRoomRequest(room_id=room_id))).room.next_seq == before


async def test_a_room_read_while_postgresql_is_down_is_unavailable_not_internal(
        broker, unique: str) -> None:
    """PostgreSQL killed: reading a room not in the cache fails in the driver (connection
    refused or broken). The client hears UNAVAILABLE with a retry hint, as for an Act,
    not INTERNAL; after the restart the same call succeeds."""
    from hand_infra.postgres import TempPostgres, create_database

    from .room_support import create_room

    with TempPostgres() as pg:
        store_url = await create_database(pg.url, "events")
        await make_topics(broker, topics_for(unique))
        server = await start_instance(broker, unique, store_url, HAND_ROOM_STORE_TIMEOUT_S=str(TIMEOUT_S))
        channel = grpc.aio.insecure_channel(server.target)
        try:
            stub = pb_grpc.RoomServiceStub(channel)
            created, _ = await create_room(stub, "hand", seats=2)
            room_id = created.room.room_id
            server.repo.forget(room_id)
            pg.kill()
            started = time.monotonic()
            code, detail = await refusal(stub.GetRoom(pb.GetRoomRequest(room_id=room_id), timeout=10))
            took = time.monotonic() - started
            assert code == grpc.StatusCode.UNAVAILABLE and name(detail) == "ROOM_UNAVAILABLE", detail
            assert int(detail.params["retry_after_ms"]) > 0 and took < TIMEOUT_S + 1.5, took
            await asyncio.get_running_loop().run_in_executor(None, pg.restart)
            got = None
            for _ in range(50):  # the pool's broken connections are replaced on the next tries
                try:
                    got = await stub.GetRoom(pb.GetRoomRequest(room_id=room_id), timeout=10)
                    break
                except grpc.aio.AioRpcError as exc:
                    assert exc.code() == grpc.StatusCode.UNAVAILABLE, exc
                    await asyncio.sleep(0.2)
            assert got is not None and got.room.room_id == room_id
        finally:
            await channel.close()
            await server.stop(grace=0)


async def test_an_act_on_a_frozen_postgresql_is_refused_within_the_store_timeout(broker, unique: str) -> None:
    """PostgreSQL frozen (SIGSTOP: connections open, nothing answers) while a move is
    appended: the owner gives the batch up after the store timeout and refuses it
    UNAVAILABLE then — the abandoned transaction's connection is not waited on (a ROLLBACK
    on it hangs as the statement did, up to ``HAND_DB_TIMEOUT_S``: 6.0 s before
    2026-12-07); once the server runs again the client's retry stores the move once."""
    from hand_infra.postgres import TempPostgres, create_database

    with TempPostgres() as pg:
        store_url = await create_database(pg.url, "events")
        await make_topics(broker, topics_for(unique))
        server = await start_instance(broker, unique, store_url, HAND_ROOM_STORE_TIMEOUT_S="1")
        channel = grpc.aio.insecure_channel(server.target)
        try:
            stub = pb_grpc.RoomServiceStub(channel)
            room_id, w, mover, seat_w, discard, before = await a_move_ready(stub)
            pg.freeze()
            try:
                started = time.monotonic()
                code, detail = await refusal(asyncio.wait_for(mover.act(discard, action_id="frozen"), 20))
                took = time.monotonic() - started
            finally:
                pg.thaw()
            print(f"\nfrozen PostgreSQL: the Act refused after {took:.2f} s")
            assert code == grpc.StatusCode.UNAVAILABLE and name(detail) == "ROOM_UNAVAILABLE", detail
            assert took < 1.0 * (1 + MIN_SHARE) + 0.5, took
            done = None
            for _ in range(50):  # the pool replaces the connections it gave up
                try:
                    done = await mover.act(discard, action_id="frozen")
                    break
                except grpc.aio.AioRpcError as exc:
                    assert exc.code() == grpc.StatusCode.UNAVAILABLE, exc
                    await asyncio.sleep(0.2)
            assert done is not None and done.first_seq == before
            assert sum(e.kind == "move_made" for e in await server.store.load(room_id)) == 1
            await w.close()
            await seat_w.close()
        finally:
            await channel.close()
            await server.stop(grace=0)
