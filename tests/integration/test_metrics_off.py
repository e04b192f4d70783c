"""``HAND_METRICS_ENABLED=off``: every instrument of every service is one shared no-op, nothing is
registered or counted, no ``/metrics`` endpoint is served whatever the port variables say — and the
services still work (a whole bot match through ``make run``'s launcher). With it on (the default,
this test process) the instruments are prometheus-client's and the other metrics tests hold.

The switch is read once per process, when ``hand_common.metrics`` is first imported, so the off
cases run in child processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import prometheus_client
import pytest

from hand_common import metrics
from hand_common.env import ConfigError
from hand_run.process import LocalStack

from .room_support import bots_play_a_match

ROOT = Path(__file__).resolve().parents[2]
MODULES = ("hand_common.rpc_metrics", "hand_common.readiness", "hand_room.metrics", "hand_infra.kafka_metrics",
           "hand_ledger.metrics", "hand_bot.metrics", "hand_auth.metrics")

CHILD = """
import asyncio, importlib, json, sys
import grpc, prometheus_client
from prometheus_client import REGISTRY
from hand_common import metrics
modules = [importlib.import_module(name) for name in sys.argv[1].split(",")]
out = {"enabled": metrics.enabled(), "nulls": sorted(f"{m.__name__}.{k}" for m in modules
                                                   for k, v in vars(m).items() if v is metrics.NULL_METRIC),
       "real": sorted(f"{m.__name__}.{k}" for m in modules for k, v in vars(m).items()
                      if isinstance(v, prometheus_client.metrics.MetricWrapperBase))}

# every call the services make on an instrument, on every one of them
from hand_room import metrics as room
from hand_infra import kafka_metrics as kafka
room.COMMANDS.labels("Act", "local").inc()
room.ACT_TO_COMMIT.labels("local").observe(0.01)
room.WATCH_STREAMS.labels("seat").inc(); room.WATCH_STREAMS.labels("seat").dec()
room.ROOMS_LIVE.set(3); room.STORE_APPEND.observe(0.002); room.BATCH_SIZE.observe(4)
kafka.CONSUMER_LAG.remove("g", "t", "0")
with room.STORE_APPEND.time():
    pass
kafka.count_rebalance("g", "revoked", ())

async def rpcs():
    from hand.v1 import rules_service_pb2 as pb, rules_service_pb2_grpc as pb_grpc
    from hand_rules.server import RulesServer
    from hand_rules.settings import RulesConfig
    server = RulesServer(RulesConfig.from_env({"HAND_RULES_PORT": "0"}).server)
    await server.start()
    try:
        async with grpc.aio.insecure_channel(server.target) as channel:
            stub = pb_grpc.RulesServiceStub(channel)
            echoed = [(await stub.Echo(pb.EchoRequest(payload=b"x"))).payload for _ in range(3)]
            try:
                await stub.ApplyAction(pb.ApplyActionRequest())
                refused = None
            except grpc.aio.AioRpcError as error:
                refused = error.code().name
    finally:
        await server.stop(0)
    return echoed, refused

echoed, refused = asyncio.run(rpcs())
out["echoed"] = [e.decode() for e in echoed]
out["refused"] = refused
out["hand_samples"] = sorted({s.name for f in REGISTRY.collect() for s in f.samples if s.name.startswith("hand_")})
out["endpoint"] = repr(metrics.serve_metrics("HAND_ROOM_METRICS_PORT", {"HAND_ROOM_METRICS_PORT": "0"}))
print(json.dumps(out))
"""


def _child(enabled: str) -> dict:
    env = {**os.environ, "HAND_METRICS_ENABLED": enabled, "HAND_LOG_LEVEL": "warning",
           "PYTHONPATH": os.pathsep.join([str(ROOT / "services"), str(ROOT / "gen")])}
    done = subprocess.run([sys.executable, "-c", CHILD, ",".join(MODULES)], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.timeout(180)
def test_off_every_instrument_is_the_shared_no_op_and_nothing_is_counted_or_served() -> None:
    on, off = _child("on"), _child("off")
    assert on["enabled"] and not on["nulls"] and on["real"]
    # the same instruments, each one the no-op while off; none of prometheus-client's left
    assert not off["enabled"] and off["nulls"] == on["real"] and not off["real"]
    assert on["echoed"] == off["echoed"] == ["x"] * 3  # the service works either way
    assert on["refused"] == off["refused"] == "INVALID_ARGUMENT"
    assert "hand_rpc_server_requests_total" in on["hand_samples"] and "hand_room_commands_total" in on["hand_samples"]
    assert off["hand_samples"] == []  # nothing registered, nothing counted
    assert on["endpoint"].startswith("MetricsEndpoint(") and off["endpoint"] == "None"


def test_this_process_has_them_on_by_default() -> None:
    assert metrics.enabled()
    from hand_room import metrics as room
    assert isinstance(room.COMMANDS, prometheus_client.Counter)
    assert isinstance(room.ACT_TO_COMMIT, prometheus_client.Histogram)


def test_off_in_a_service_environment_serves_no_endpoint_and_a_bad_value_does_not_start() -> None:
    assert metrics.metrics_port("HAND_ROOM_METRICS_PORT", {"HAND_ROOM_METRICS_PORT": "0"}) == 0
    assert metrics.metrics_port("HAND_ROOM_METRICS_PORT", {"HAND_ROOM_METRICS_PORT": "0",
                                                           "HAND_METRICS_ENABLED": "off"}) is None
    assert metrics.serve_metrics("HAND_ROOM_METRICS_PORT", {"HAND_ROOM_METRICS_PORT": "0",
                                                            "HAND_METRICS_ENABLED": "OFF"}) is None
    with pytest.raises(ConfigError, match="HAND_METRICS_ENABLED"):
        metrics.metrics_port("HAND_ROOM_METRICS_PORT", {"HAND_METRICS_ENABLED": "maybe"})


@pytest.mark.timeout(300)
async def test_off_the_whole_stack_plays_a_bot_match_with_no_metrics_endpoint(tmp_path: Path) -> None:
    with LocalStack(tmp_path, env={"HAND_METRICS_ENABLED": "off", "HAND_RUN_METRICS_PORT": "0"}) as stack:
        assert stack.targets.get("metrics", "off") == "off"
        room_id, kinds = await bots_play_a_match(stack, tmp_path / "events.db")
        assert kinds.count("move_made") > 20 and kinds.count("match_ended") == 1
