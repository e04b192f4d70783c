"""Read your writes at the ledger: GetScoreSheet / GetMatchResult with min_seq wait, bounded,
until the room is recorded up to that seq (decision 0023), instead of answering with a sheet
that has not caught up (issue 26: "2 rounds" on the final sheet of a 3-round match)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import grpc
import pytest

from hand.v1 import ledger_service_pb2 as pb
from hand.v1 import ledger_service_pb2_grpc as pb_grpc
from hand_ledger.consumer import LedgerConsumer
from hand_ledger.server import LedgerServer
from hand_ledger.settings import LedgerConfig
from hand_sim.matches import play_match
from tests.integration.ledger_service_support import refused

pytestmark = pytest.mark.asyncio


async def _ledger(tmp_path: Path, wait_s: str) -> LedgerServer:
    config = LedgerConfig.from_env({"HAND_LEDGER_PORT": "0", "HAND_SHUTDOWN_GRACE_S": "0",
                                    "HAND_LEDGER_MIN_SEQ_WAIT_S": wait_s,
                                    "HAND_LEDGER_URL": f"sqlite:///{tmp_path / 'ledger.db'}"})
    server = LedgerServer(config, None)
    await server.start()
    return server


async def test_a_read_with_min_seq_waits_for_the_last_round_and_a_read_without_does_not(tmp_path: Path) -> None:
    server = await _ledger(tmp_path, "5")
    run = await play_match("hand", 2, rounds=3, seed=4, room_id="m3", max_turns=12)
    events = run.events
    last_round = max(i for i, e in enumerate(events) if e.kind == "round_scored")
    consumer = LedgerConsumer(server.store, None)
    await consumer.record(events[:last_round])  # the ledger is behind: two rounds scored
    channel = grpc.aio.insecure_channel(server.target)
    stub = pb_grpc.LedgerServiceStub(channel)
    try:
        now = await stub.GetScoreSheet(pb.GetScoreSheetRequest(room_id="m3"))
        assert len(now.sheet.rounds) == 2  # eventually consistent: what it has
        last = len(events) - 1
        began = time.monotonic()
        waiting = asyncio.ensure_future(stub.GetScoreSheet(pb.GetScoreSheetRequest(room_id="m3", min_seq=last)))
        result = asyncio.ensure_future(stub.GetMatchResult(pb.GetMatchResultRequest(room_id="m3", min_seq=last)))
        await asyncio.sleep(0.3)
        assert not waiting.done() and not result.done()
        await consumer.record(events[last_round:])
        sheet, outcome = (await waiting).sheet, (await result).result
        took = time.monotonic() - began
        assert len(sheet.rounds) == 3 and outcome.over and outcome.winners
        assert took < 1.5, took  # woken by the ingest, not by the end of the wait
        # already there: answered at once
        at_once = time.monotonic()
        await stub.GetScoreSheet(pb.GetScoreSheetRequest(room_id="m3", min_seq=0))
        assert time.monotonic() - at_once < 0.5
    finally:
        await channel.close()
        await server.stop(0)


async def test_a_seq_the_ledger_does_not_reach_in_time_is_refused_retryable(tmp_path: Path) -> None:
    server = await _ledger(tmp_path, "0.4")
    run = await play_match("hand", 2, rounds=1, seed=4, room_id="m1", max_turns=6)
    await LedgerConsumer(server.store, None).record(run.events)
    channel = grpc.aio.insecure_channel(server.target)
    stub = pb_grpc.LedgerServiceStub(channel)
    try:
        began = time.monotonic()
        code, error, message = await refused(stub.GetMatchResult(
            pb.GetMatchResultRequest(room_id="m1", min_seq=len(run.events) + 10), metadata=(("accept-language", "en"),)))
        took = time.monotonic() - began
        assert (code, error) == (grpc.StatusCode.UNAVAILABLE, "ERROR_CODE_LEDGER_BEHIND")
        assert f"holds {len(run.events)} events" in message
        assert 0.35 <= took < 1.5, took
        # a room it has never seen is behind too (its events may be on their way), not NOT_FOUND
        code, error, _ = await refused(stub.GetScoreSheet(pb.GetScoreSheetRequest(room_id="nowhere", min_seq=0)))
        assert (code, error) == (grpc.StatusCode.UNAVAILABLE, "ERROR_CODE_LEDGER_BEHIND")
    finally:
        await channel.close()
        await server.stop(0)
