"""How late the event loop runs: the wait a command accepted now would have before any of
its work starts.

Past its capacity an instance's requests queue *before* its handlers run — in grpcio's
completion queue and in the loop's ready queue — where the in-process queue's bounds
(``admission.py``) do not see them: act→seen grew to seconds while that queue stayed
short. A ticker asks to be woken every ``TICK_S`` and records how much later it ran; the
lag is the mean lateness of the last ``WINDOW`` ticks (~0.5 s), so a saturated loop
(late on every tick) sheds load within a fraction of a second while one slow callback
or a GC pause does not (Netflix concurrency-limits and Google SRE's "Handling
Overload": measure the queueing you cannot bound, refuse what would wait past it).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import time

from .metrics import LOOP_LAG

TICK_S = 0.025
WINDOW = 20  # ticks: the lag is the mean lateness of about the last half second
#: the owner's ticker while no command asked for the lag in the last ``ASKED_WITHIN_S``: an
#: idle instance's 40 wake-ups a second were ~0.004 of a CPU, 13 % of what it burns idle
IDLE_TICK_S = 0.5
ASKED_WITHIN_S = 1.0


class LoopLag:
    def __init__(self, tick_s: float = TICK_S, window: int = WINDOW, idle_tick_s: float | None = None) -> None:
        """``idle_tick_s``: the tick while nobody asked for the lag in the last
        ``ASKED_WITHIN_S`` (None: always ``tick_s``). A loop nobody sends commands to has
        no queue to measure; the first ask brings the fast ticks back within one idle tick."""
        self.tick_s, self.idle_tick_s = tick_s, idle_tick_s
        self._asked = time.monotonic()
        self.ticks = 0
        self._late: collections.deque[float] = collections.deque([0.0] * window, maxlen=window)
        self._sum = 0.0
        self._task: asyncio.Task | None = None
        self._due = 0.0

    @property
    def seconds(self) -> float:
        """The lag now: how late, on average, the loop ran its recent timers (asked: the
        ticker keeps its fast tick)."""
        self._asked = time.monotonic()
        return self._mean()

    def _mean(self) -> float:
        return self._sum / len(self._late)

    def start(self) -> None:
        if self._task is None:
            self._due = time.monotonic() + self.tick_s
            self._task = asyncio.get_running_loop().create_task(self._tick(), name="loop-lag")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _tick(self) -> None:
        while True:
            now = time.monotonic()
            idle = self.idle_tick_s is not None and now - self._asked > ASKED_WITHIN_S
            tick = self.idle_tick_s if idle else self.tick_s
            self._due = now + tick
            await asyncio.sleep(tick)
            self.record(max(0.0, time.monotonic() - self._due))

    def record(self, late: float) -> None:
        """One tick ran ``late`` seconds after it was due."""
        self.ticks += 1
        self._sum += late - self._late[0]
        self._late.append(late)
        LOOP_LAG.set(self._mean())  # not an ask
