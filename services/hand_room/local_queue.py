"""The owner's in-process commands: those its own gateway, timers and presence submit
for rooms it owns. They wait here for the next pass of the owner's pipeline — the
group commit: commands arriving while a pass writes form the next one (one
transaction, one fsync) — and each caller awaits its own reply.

Bounded (``admission.py``): past ``max_pending`` commands or ``max_delay`` of the
oldest one's wait, a client's command is refused at once; a pass takes at most
``MAX_PASS`` commands, so it fits the store's time budget.
"""

from __future__ import annotations

import asyncio
import dataclasses
import collections
import time
from collections.abc import Awaitable, Callable

import structlog
from hand_table import Command, RoomCode, RoomError
from hand_wire import Reply

from .admission import Admission
from hand_common import tracing


log = structlog.get_logger("hand_room.owner")
#: in-process commands decided and appended in one pass (one transaction)
MAX_PASS = 256

Handle = Callable[[dict[str, list[Command]]], Awaitable[None]]
Refuse = Callable[[Command, Exception], Awaitable[None]]


class LocalQueue:
    def __init__(self, handle: Handle, refuse: Refuse, admission: Admission) -> None:
        self._handle, self._refuse, self.admission = handle, refuse, admission
        self._futures: dict[str, asyncio.Future] = {}  # command id → its caller's reply
        self._waiting: list[Command] = []
        self._enqueued: collections.deque[float] = collections.deque()  # when each was queued
        self._flusher: asyncio.Task | None = None
        self.commands = self.batches = 0

    def admit(self, body: object) -> None:
        """OVERLOADED for a client's command (its body) while the queue is past its bounds."""
        self.admission.check(body, len(self._waiting), self._enqueued[0] if self._enqueued else None)

    async def submit(self, cmd: Command) -> Reply:
        self.admit(cmd.body)
        if cmd.trace is None and tracing.enabled():  # the caller's trace goes on with its command
            cmd = dataclasses.replace(cmd, trace=tracing.current())
        fut = asyncio.get_running_loop().create_future()
        self._futures[cmd.command_id] = fut
        self._waiting.append(cmd)
        self._enqueued.append(time.monotonic())
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.ensure_future(self._flush())
        try:
            return await fut
        finally:
            self._futures.pop(cmd.command_id, None)

    def resolve(self, cmd: Command, reply: Reply) -> bool:
        """Hand ``reply`` to the in-process caller of ``cmd``; False if it has none."""
        fut = self._futures.get(cmd.command_id)
        if fut is None:
            return False
        if not fut.done():
            fut.set_result(reply)
        return True

    async def _flush(self) -> None:
        await asyncio.sleep(0)  # let the submits of this loop iteration join
        while self._waiting:
            batch, self._waiting = self._waiting[:MAX_PASS], self._waiting[MAX_PASS:]
            for _ in batch:
                self._enqueued.popleft()
            by_room: dict[str, list[Command]] = {}
            for cmd in batch:
                by_room.setdefault(cmd.room_id, []).append(cmd)
            self.commands += len(batch)
            self.batches += 1
            try:
                await self._handle(by_room)
            except Exception as exc:  # never leave a caller waiting
                log.error("local_batch_failed", error=type(exc).__name__, commands=len(batch))
                for cmd in batch:
                    await self._refuse(cmd, RoomError(RoomCode.INTERNAL, "internal error"))
