"""A read-only ledger server over gRPC whose store holds every scenario (the ``ledger``
fixture), call metadata with a player's session, and a refused call's code and detail."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace

import grpc
import pytest
from grpc_status import rpc_status

from hand.v1 import errors_pb2
from hand.v1 import ledger_service_pb2_grpc as pb_grpc
from hand_auth.tokens import Signer
from hand_common.config import IdentityConfig
from hand_common.sessionkeys import private_key
from hand_common.status import from_status
from hand_ledger.consumer import LedgerConsumer
from hand_ledger.server import LedgerServer
from hand_ledger.settings import LedgerConfig
from hand_sim.matches import play_match

def signed_in(player_id: str) -> tuple[tuple[str, str], ...]:
    """Call metadata with a session of ``player_id`` (the development key's)."""
    token, _ = Signer(private_key(IdentityConfig()), "hand-auth", 600).sign(player_id)
    return (("authorization", f"Bearer {token}"),)


@pytest.fixture
async def ledger(tmp_path: Path, scenario_runs) -> AsyncIterator[SimpleNamespace]:
    """A read-only ledger server whose store holds every scenario, plus one match cut
    off in the middle of its first round (``running``)."""
    config = LedgerConfig.from_env({"HAND_LEDGER_PORT": "0", "HAND_SHUTDOWN_GRACE_S": "0",
                                    "HAND_LEDGER_URL": f"sqlite:///{tmp_path / 'ledger.db'}"})
    server = LedgerServer(config, None)
    await server.start()
    running = await play_match("hand", 3, rounds=3, seed=21, room_id="running", stop_after=60)
    consumer = LedgerConsumer(server.store, None)
    for run in [*scenario_runs.values(), running]:
        await consumer.record(run.events)
    channel = grpc.aio.insecure_channel(server.target)
    try:
        yield SimpleNamespace(stub=pb_grpc.LedgerServiceStub(channel), server=server, channel=channel,
                              runs=scenario_runs, running=running)
    finally:
        await channel.close()
        await server.stop(0)


async def refused(call) -> tuple[grpc.StatusCode, str, str]:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await call
    detail = from_status(rpc_status.from_call(info.value))
    return info.value.code(), errors_pb2.ErrorCode.Name(detail.code), info.value.details()
