"""Two room instances in one owners' group, one broker, one store: a room's Act and
Watch meet at its owner; a non-owner sends the caller there (ROOM_MOVED) and,
for a call that already followed a redirect, serves it correctly; presence is
counted across instances (issue 24's multi-instance defects)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
import pytest
from aiokafka import AIOKafkaConsumer
from prometheus_client import REGISTRY

from hand.v1 import actions_pb2, errors_pb2, room_events_pb2
from hand.v1 import room_service_pb2 as pb
from hand.v1 import room_service_pb2_grpc as pb_grpc
from hand_infra.eventstore import EventStore
from hand_table import SeatAway, SeatBack, SeatConnected
from hand_wire import decode
from hand_room.partitions import partition_of

from .room_support import (
    Player, Watcher, a_move_ready, create_room, make_topics, moved_to, rule_error_of, seq_of, start_instance,
    started_room, topics_for, wait_for,
)

REDIRECTED = (("hand-redirected", "1"),)
pytestmark = pytest.mark.timeout(120)


class Pair:
    """Instances a and b, both holding partitions, and a stub to each."""

    def __init__(self, a, b) -> None:
        self.a, self.b = a, b
        self.channels = [grpc.aio.insecure_channel(s.target) for s in (a, b)]
        self.stub_a, self.stub_b = (pb_grpc.RoomServiceStub(c) for c in self.channels)

    async def close(self) -> None:
        for ch in self.channels:
            await ch.close()
        for s in (self.a, self.b):
            await s.stop(0)


@pytest.fixture
async def pair(broker, tmp_path: Path, unique: str):
    await make_topics(broker, topics_for(unique), partitions=8)
    url = f"sqlite:///{tmp_path / 'events.db'}"
    a = await start_instance(broker, unique, url)
    b = await start_instance(broker, unique, url)
    await wait_for(lambda: a.owner.owned and b.owner.owned and len(a.owner.owned | b.owner.owned) == 8
                   and a.instance.ownership.owner_of("x") is not None
                   and b.instance.ownership.owner_of("x") is not None, 60)
    p = Pair(a, b)
    try:
        yield p
    finally:
        await p.close()


async def _events(store_url: str, room_id: str) -> list:
    store = EventStore(store_url)
    await store.start()
    try:
        return [decode(e.payload).event for e in await store.load(room_id)]
    finally:
        await store.close()


async def test_a_room_is_created_where_it_is_asked_and_act_and_watch_elsewhere_are_sent_there(pair) -> None:
    created, players = await create_room(pair.stub_b, "hand", seats=2)
    room_id = created.room.room_id
    assert partition_of(room_id, 8) in pair.b.owner.owned, "CreateRoom picks a room its instance owns"
    assert created.room.owner.address == pair.b.target
    assert created.room.owner.instance_id == pair.b.instance_id
    info = (await pair.stub_a.GetRoom(pb.GetRoomRequest(room_id=room_id))).room
    assert info.owner.address == pair.b.target, "any instance names the owner"

    host = players[0]
    redirected = REGISTRY.get_sample_value("hand_room_commands_total", {"kind": "redirect", "path": "redirected"}) or 0
    with pytest.raises(grpc.aio.AioRpcError) as moved:
        await pair.stub_a.Act(pb.ActRequest(room_id=room_id, seat_token=host.token, action_id="a1",
                                            action=actions_pb2.Action(draw_stock=actions_pb2.DrawStock())))
    assert moved.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    detail = rule_error_of(moved.value)
    assert detail.code == errors_pb2.ERROR_CODE_ROOM_MOVED
    assert detail.params["owner_address"] == pair.b.target
    assert detail.params["owner_instance"] == pair.b.instance_id
    assert REGISTRY.get_sample_value("hand_room_commands_total",
                                     {"kind": "redirect", "path": "redirected"}) == redirected + 1

    w = Watcher(pair.stub_a, room_id, host.token)
    await wait_for(lambda: w.error is not None, 10)
    assert moved_to(w.error) == pair.b.target
    await w.close()


async def test_a_seat_token_is_honoured_by_a_non_owner_that_streams_the_room(pair, tmp_path: Path) -> None:
    """Issue 24: a room owned by b, the host's Watch on a, the joiner joins through a:
    every Act of the joiner sent to a was refused SEAT_TOKEN_INVALID (a's feed folded
    the room from topic events, without token hashes, over its cached room)."""
    created, players = await create_room(pair.stub_b, "hand", seats=2)
    room_id, host = created.room.room_id, players[0]
    host_watch = Watcher(pair.stub_a, room_id, host.token, metadata=REDIRECTED)
    await wait_for(lambda: host_watch.messages, 10)
    joined = await pair.stub_a.JoinRoom(pb.JoinRoomRequest(join_code=created.room.join_code,
                                                           player_name="p1", player_id="p1"))
    joiner = Player(pair.stub_a, room_id, joined.seat_token, joined.seat, host.options, metadata=REDIRECTED)
    joiner_watch = Watcher(pair.stub_a, room_id, joiner.token, metadata=REDIRECTED)
    await pair.stub_a.StartMatch(pb.StartMatchRequest(room_id=room_id, seat_token=host.token, seed=5),
                                 metadata=REDIRECTED)
    await wait_for(lambda: any(m.HasField("view") and m.view.HasField("turn") for m in joiner_watch.messages)
                   and joiner_watch.latest.room.next_seq > 4, 20)
    for i in range(3):  # whatever the rules say of the move, never that the token is not valid
        try:
            await joiner.act(actions_pb2.Action(draw_stock=actions_pb2.DrawStock()), action_id=f"j{i}")
        except grpc.aio.AioRpcError as exc:
            assert exc.code() != grpc.StatusCode.PERMISSION_DENIED, rule_error_of(exc)
        await asyncio.sleep(0.2)
    await host_watch.close()
    await joiner_watch.close()


async def test_a_second_stream_through_another_instance_keeps_the_seat_and_opens_append_once(
        pair, tmp_path: Path) -> None:
    """Issue 24: a seat watching on a opens a second Watch on b, then the stream on a
    closes: after the grace the owner marked the seat away and a bot played for it
    while its stream on b was open. And each Watch open of a seat appended an event (200 opens: 187 events)."""
    created, players = await create_room(pair.stub_b, "hand", seats=2)
    room_id, host = created.room.room_id, players[0]
    joined = await pair.stub_b.JoinRoom(pb.JoinRoomRequest(join_code=created.room.join_code,
                                                           player_name="p1", player_id="p1"))
    await pair.stub_b.StartMatch(pb.StartMatchRequest(room_id=room_id, seat_token=host.token, seed=3))
    on_owner = Watcher(pair.stub_b, room_id, joined.seat_token)
    on_other = Watcher(pair.stub_a, room_id, joined.seat_token, metadata=REDIRECTED)
    more = [Watcher(pair.stub_b, room_id, joined.seat_token) for _ in range(10)]
    await wait_for(lambda: on_owner.messages and on_other.messages and all(w.messages for w in more), 20)
    for w in more:
        await w.close()
    await on_owner.close()
    await asyncio.sleep(2.5)  # the grace is 1 s in tests
    url = f"sqlite:///{tmp_path / 'events.db'}"
    events = await _events(url, room_id)
    seat = joined.seat
    assert not [e for e in events if isinstance(e, SeatAway) and e.seat == seat], "a connected seat went away"
    connected = [e for e in events if isinstance(e, (SeatConnected, SeatBack)) and e.seat == seat]
    assert len(connected) == 1, f"12 streams of one seat appended {len(connected)} presence events"

    await on_other.close()  # no stream anywhere now: away after the grace

    async def away() -> bool:
        return any(isinstance(e, SeatAway) and e.seat == seat for e in await _events(url, room_id))

    for _ in range(60):
        if await away():
            break
        await asyncio.sleep(0.1)
    assert await away(), "a seat with no stream anywhere was never marked away"


async def test_a_move_the_topic_never_brings_reaches_a_non_owners_stream_from_the_store(pair) -> None:
    """The chaos test's stall: events published while a non-owner's consumer was away (the
    broker restarted empty, a partition followed from its end) never come from the topic, and
    its streams waited for the room's next event to see the gap. After the bus reconnects (as
    on the broker's recovery) the feeds catch up from the store, with no further move."""
    room_id, w, mover, seat_w, discard, head = await a_move_ready(pair.stub_b)  # owned by b
    on_a = Watcher(pair.stub_a, room_id, mover.token, metadata=REDIRECTED)
    await wait_for(lambda: on_a.latest is not None and on_a.latest.room.next_seq == head, 10)
    await wait_for(lambda: partition_of(room_id, 8) in pair.a.instance.bus._following, 10)  # a reads it
    await asyncio.sleep(0.5)  # and has caught up once
    feeds = pair.a.instance.feeds
    feeds.offer = lambda *args, **kwargs: None  # the topic loses what b publishes now
    await mover.act(discard)
    await wait_for(lambda: seq_of(w.latest) >= head, 10)
    await asyncio.sleep(1.0)  # a's consumer has had the move and dropped it
    del feeds.offer
    assert on_a.latest.room.next_seq == head
    await pair.a.instance.bus.reconnect()
    await wait_for(lambda: on_a.latest.room.next_seq > head, 10)
    assert [seq_of(m) for m in on_a.messages if m.HasField("event")][-1] == seq_of(w.latest)
    await on_a.close()


