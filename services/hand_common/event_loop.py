"""The event loop a service process runs on (``HAND_EVENT_LOOP``): uvloop by default.

Each service's ``__main__`` runs its coroutine through :func:`run`. uvloop (libuv) runs
the same asyncio code with less CPU per loop iteration and per callback; grpcio's asyncio
stack and aiokafka run on it unchanged (grpcio hands its completions to whichever loop
runs). Measured on the room service (docs/decisions/0038-uvloop.md): 15–18 % more actions
per second flat out on the same CPU and a lower p99; at human pace inside the noise.
``HAND_EVENT_LOOP=asyncio`` runs the standard library's loop instead. Tests run their
services in-process on pytest's loop; the processes they start (``python -m hand_run``,
``python -m hand_room``) run on the configured one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

from . import gc_policy

__all__ = ["run"]

T = TypeVar("T")


def run(main: Coroutine[Any, Any, T], kind: str = "uvloop", gc_sweep_s: float = 0.0) -> T:
    """Run ``main`` to its end on a new loop of ``kind`` (``LogConfig.event_loop``), the
    garbage collector set up by ``gc_policy.install(gc_sweep_s)`` (``LogConfig.gc_sweep_s``)
    and its sweeps kept on time beside ``main``."""
    policy = gc_policy.install(gc_sweep_s)
    if policy is not None:
        main = _with_sweeps(main, policy)
    if kind == "uvloop":
        import uvloop

        return uvloop.run(main)
    return asyncio.run(main)


async def _with_sweeps(main: Coroutine[Any, Any, T], policy: gc_policy.FreezeSurvivors) -> T:
    sweeps = asyncio.ensure_future(gc_policy.sweep_when_due(policy))
    try:
        return await main
    finally:
        sweeps.cancel()
