"""An instance that gains a room's partition decides on the room as stored, never on a copy
it cached while another instance owned the room.

Found by ``bench/bench_failover_load.py --event join`` (a third instance added while 600
rooms played): for the ~1 s an instance spent loading the rooms of its new partitions,
its command path decided on copies cached earlier (a seat's call served there, a Watch,
a GetRoom) that were many moves behind, and refused valid moves ``MATCH_NOT_STARTED`` /
``NOT_YOUR_TURN`` (50–133 per run; 18–20 rooms stopped). Two instances on the in-memory
broker; b's loading of its new partition is held open while a seat acts through b.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import grpc
import pytest

from hand.v1 import room_service_pb2_grpc as pb_grpc
from hand_sim.rooms import memory_rooms
from hand_room.partitions import partition_of

from .room_support import Watcher, seq_of, started_room, wait_for

pytestmark = pytest.mark.timeout(120)
PARTITIONS = 8


async def _move(players, watcher: Watcher, via: pb_grpc.RoomServiceStub | None = None) -> int:
    """The seat to move plays its first candidate move that is accepted (through ``via`` if
    given); the accepted move's last seq."""
    await wait_for(lambda: watcher.latest is not None and watcher.latest.HasField("view"))
    view = watcher.latest.view
    player = next(p for p in players if p.seat == view.turn.seat)
    stub, player.stub = player.stub, via or player.stub
    refused = []
    try:
        for action in player.plan(view) + player.choose(view):
            try:
                return (await player.act(action)).last_seq
            except grpc.aio.AioRpcError as exc:
                if exc.code() != grpc.StatusCode.FAILED_PRECONDITION:
                    raise
                refused.append(exc.details())
        raise AssertionError(f"every candidate move refused: {refused}")
    finally:
        player.stub = stub


@contextlib.asynccontextmanager
async def _two_instances(tmp_path: Path):
    """Two instances on the in-memory broker and one SQLite store: (a, b, a's stub, b's stub)."""
    async with memory_rooms(2, f"sqlite:///{tmp_path / 'events.db'}", partitions=PARTITIONS) as rooms:
        a, b = rooms.servers
        async with grpc.aio.insecure_channel(a.target) as ch_a, grpc.aio.insecure_channel(b.target) as ch_b:
            yield a, b, pb_grpc.RoomServiceStub(ch_a), pb_grpc.RoomServiceStub(ch_b)


async def test_a_gained_room_is_decided_as_stored_not_as_cached_before(tmp_path: Path) -> None:
    async with _two_instances(tmp_path) as (a, b, stub_a, stub_b):
        watcher = None
        real_active = b.owner.index.active
        try:
            room_id, players = await started_room(stub_a)
            part = partition_of(room_id, PARTITIONS)
            assert part in a.owner.owned and part not in b.owner.owned
            watcher = Watcher(stub_a, room_id, players[0].token)
            await wait_for(lambda: watcher.latest is not None and watcher.latest.HasField("view"))

            # b caches the room as it is now (as a seat's call, a Watch or a GetRoom served by b does)
            early = await b.owner.repo.get(room_id)
            assert early is not None and b.owner.repo.cached(room_id) is not None
            for _ in range(3):  # the match goes on at a: b's copy falls behind
                last = await _move(players, watcher)
                await wait_for(lambda: seq_of(watcher.latest) >= last)
            assert b.owner.repo.cached(room_id).seq < last + 1

            # b gains the room's partition; its loading of the partition's rooms is held open
            loading, release = asyncio.Event(), asyncio.Event()

            async def held_active():
                loading.set()
                await release.wait()
                return await real_active()

            b.owner.index.active = held_active
            assign = asyncio.create_task(b.owner._assign({part}))
            await asyncio.wait_for(loading.wait(), 10)
            assert b.owner.owns(room_id)

            # a seat's move through b now: decided by b on the room as stored
            seq = await _move(players, watcher, via=stub_b)
            assert seq > last  # accepted, after a's moves

            release.set()
            await assign
        finally:
            b.owner.index.active = real_active
            if watcher is not None:
                await watcher.close()


async def test_a_partition_dealt_back_keeps_its_rooms_and_reads_only_what_another_owner_wrote(tmp_path: Path) -> None:
    """Each rebalance revokes every partition first (the eager protocol) and most come back
    to the same instance: their rooms stay cached, in doubt, and are read from their tail —
    until 2026-12-07 every room of the instance was folded again from its whole log after
    any rebalance (a join, a stop, a crash of another instance). A room another instance
    owned meanwhile is decided on as stored, its moves included."""
    async with _two_instances(tmp_path) as (a, b, stub_a, stub_b):
        watcher = None
        try:
            room_id, players = await started_room(stub_a)
            part = partition_of(room_id, PARTITIONS)
            assert part in a.owner.owned
            watcher = Watcher(stub_a, room_id, players[0].token)
            last = await _move(players, watcher)
            await wait_for(lambda: seq_of(watcher.latest) >= last)
            folds = a.owner.repo.loads

            a.owner._revoke({part})  # a rebalance that deals the partition back to a
            await a.owner._assign({part})
            last = await _move(players, watcher)
            await wait_for(lambda: seq_of(watcher.latest) >= last)
            assert a.owner.repo.loads == folds, "a room of a partition dealt back was folded again"

            a.owner._revoke({part})  # b owns it for a while (a generation a took no part in) ...
            await b.owner._assign({part})
            last = await _move(players, watcher, via=stub_b)
            await wait_for(lambda: seq_of(watcher.latest) >= last)
            b.owner._revoke({part})  # ... then a again (its copy in doubt: read from its tail)
            await a.owner._assign({part})
            seq = await _move(players, watcher, via=stub_a)
            assert seq > last  # decided on the room as stored, b's move included
            assert a.owner.repo.loads == folds  # read from its tail, not folded
        finally:
            if watcher is not None:
                await watcher.close()
