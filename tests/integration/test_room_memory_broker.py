"""Room-service instances built whole by ``bootstrap`` on the in-memory broker
(``hand_infra.memory_broker``) and the SQLite store: no broker process. Rooms are played
through a real gRPC server on a port — create, join, start, act, watch — on one instance,
and on two whose owners' group hands a room over when its owner stops (the fake group's
rebalance): every accepted move is stored once, the log has no gap, and every event
reaches the events topic."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest

from hand.v1 import room_service_pb2 as pb
from hand.v1 import room_service_pb2_grpc as pb_grpc
from hand_infra.eventstore import EventStore
from hand_sim.rooms import MemoryRooms, memory_rooms
from hand_table import MoveMade
from hand_wire import decode
from hand_room.partitions import partition_of

from .room_support import Watcher, bots_finish_a_match, play_to_end, seq_of, started_room, wait_for

pytestmark = pytest.mark.timeout(180)
PARTITIONS = 8


async def _stored(url: str, room_id: str) -> list:
    store = EventStore(url)
    await store.start()
    try:
        return [decode(e.payload) for e in await store.load(room_id)]
    finally:
        await store.close()


def _published(rooms: MemoryRooms, room_id: str) -> set[int]:
    """The seqs of ``room_id`` on the events topic (at least once each: a set)."""
    return {decode(r.value).seq for r in rooms.broker.records(rooms.topics["events"]) if r.key == room_id.encode()}


def _gapless(watcher: Watcher) -> None:
    """A stream's events follow its snapshot one seq at a time: nothing lost, nothing twice."""
    seqs = [seq_of(m) for m in watcher.messages]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), seqs


async def test_one_instance_on_the_memory_broker_plays_a_match_to_its_end(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'events.db'}"
    async with memory_rooms(1, url, partitions=PARTITIONS) as rooms:
        await _one(rooms, url)


async def _one(rooms: MemoryRooms, url: str) -> None:
    server = rooms.servers[0]
    channel = grpc.aio.insecure_channel(server.target)
    watchers: dict[int, Watcher] = {}
    try:
        assert server.instance.broker is rooms.broker and len(server.owner.owned) == PARTITIONS
        stub = pb_grpc.RoomServiceStub(channel)
        room_id, players = await started_room(stub)
        watchers = {p.seat: Watcher(stub, room_id, p.token) for p in players}
        moves = await play_to_end(players, watchers)
        assert moves > 0
        events = await _stored(url, room_id)
        assert [r.seq for r in events] == list(range(len(events)))
        assert sum(isinstance(r.event, MoveMade) and r.event.origin == "player" for r in events) == moves
        await wait_for(lambda: _published(rooms, room_id) == set(range(len(events))), 10)
        for w in watchers.values():
            _gapless(w)
        assert server.router.sent_local > 0 and server.router.sent_remote == 0  # its own rooms: in-process
    finally:
        for w in watchers.values():
            await w.close()
        await channel.close()


async def test_two_instances_hand_a_room_over_when_its_owner_stops(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'events.db'}"
    async with memory_rooms(2, url, partitions=PARTITIONS) as rooms:
        await _two(rooms, url)


