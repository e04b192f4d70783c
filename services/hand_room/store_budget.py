"""One batch's time on the event store: its reads and its append share one budget.

``HAND_ROOM_STORE_TIMEOUT_S`` bounds how long the owner waits on the store
for a batch (the rooms not in the cache, then the append) before it refuses the
batch's commands UNAVAILABLE: a crashed database's connections may hang
instead of failing, and a player's client must hear back fast enough to
retry. Each call gets what the earlier ones left.

The timeout counts from when the pass's oldest command arrived
(:meth:`StoreBudget.since`): passes run one at a time, so a command that
arrived while an earlier pass waited on a stuck store waited that long already.
Until 2026-12-07 every pass had the whole timeout, so such a command was refused
after up to twice it (a frozen SQLite writer: 1.04–2.20 s with a 1 s timeout,
and past 2.5 s on a loaded 2-CPU CI machine). A pass still gets at least
``MIN_SHARE`` of the timeout: a store that just came back is tried, not skipped.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")
#: the least share of the store timeout a pass gets, however long its commands waited
MIN_SHARE = 0.25


class StoreBudget:
    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.left = seconds
        self._clock = clock

    @classmethod
    def since(cls, received: float, timeout_s: float,
              clock: Callable[[], float] = time.monotonic) -> "StoreBudget":
        """The budget of a pass whose oldest command arrived at ``received`` (``clock``'s
        time): what is left of ``timeout_s`` from then, at least ``MIN_SHARE`` of it."""
        return cls(max(MIN_SHARE * timeout_s, received + timeout_s - clock()), clock)

    async def call(self, aw: Awaitable[T]) -> T:
        """``aw``'s result; TimeoutError once the budget is spent (then ``aw`` is not run)."""
        if self.left <= 0:
            if asyncio.iscoroutine(aw):
                aw.close()
            raise TimeoutError("the batch's store budget is spent")
        began = self._clock()
        try:
            async with asyncio.timeout(self.left):  # no task of its own, unlike wait_for
                return await aw
        finally:
            self.left -= self._clock() - began