async def test_a_late_commit_of_a_previous_owner_reaches_the_new_owners_streams(pair, tmp_path: Path) -> None:
    """The chaos test's second stall: after the broker's restart the room moved to the instance
    holding its streams, and the old owner, not yet told, committed one more move. The new owner
    reads the room (with that move) from the store, but no topic brings the move to its own
    streams (an owner's feed takes its own commits only): the streams stayed a move behind and
    every Act made from them was refused NOT_YOUR_TURN, for good. Now a feed behind the room the
    owner holds catches up with the store."""
    import time

    from hand_table import Act, Command, decide
    from hand_wire import action_from_proto, encode
    from hand_room.rules_port import LocalRules

    room_id, w, mover, seat_w, discard, head = await a_move_ready(pair.stub_b)  # owned by b, streams on b
    repo = pair.b.instance.repo
    room = await repo.get(room_id)
    d = await decide(room, Command(room_id, Act(action_from_proto(discard)), seat=mover.seat), time.time(),
                     LocalRules())
    async with EventStore(f"sqlite:///{tmp_path / 'events.db'}") as store:  # the old owner's late commit
        await store.append_batch([(room_id, room.seq, [(e.kind, encode(e)) for e in d.events], None)])
    repo.forget(room_id)  # the room came to b: its owner reads it from the store
    await asyncio.sleep(0.5)
    assert seq_of(seat_w.latest) < head  # the streams have not seen it
    with pytest.raises(grpc.aio.AioRpcError):  # a move made from the stale view
        await mover.act(discard)
    await wait_for(lambda: seq_of(seat_w.latest) >= head and seq_of(w.latest) >= head, 10)


