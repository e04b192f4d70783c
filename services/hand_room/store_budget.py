"""One batch's time on the event store: its reads and its append share one budget.

``HAND_ROOM_STORE_TIMEOUT_S`` bounds how long the owner waits on the store
for a batch (the rooms not in the cache, then the append) before it refuses the
batch's commands UNAVAILABLE: a crashed database's connections may hang
instead of failing, and a player's client must hear back fast enough to
retry. Each call gets what the earlier ones left.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")


class StoreBudget:
    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.left = seconds
        self._clock = clock

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
