"""The embedded broker dies mid-match (SIGKILL: every topic, message, group and offset
gone) and ``make run``'s keeper starts it again on its port. The room service decides
the room in-process all along (it owns it), fails cross-instance commands fast while
the broker is away, reconnects and re-publishes its outbox after; the ledger
reconnects and completes what the broker lost from the event store. The match
finishes, and the store, every Watch stream and the ledger hold the same seqs. Readiness
(grpc.health.v1 under the service's name) is NOT_SERVING while the broker is away, liveness
("") SERVING throughout."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from hand.v1 import room_service_pb2 as pb
from hand.v1 import room_service_pb2_grpc as pb_grpc
from hand_infra.eventstore import EventStore
from hand_infra.settings import kafka_settings
from hand_ledger.server import LedgerServer
from hand_ledger.settings import LedgerConfig
from hand_table import Command, TurnTimeout, RoomError
from hand_room.server import RoomServer
from hand_run import Broker, Stack

from .chaos_support import assert_streams_and_ledger_agree
from .room_support import Watcher, create_room, join_all, play_to_end, room_config, seq_of, wait_for

pytestmark = pytest.mark.skipif(not kafka_settings().embedded, reason="kills the embedded broker")


SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


async def _health(target: str, service: str = "hand.v1.RoomService") -> tuple[int, int]:
    """(liveness, readiness) as grpc.health.v1 answers them."""
    async with grpc.aio.insecure_channel(target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        return tuple([(await stub.Check(health_pb2.HealthCheckRequest(service=name))).status
                      for name in ("", service)])


@pytest.mark.timeout(240)
async def test_a_match_goes_on_through_a_broker_restart_and_everything_agrees(tmp_path: Path, unique: str) -> None:
    stack = Stack()
    broker = Broker({"HAND_BROKER_PORT": "0", "HAND_KAFKA_PARTITIONS": "8"}, stack)
    await broker.start()
    store_url = f"sqlite:///{tmp_path / 'events.db'}"
    room = RoomServer(room_config(unique), stack.kafka, store_url)
    ledger = LedgerServer(LedgerConfig.from_env({
        "HAND_LEDGER_PORT": "0", "HAND_LEDGER_URL": f"sqlite:///{tmp_path / 'ledger.db'}",
        "HAND_LEDGER_GROUP": f"l-{unique}", "HAND_LEDGER_EVENTSTORE_URL": store_url,
        "HAND_LEDGER_REPAIR_AFTER_S": "1"}), stack.kafka)
    channel = None
    watchers: dict[int, Watcher] = {}
    try:
        await room.start()
        await ledger.start()
        await wait_for(lambda: len(room.owner.owned) == 8, 30)
        channel = grpc.aio.insecure_channel(room.target)
        stub = pb_grpc.RoomServiceStub(channel)
        created, players = await create_room(stub, "hand", seats=4, rounds=1)
        await join_all(stub, created, players, 4)
        room_id = created.room.room_id
        await stub.StartMatch(pb.StartMatchRequest(room_id=room_id, seat_token=players[0].token, seed=5))
        watchers = {p.seat: Watcher(stub, room_id, p.token) for p in players}
        match = asyncio.ensure_future(play_to_end(players, watchers, timeout=180))
        head = lambda: max((seq_of(w.latest) for w in watchers.values() if w.latest), default=-1)  # noqa: E731
        await wait_for(lambda: head() >= 30 or match.done(), 60)
        assert not match.done(), match

        # The broker dies; the keeper is held back a few seconds to make the outage visible.
        await broker.keeper.stop()
        broker.keeper.tansu._proc.kill()
        killed_at = time.monotonic()
        await wait_for(lambda: not room.watch.up and not ledger.watch.up, 5)
        # readiness follows the broker (hand_common.readiness); liveness does not
        await wait_for(lambda: room._served.readiness.ready is False and ledger._served.readiness.ready is False, 5)
        assert await _health(room.target) == (SERVING, NOT_SERVING)
        assert await _health(ledger.target, "hand.v1.LedgerService") == (SERVING, NOT_SERVING)
        assert "broker" in room._served.readiness.failing
        began = time.monotonic()
        with pytest.raises(RoomError) as refused:  # a command that needs the broker: refused at once
            await room.bus.send(Command(room_id, TurnTimeout(1, 1)))
        assert time.monotonic() - began < 0.5
        assert refused.value.code == "ROOM_UNAVAILABLE" and refused.value.params["retry_after_ms"] > 0
        at_kill = head()
        await wait_for(lambda: head() >= at_kill + 8 or match.done(), 30)  # moves go on, in-process
        assert not room.watch.up, "the outage ended before the keeper restarted the broker"

        await broker.keeper.start()  # make run's keeper: a new broker on the same port, with topics
        await wait_for(lambda: broker.keeper.restarts == 1, 30)
        await wait_for(lambda: room.watch.up and ledger.watch.up, 30)
        recovered_s = time.monotonic() - killed_at
        await wait_for(lambda: room._served.readiness.ready and ledger._served.readiness.ready, 30)
        assert await _health(room.target) == (SERVING, SERVING)
        await asyncio.wait_for(match, 180)

        events = EventStore(store_url)
        await events.start()
        stored = [e.seq for e in await events.load(room_id)]
        deadline = time.monotonic() + 30
        while await events.pending_outbox() and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert not await events.pending_outbox(), "the relay did not catch up"
        await events.close()
        assert stored == list(range(len(stored)))
        await assert_streams_and_ledger_agree(watchers, ledger, room_id, stored)
        print(f"broker outage: watch recovered {room.watch.last_outage_s} s after the broker went down; "
              f"kill→recovered {recovered_s:.2f} s (keeper held back); keeper restart took "
              f"{broker.keeper.last_restart_s} s; ledger repaired {ledger.consumer.repair.repaired} events")
    finally:
        for w in watchers.values():
            await w.close()
        if channel is not None:
            await channel.close()
        await ledger.stop()
        await room.stop(grace=0)
        await broker.stop()