async def test_a_forwarded_act_is_answered_though_the_replies_partition_sat_paused(pair) -> None:
    """a fetches its replies partition only while a reply is awaited (hand_room/bus.py): idle,
    the partition is paused; an Act that already followed a redirect is sent by a through the
    broker to b, answered (the move is made once) and the partition is paused again."""
    room_id, w, mover, seat_w, discard, head = await a_move_ready(pair.stub_b)  # owned by b
    bus = pair.a.instance.bus

    def paused() -> bool:
        consumer = bus._replies.consumer if bus._replies is not None else None
        return consumer is not None and bus._replies_tp in consumer.paused()

    await wait_for(paused, 10)
    via_a = Player(pair.stub_a, room_id, mover.token, mover.seat, mover.options, metadata=REDIRECTED)
    answer = await asyncio.wait_for(via_a.act(discard, action_id="fwd-1"), 10)
    assert answer.first_seq == head and not answer.duplicate
    again = await via_a.act(discard, action_id="fwd-1")  # retried: the same move, not a second one
    assert again.duplicate and again.first_seq == head
    await wait_for(lambda: seq_of(w.latest) >= answer.last_seq, 10)
    await wait_for(paused, 10)
    await w.close()
    await seat_w.close()


async def test_each_event_reaches_the_topic_once_though_both_instances_relay_one_outbox(pair, broker, unique) -> None:
    """Both instances publish their own rows straight after the commit and poll the shared
    outbox twice a second. Before, each instance's pass sent again the other's rows it had not
    yet marked: most events of a room reached hand.room-events twice."""
    rooms = []
    for stub in (pair.stub_a, pair.stub_b, pair.stub_a, pair.stub_b):
        rooms.append((await started_room(stub))[0])
    await asyncio.sleep(2.0)  # four polling passes of each instance
    stored = {}
    for room_id in rooms:
        stored[room_id] = [e.seq for e in await pair.a.store.load(room_id)]
    want = sum(map(len, stored.values()))
    consumer = AIOKafkaConsumer(topics_for(unique)["events"], **broker.consumer_kwargs(f"g-{unique}-once"))
    await consumer.start()
    seen: list[tuple[str, int]] = []
    try:
        deadline = asyncio.get_running_loop().time() + 20
        quiet_from = None
        while asyncio.get_running_loop().time() < deadline:
            got = [(ev.room_id, ev.seq) for records in (await consumer.getmany(timeout_ms=200)).values()
                   for ev in (room_events_pb2.RoomEvent.FromString(r.value) for r in records)]
            seen += [k for k in got if k[0] in stored]
            if len(seen) >= want:
                quiet_from = quiet_from or asyncio.get_running_loop().time()
                if asyncio.get_running_loop().time() - quiet_from > 1.0:  # late copies would be here by now
                    break
    finally:
        await consumer.stop()
    assert sorted(seen) == sorted((room_id, seq) for room_id, seqs in stored.items() for seq in seqs)
