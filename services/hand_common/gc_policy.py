"""How a long-running service process uses Python's cycle collector (``HAND_GC_SWEEP_S``).

CPython's full (oldest-generation) collection walks every tracked object the process
holds, however old. A room instance holds every room in play (3,000 rooms: several
million objects), so each full collection stopped its loop for 0.5–1.4 s, about every
5 s at twice its capacity — every call in flight waited for it (docs/room-service.md,
"Collector pauses"). Almost nothing that survives one full collection is garbage at
the next: the rooms' state is freed by reference counting when a room leaves memory.

So, as Instagram's services do with ``gc.freeze()`` (CPython's documented use for it):
what start-up built is frozen — moved to the permanent generation, never walked again
— and so is whatever a collection of generation 1 or 2 leaves alive (what would go on
to the oldest generation), so a full collection has next to nothing to walk: one that
walked what came since the last (the first version of this policy) still took 50–100 ms
every few seconds with 1,600 rooms at 800 act/s, and each such stall overflowed the
gRPC backlog (docs/decisions/0041-gc-freeze.md). Frozen objects are still freed by
reference counting; only garbage *cycles* among them would wait. For those, every
``sweep_s`` seconds the permanent generation is thawed just before a full collection,
which then walks everything once (one long pause per sweep); since full collections
now seldom come by themselves, :func:`sweep_when_due` starts one when a sweep is due
(``hand_common.event_loop.run`` runs it beside a service's main coroutine).
``sweep_s`` 0: the interpreter's default collector, nothing frozen. Each collection's
pause is measured (``hand_process_gc_pause_seconds{generation}``, docs/operations.md).
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Callable
from typing import Any

from .metrics import FAST_BUCKETS, histogram

__all__ = ["FreezeSurvivors", "GC_PAUSE", "install", "sweep_when_due"]

GC_PAUSE = histogram("hand_process_gc_pause_seconds",
                     "One garbage collection of this process (its loop stands still meanwhile)",
                     ["generation"], buckets=FAST_BUCKETS)


class FreezeSurvivors:
    """The ``gc.callbacks`` entry: freeze after every collection of generation 1 or 2, thaw
    before the first full collection past each ``sweep_s``."""

    def __init__(self, sweep_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.sweep_s, self.clock = sweep_s, clock
        self.swept_at = clock()
        self.full = self.sweeps = 0
        self._began = 0.0
        self._pause = {g: GC_PAUSE.labels(str(g)) for g in range(3)}

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        generation = info.get("generation")
        if phase == "start":
            self._began = time.perf_counter()
        elif generation in self._pause:
            self._pause[generation].observe(time.perf_counter() - self._began)
        if generation == 2 and phase == "start":
            if self.due():
                gc.unfreeze()  # this collection walks everything once
                self.swept_at = self.clock()
                self.sweeps += 1
        elif generation in (1, 2) and phase == "stop":
            self.full += generation == 2
            gc.freeze()  # what it left alive is not walked again until the sweep

    def due(self) -> bool:
        """A sweep is due: the next full collection walks everything."""
        return self.clock() - self.swept_at >= self.sweep_s


async def sweep_when_due(policy: FreezeSurvivors, check_s: float = 10.0) -> None:
    """Run until cancelled: every ``check_s`` (at most ``sweep_s``), a full collection when
    a sweep is due — with survivors frozen, the interpreter seldom starts one itself, and
    a frozen garbage cycle would otherwise wait for good."""
    while True:
        await asyncio.sleep(min(check_s, policy.sweep_s))
        if policy.due():
            gc.collect()


def install(sweep_s: float) -> FreezeSurvivors | None:
    """Freeze what start-up built and every full collection's survivors (see the module
    doc); None (the default collector) when ``sweep_s`` is 0."""
    if sweep_s <= 0:
        return None
    policy = FreezeSurvivors(sweep_s)
    gc.collect()
    gc.freeze()
    gc.callbacks.append(policy)
    return policy
