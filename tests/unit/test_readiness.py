"""``hand_common.readiness``: the service's name on grpc.health.v1 is SERVING only while every
check holds; a check that raises or hangs fails; liveness ("") is not its business."""

from __future__ import annotations

import asyncio

from grpc_health.v1 import health, health_pb2
from prometheus_client import REGISTRY

from hand_common.readiness import Readiness

SERVICE = "hand.v1.TestService"
SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


async def _status(servicer: health.aio.HealthServicer, service: str = SERVICE) -> int:
    return (await servicer.Check(health_pb2.HealthCheckRequest(service=service), None)).status


def _gauge(check: str) -> float | None:
    return REGISTRY.get_sample_value("hand_ready", {"service": SERVICE, "check": check})


async def test_ready_only_while_every_check_holds_and_it_follows_them() -> None:
    servicer = health.aio.HealthServicer()
    broker = {"up": True}

    async def store() -> bool:
        return True

    readiness = Readiness({"broker": lambda: broker["up"], "store": store}, interval_s=0.05)
    await readiness.start(servicer, SERVICE)
    try:
        assert readiness.ready and await _status(servicer) == SERVING
        assert _gauge("all") == 1 and _gauge("broker") == 1
        broker["up"] = False
        for _ in range(100):
            if await _status(servicer) == NOT_SERVING:
                break
            await asyncio.sleep(0.02)
        assert await _status(servicer) == NOT_SERVING
        assert readiness.failing == ["broker"] and _gauge("all") == 0 and _gauge("store") == 1
        broker["up"] = True
        for _ in range(100):
            if await _status(servicer) == SERVING:
                break
            await asyncio.sleep(0.02)
        assert await _status(servicer) == SERVING and readiness.failing == []
    finally:
        await readiness.stop()


async def test_a_check_that_raises_or_hangs_fails() -> None:
    servicer = health.aio.HealthServicer()

    def broken() -> bool:
        raise OSError("connection refused")

    async def hangs() -> bool:
        await asyncio.sleep(10)
        return True

    readiness = Readiness({"store": hangs, "broker": broken, "partitions": lambda: True}, timeout_s=0.05)
    assert await readiness.evaluate() is False  # not attached yet: evaluates, reports nowhere
    await readiness.start(servicer, SERVICE)
    try:
        assert await _status(servicer) == NOT_SERVING
        assert sorted(readiness.failing) == ["broker", "store"]
    finally:
        await readiness.stop()
