"""The tournaments' background work on every ledger replica (decision 0029): every ``tick_s``,

- the **scheduler**: each open tournament whose start time has come is started (bots fill the empty
  seats). The schedule is the ``start_at`` column of the store, not a timer in memory: a ledger that
  restarts, or any other replica, finds it there; the start is one conditional write
  (``status = open`` in its ``WHERE``), so with several replicas it happens exactly once;
- each running tournament's tables whose last deal is over get the next deal (a table's deal room is
  claimed by inserting its row: one replica makes it).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable

import structlog

from .tournament_store import OPEN, RUNNING
from .tournament_tables import Tables, start

log = structlog.get_logger("hand_ledger.tournaments")


class Driver:
    """Every ``tick_s``: due tournaments started, and each running table's next deal opened."""

    def __init__(self, tables: Tables, tick_s: float = 0.5, clock: Callable[[], float] = time.time) -> None:
        self.tables, self.tick_s, self.clock = tables, tick_s, clock
        self._task: asyncio.Task | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="tournament-driver")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        while True:
            try:
                await self.step()
            except Exception:  # a room service or database hiccup: the next tick tries again
                log.warning("tournament_driver_failed", exc_info=True)
            await asyncio.sleep(self.tick_s)

    async def step(self) -> int:
        """One pass; the number of tournaments started and deals opened."""
        return await self.start_due() + await self.next_deals()

    async def start_due(self) -> int:
        """Start every open tournament whose start time has come; how many this replica started."""
        started = 0
        for tournament_id in await self.tables.store.due(self.clock()):
            t = await self.tables.store.load(tournament_id)
            if t is not None and t.status == OPEN and await start(self.tables, t, by="schedule"):
                started += 1
        return started

    async def next_deals(self) -> int:
        started = 0
        for tournament_id in await self.tables.store.running():
            t = await self.tables.store.load(tournament_id)
            if t is None or t.status != RUNNING:
                continue
            for table in range(1, t.tables + 1):
                mine = [r for r in t.rooms if r.table == table]
                if not mine:  # the start's own attempt failed: try again
                    started += await self.tables.open_deal(t, table, 1)
                elif mine[-1].over and mine[-1].deal < t.deals:
                    started += await self.tables.open_deal(t, table, mine[-1].deal + 1)
        return started
