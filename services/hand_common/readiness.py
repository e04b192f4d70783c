"""``Readiness``: an instance is ready to take traffic when what it needs answers.

``grpc.health.v1`` carries two answers on each server (``ServedService``):

- ``""`` — **liveness**: SERVING while the process serves at all (restart it when not);
- the service's full name (``hand.v1.RoomService`` …) — **readiness**: SERVING only while
  every check holds, re-evaluated every ``interval_s``. A room instance checks that it
  holds its share of the owners' group (``partitions``: it is not between a revocation and
  its next assignment), that the broker answers (``broker``) and that its store answers a
  trivial query within the store timeout (``store``); the ledger its broker, store and
  group; the bot service its broker; the auth service its store; the rules service has
  nothing to wait for.

A check is a callable returning a bool (or an awaitable of one); one that raises or takes
longer than ``timeout_s`` fails. Transitions are logged (``ready`` / ``not_ready`` with the
failing checks); ``hand_ready{service, check}`` is 1 while a check holds (``check="all"``: ready).
Kubernetes probes readiness with ``grpc: {port, service: <full name>}`` and liveness
without a service (deploy/k8s)."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import Awaitable, Callable, Mapping

import structlog
from grpc_health.v1 import health, health_pb2

from .metrics import gauge

Check = Callable[[], "bool | Awaitable[bool]"]
SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING
READY = gauge("hand_ready", "1 while the readiness check holds (check=all: the service is ready)", ["service", "check"])
log = structlog.get_logger("hand_common.readiness")


class Readiness:
    """The readiness of one served service (see the module doc)."""

    def __init__(self, checks: Mapping[str, Check], *, interval_s: float = 1.0, timeout_s: float = 2.0) -> None:
        self.checks = dict(checks)
        self.interval_s, self.timeout_s = interval_s, timeout_s
        self.ready: bool | None = None  # unknown until the first evaluation
        self.failing: list[str] = []
        self._task: asyncio.Task | None = None
        self._health: health.aio.HealthServicer | None = None
        self._service = ""

    async def _holds(self, check: Check) -> bool:
        try:
            result = check()
            if inspect.isawaitable(result):
                result = await asyncio.wait_for(result, self.timeout_s)
            return bool(result)
        except Exception:  # a check that fails to answer is a check that fails
            return False

    async def evaluate(self) -> bool:
        """Run every check once; report the result on the health service."""
        results = dict(zip(self.checks, await asyncio.gather(*(self._holds(c) for c in self.checks.values()))))
        failing = [name for name, ok in results.items() if not ok]
        for name, ok in results.items():
            READY.labels(self._service, name).set(1 if ok else 0)
        ready = not failing
        READY.labels(self._service, "all").set(1 if ready else 0)
        if ready != self.ready or failing != self.failing:
            if ready:
                log.info("ready", service=self._service)
            else:
                log.warning("not_ready", service=self._service, failing=failing)
        self.ready, self.failing = ready, failing
        if self._health is not None:
            await self._health.set(self._service, SERVING if ready else NOT_SERVING)
        return ready

    async def start(self, servicer: health.aio.HealthServicer, service: str) -> None:
        """Report on ``servicer`` under ``service``: now, then every ``interval_s``."""
        self._health, self._service = servicer, service
        await self.evaluate()
        self._task = asyncio.create_task(self._run(), name=f"readiness-{service}")

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.interval_s)
            await self.evaluate()

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
