"""Fuzz every RPC of the rules, ledger and auth services on real servers (port 0): garbage
bytes, mutated messages and random / oversized field values, seeded. No call may end in
UNKNOWN, INTERNAL (or any other status that means the server did not handle it), every
refusal but RESOURCE_EXHAUSTED carries a RuleError, the servers still serve afterwards and
the ledger's store is unchanged (its RPCs only read).

``HAND_FUZZ_REQUESTS`` (default 240) requests per RPC, ``HAND_FUZZ_SEED`` (default 11);
``make fuzz`` runs many more. Add a service by appending a ``Target`` to ``TARGETS``: its
service descriptor and an async context manager ``start(tmp_path, request)`` (``request``:
the pytest ``FixtureRequest``, e.g. ``request.getfixturevalue("broker")`` for a server that
needs Kafka) that starts a server and yields ``(address, hints, check)``: ``hints`` maps
field names to values the server knows (a room id, a seat token, a real position) and
``check`` is an async callable run after the fuzzing (e.g. "the rooms the fuzzer holds no
token for are unchanged").
"""

from __future__ import annotations

import os
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from sqlalchemy import func, select

import hand_engine as engine
from hand.v1 import (
    auth_service_pb2, auth_service_pb2_grpc, ledger_service_pb2, options_pb2, rules_service_pb2,
)
import hand_wire as wire
from hand_auth.server import AuthServer
from hand_auth.settings import AuthConfig
from hand_ledger import _schema as ledger_schema
from hand_ledger.consumer import LedgerConsumer
from hand_ledger.server import LedgerServer
from hand_ledger.settings import LedgerConfig
from hand_rules.server import RulesServer
from hand_rules.settings import RulesConfig
from tests.integration.fuzz_support import Tally, fuzz_method
from hand_sim.matches import play_match, seat_token

REQUESTS = int(os.environ.get("HAND_FUZZ_REQUESTS", "240"))
SEED = int(os.environ.get("HAND_FUZZ_SEED", "11"))
NO_RATE_LIMIT = {"HAND_RATE_PLAYER_PER_S": "0", "HAND_RATE_PEER_PER_S": "0",
                 "HAND_STREAMS_PER_PEER": "0", "HAND_STREAMS_PER_PLAYER": "0"}
Started = tuple[str, Mapping[str, Sequence], Callable[[], Awaitable[None]]]


@dataclass(frozen=True)
class Target:
    name: str
    service: object  # a ServiceDescriptor
    start: Callable[[Path, pytest.FixtureRequest], AsyncIterator[Started]]


async def _nothing() -> None:
    return None


@asynccontextmanager
async def rules_server(tmp: Path, request: pytest.FixtureRequest) -> AsyncIterator[Started]:
    config = RulesConfig.from_env({"HAND_RULES_PORT": "0", "HAND_SHUTDOWN_GRACE_S": "0", **NO_RATE_LIMIT,
                                   "HAND_AUTH_DEV_KEY_FILE": str(tmp / "dev.key")})
    server = RulesServer(config.server, limits=config.limits, identity=config.identity)
    await server.start()
    try:
        yield server.target, _rules_hints(), _nothing
    finally:
        await server.stop(0)


def _rules_hints() -> dict[str, list]:
    """Real positions (fresh deals and a few random moves in), so fuzzed actions reach the engine."""
    rng = random.Random(SEED)
    states, selections = [], []
    for preset in sorted(engine.PRESETS)[:3]:
        selection = options_pb2.RuleSelection(preset=preset)
        options = wire.selection_from_proto(selection)
        state, _ = engine.start_round(options, 4, seed=rng.randrange(2**32))
        for _ in range(rng.randrange(12)):
            if state.result is None:
                state, _, _ = engine.random_step(state, rng)
        states.append(wire.state_to_proto(state))
        selections.append(selection)
    return {"preset": [*engine.PRESETS, "nope"], "state": states, "rules": selections,
            "seat": [0, 1, 2, 3], "seats": [2, 3, 4], "round_no": [1, 2]}


async def _ledger_counts(server: LedgerServer) -> dict[str, int]:
    async with server.store.read() as conn:
        return {t.name: await conn.scalar(select(func.count()).select_from(t))
                for t in ledger_schema.metadata.sorted_tables}


@asynccontextmanager
async def ledger_server(tmp: Path, request: pytest.FixtureRequest) -> AsyncIterator[Started]:
    # a fuzzed min_seq past the room's head waits its bound, then LEDGER_BEHIND: a short bound, the same path
    config = LedgerConfig.from_env({"HAND_LEDGER_PORT": "0", "HAND_SHUTDOWN_GRACE_S": "0", **NO_RATE_LIMIT,
                                    "HAND_LEDGER_MIN_SEQ_WAIT_S": "0.2",
                                    "HAND_AUTH_DEV_KEY_FILE": str(tmp / "dev.key"),
                                    "HAND_LEDGER_URL": f"sqlite:///{tmp / 'ledger.db'}"})
    over = await play_match("hand", 3, rounds=3, seed=5, room_id="over")
    running = await play_match("hand", 3, rounds=3, seed=21, room_id="running", stop_after=60)
    server = LedgerServer(config, None)
    await server.start()
    consumer = LedgerConsumer(server.store, None)
    for run in (over, running):
        await consumer.record(run.events)
    hints = {"room_id": ["over", "running"], "seat_token": [seat_token(0), seat_token(2)],
             "player_id": ["p0", "p1", "p2"], "page_token": ["", "AVMAAAAy"]}
    try:
        before = await _ledger_counts(server)

        async def unchanged() -> None:
            assert await _ledger_counts(server) == before

        yield server.target, hints, unchanged
    finally:
        await server.stop(0)


