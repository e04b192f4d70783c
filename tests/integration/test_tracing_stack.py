"""One trace per command across the stack (issue: operators follow one move): a client's call
(the gRPC edge's SERVER span) → the owner's commit of that command (``room.commit``, its share of
the batch's store append) → the records the owner publishes (the trace in their headers) → the
ledger's archiving of them (``ledger.archive``, a CONSUMER span) — for every command of a batch,
not only the first. Real room and ledger servers, a real broker (Tansu) and SQLite; the spans go
to an in-memory exporter."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from hand.v1 import room_service_pb2 as pb
from hand.v1 import room_service_pb2_grpc as pb_grpc
from hand_common import tracing
from hand_infra.settings import KafkaSettings
from hand_ledger.server import LedgerServer
from hand_ledger.settings import LedgerConfig
from hand_room.server import RoomServer

from .room_support import create_room, join_all, room_config


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    assert tracing.configure_tracing("hand_test", {}, exporter=exporter, install_global=False)
    try:
        yield exporter
    finally:
        tracing.disable_tracing()


@pytest.mark.timeout(120)
async def test_every_command_of_a_batch_is_one_trace_from_the_call_to_the_ledger(
        spans: InMemorySpanExporter, broker: KafkaSettings, unique: str, tmp_path: Path) -> None:
    store_url = f"sqlite:///{tmp_path / 'events.db'}"
    room = RoomServer(room_config(unique), broker, store_url)
    ledger = LedgerServer(LedgerConfig.from_env({
        "HAND_LEDGER_PORT": "0", "HAND_SHUTDOWN_GRACE_S": "0", "HAND_LEDGER_GROUP": f"l-{unique}",
        "HAND_LEDGER_URL": f"sqlite:///{tmp_path / 'ledger.db'}"}), broker)
    await room.start()
    await ledger.start()
    try:
        async with grpc.aio.insecure_channel(room.target) as channel:
            stub = pb_grpc.RoomServiceStub(channel)
            rooms = []
            for _ in range(3):
                created, players = await create_room(stub, "hand", seats=2)
                await join_all(stub, created, players, 2)
                rooms.append((created.room.room_id, players[0].token))
            spans.clear()
            # three commands at once: the owner commits them in one pass (its group commit)
            await asyncio.gather(*(stub.StartMatch(pb.StartMatchRequest(room_id=r, seat_token=t, seed=3))
                                   for r, t in rooms))
        calls = [s for s in spans.get_finished_spans() if s.name.endswith("RoomService/StartMatch")]
        assert len(calls) == 3
        wanted = {c.context.trace_id for c in calls}

        def traced(name: str) -> set[int]:
            return {s.context.trace_id for s in spans.get_finished_spans() if s.name == name}

        deadline = time.monotonic() + 60
        while not wanted <= traced("ledger.archive") and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        assert wanted <= traced("room.commit"), "each command's trace shows its commit"
        assert wanted <= traced("ledger.archive"), "each command's trace reaches the ledger"
        finished = spans.get_finished_spans()
        for call in calls:
            mine = [s for s in finished if s.context.trace_id == call.context.trace_id]
            commit = next(s for s in mine if s.name == "room.commit")
            assert commit.parent is not None and commit.parent.span_id == call.context.span_id
            archive = next(s for s in mine if s.name == "ledger.archive")
            assert archive.kind.name == "CONSUMER"
            assert archive.start_time >= commit.end_time
        appends = [s for s in finished if s.name == "room.append"]
        assert appends and max(s.attributes["commands"] for s in appends) >= 1
    finally:
        await ledger.stop()
        await room.stop(grace=0)