async def _two(rooms: MemoryRooms, url: str) -> None:
    a, b = rooms.servers
    channels = [grpc.aio.insecure_channel(s.target) for s in (a, b)]
    stub_a, stub_b = (pb_grpc.RoomServiceStub(c) for c in channels)
    watchers: dict[int, Watcher] = {}
    try:
        assert a.owner.owned and b.owner.owned  # memory_rooms waited for the group to settle
        room_id, players = await started_room(stub_a)
        assert partition_of(room_id, PARTITIONS) in a.owner.owned
        assert b.instance.ownership.owner_of(room_id).instance_id == a.instance_id  # the group's map, on b too

        # a few moves on a, the owner
        watchers = {p.seat: Watcher(stub_a, room_id, p.token) for p in players}
        played = 0
        for _ in range(4):
            await wait_for(lambda: all(w.latest is not None and w.latest.HasField("view") for w in watchers.values()))
            mover = watchers[0].latest.view.turn.seat
            seat_w = watchers[mover]
            await wait_for(lambda: seq_of(seat_w.latest) >= max(seq_of(w.latest) for w in watchers.values()))
            player = next(p for p in players if p.seat == mover)
            reply = None
            for action in player.plan(seat_w.latest.view) + player.choose(seat_w.latest.view):
                try:
                    reply = await player.act(action)
                    break
                except grpc.aio.AioRpcError as exc:
                    assert exc.code() == grpc.StatusCode.FAILED_PRECONDITION, exc
            assert reply is not None
            played += 1
            await wait_for(lambda: all(seq_of(w.latest) >= reply.last_seq for w in watchers.values()))
        first = [list(w.messages) for w in watchers.values()]
        for w in watchers.values():
            await w.close()

        # a stops: it leaves the owners' group, whose rebalance deals b every partition
        await rooms.stop(a)
        await wait_for(lambda: len(b.owner.owned) == PARTITIONS and b.owner.in_group, 15)
        assert b.instance.ownership.owner_of(room_id).instance_id == b.instance_id

        # the match goes on through b, from the streams' last seq, to its end
        last = min(seq_of(msgs[-1]) for msgs in first)
        for p in players:
            p.stub = stub_b
        watchers = {p.seat: Watcher(stub_b, room_id, p.token, from_seq=last + 1) for p in players}
        played += await play_to_end(players, watchers)
        assert played > 4

        events = await _stored(url, room_id)
        assert [r.seq for r in events] == list(range(len(events))), "no gap, no fork"
        assert sum(isinstance(r.event, MoveMade) and r.event.origin == "player" for r in events) == played
        await wait_for(lambda: _published(rooms, room_id) == set(range(len(events))), 10)
        for w in watchers.values():
            _gapless(w)
        assert rooms.broker.groups[rooms.group_id].generation >= 3  # a joined, b joined, a left
    finally:
        for w in watchers.values():
            await w.close()
        for c in channels:
            await c.close()


async def test_a_broker_restart_that_loses_everything_is_recovered_and_the_match_goes_on(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'events.db'}"
    async with memory_rooms(1, url, partitions=PARTITIONS) as rooms:
        server = rooms.servers[0]
        async with grpc.aio.insecure_channel(server.target) as channel:
            stub = pb_grpc.RoomServiceStub(channel)
            room_id, players = await started_room(stub)
            rooms.broker.outage(lose=True)  # the embedded broker restarted: no topic, record or group
            await wait_for(lambda: not server.watch.up, 5)
            rooms.broker.restore()
            await wait_for(lambda: server.watch.up and server.watch.epoch == 1 and server.owner.in_group
                           and len(server.owner.owned) == PARTITIONS, 15)
            assert set(rooms.topics.values()) <= await rooms.broker.list_topics()  # re-created by the watch
            before = (await stub.GetRoom(pb.GetRoomRequest(room_id=room_id))).room.next_seq
            watchers = {p.seat: Watcher(stub, room_id, p.token) for p in players}
            try:
                moves = await play_to_end(players, watchers)
                for w in watchers.values():
                    _gapless(w)
            finally:
                for w in watchers.values():
                    await w.close()
        events = await _stored(url, room_id)
        assert [r.seq for r in events] == list(range(len(events)))
        assert sum(isinstance(r.event, MoveMade) and r.event.origin == "player" for r in events) == moves
        await wait_for(lambda: _published(rooms, room_id) >= set(range(before, len(events))), 10)  # since it


async def test_bots_on_the_memory_broker_play_a_match_of_their_own(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'events.db'}"
    async with memory_rooms(2, url, partitions=PARTITIONS) as rooms:
        await rooms.start_bots()
        async with grpc.aio.insecure_channel(rooms.servers[1].target) as channel:
            room_id = await bots_finish_a_match(pb_grpc.RoomServiceStub(channel), 60, level=1)
        events = await _stored(url, room_id)
        assert [r.seq for r in events] == list(range(len(events)))
        assert rooms.bots.decided > 0 and type(events[-1].event).__name__ == "MatchEnded"