@asynccontextmanager
async def auth_server(tmp: Path, request: pytest.FixtureRequest) -> AsyncIterator[Started]:
    config = AuthConfig.from_env({"HAND_AUTH_PORT": "0", "HAND_SHUTDOWN_GRACE_S": "0", **NO_RATE_LIMIT,
                                  "HAND_AUTH_DEV_KEY_FILE": str(tmp / "dev.key"),
                                  "HAND_AUTH_URL": f"sqlite:///{tmp / 'auth.db'}"})
    server = AuthServer(config)
    await server.start()
    async with grpc.aio.insecure_channel(server.target) as channel:
        signed = await auth_service_pb2_grpc.AuthServiceStub(channel).SignInGuest(
            auth_service_pb2.SignInGuestRequest(device_id="fuzz-device-0000000001"))
    hints = {"device_id": ["fuzz-device-0000000001", "fuzz-device-0000000002"],
             "refresh_token": [signed.session.refresh_token],
             "authorization": [f"Bearer {signed.session.access_token}"]}
    try:
        yield server.target, hints, _nothing
    finally:
        await server.stop(0)


@asynccontextmanager
async def room_server(tmp: Path, request: pytest.FixtureRequest) -> AsyncIterator[Started]:
    """A room instance with a started match the fuzzer may act in (its host's token is a hint)
    and a second room it holds no token for: that one must not change at all."""
    from hand.v1 import room_service_pb2 as rpb
    from hand.v1 import room_service_pb2_grpc as rpb_grpc
    from tests.integration.room_support import create_room, join_all, make_topics, start_instance, topics_for

    broker = request.getfixturevalue("broker")
    unique = request.getfixturevalue("unique")
    await make_topics(broker, topics_for(unique))
    server = await start_instance(broker, unique, f"sqlite:///{tmp / 'events.db'}", **NO_RATE_LIMIT,
                                  HAND_AUTH_DEV_KEY_FILE=str(tmp / "dev.key"))
    channel = grpc.aio.insecure_channel(server.target)
    stub = rpb_grpc.RoomServiceStub(channel)
    created, players = await create_room(stub, "hand", seats=2, rounds=1, turn_seconds=600, public=True)
    await join_all(stub, created, players, 2)
    await stub.StartMatch(rpb.StartMatchRequest(room_id=created.room.room_id, seat_token=players[0].token, seed=3))
    victim, _ = await create_room(stub, "hand", seats=3, rounds=1)
    victim_id = victim.room.room_id
    before = (await stub.GetRoom(rpb.GetRoomRequest(room_id=victim_id))).room
    hints = {"room_id": [created.room.room_id, victim_id], "seat_token": [players[0].token, players[1].token],
             "join_code": [created.room.join_code], "action_id": ["a1", "a2"], "from_seq": [0, 3, 10**6]}

    async def untouched() -> None:
        after = (await stub.GetRoom(rpb.GetRoomRequest(room_id=victim_id))).room
        assert after.next_seq == before.next_seq and list(after.seats) == list(before.seats)

    try:
        yield server.target, hints, untouched
    finally:
        await channel.close()
        await server.stop(grace=0)


TARGETS = [
    Target("rules", rules_service_pb2.DESCRIPTOR.services_by_name["RulesService"], rules_server),
    Target("ledger", ledger_service_pb2.DESCRIPTOR.services_by_name["LedgerService"], ledger_server),
    Target("auth", auth_service_pb2.DESCRIPTOR.services_by_name["AuthService"], auth_server),
    Target("room", __import__("hand.v1.room_service_pb2", fromlist=["x"]).DESCRIPTOR.services_by_name[
        "RoomService"], room_server),
]


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.name)
async def test_no_request_ends_in_unknown_or_internal_and_the_server_keeps_serving(
        target: Target, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    tally = Tally()
    async with target.start(tmp_path, request) as (address, hints, check):
        async with grpc.aio.insecure_channel(address) as channel:
            for method in target.service.methods:
                rng = random.Random(f"{SEED}:{target.name}:{method.name}")
                await fuzz_method(channel, method, REQUESTS, rng, hints, tally)
            health = await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
            assert health.status == health_pb2.HealthCheckResponse.SERVING
        await check()
    print(f"\nfuzz {target.name} (seed {SEED}, {REQUESTS} per RPC):\n{tally.table()}")
    assert not tally.forbidden(), (tally.table(), tally.samples)
    assert not tally.bare, (dict(tally.bare), tally.samples)
    per_method = tally.per_method()
    assert set(per_method) == {m.name for m in target.service.methods}
    assert all(sum(codes.values()) == REQUESTS for codes in per_method.values())
