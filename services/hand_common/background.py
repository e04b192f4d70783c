"""The tasks a component starts and does not await: held until they end, ended with it.

asyncio holds a task only weakly: one that nobody holds may be collected while it runs. And
a component that stops while its tasks still run leaves them using what is closed next — a
turn timer's bot request or a re-arm's read still on a pooled store connection when the
store closes; that connection comes back to a disposed pool and is collected unclosed (a
CI run, 2026-12-07, failed on a database ``Connection`` collected unclosed while an instance
stopped: this is the way to it found, not the run's own trace). ``Background.spawn``
holds each task until it ends and logs an error it ended with (asyncio would only say so
when collecting it); ``stop`` cancels those left and waits for them, bounded."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable

import structlog

__all__ = ["Background"]

log = structlog.get_logger("hand_common.background")


class Background:
    """A component's fire-and-forget tasks (``name``: the component, in logs)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._tasks: set[asyncio.Future] = set()

    def __len__(self) -> int:
        return len(self._tasks)

    def spawn(self, aw: Awaitable[object]) -> asyncio.Future:
        """Run ``aw`` as a task of its own, held until it ends."""
        task = asyncio.ensure_future(aw)
        self._tasks.add(task)
        task.add_done_callback(self._ended)
        return task

    def _ended(self, task: asyncio.Future) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and (exc := task.exception()) is not None:
            log.error("background_task_failed", component=self.name, error=repr(exc))

    async def stop(self, within_s: float = 5.0) -> None:
        """Cancel the tasks still running and wait for them, at most ``within_s`` s (a
        task that will not end is left, and said so)."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if not tasks:
            return
        _, pending = await asyncio.wait(tasks, timeout=within_s)
        if pending:
            log.warning("background_tasks_left", component=self.name, tasks=len(pending))
