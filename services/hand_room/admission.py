"""Admission: past its capacity an instance refuses new commands at once, before any
work, instead of queueing them until every caller times out (Google SRE, "Handling
Overload"; Netflix concurrency-limits). Refusing costs a comparison; the queue of
in-process commands is bounded by length and by time, so what is accepted is
served within a bounded delay and the instance keeps its goodput at capacity.

Only clients' commands are refused (OVERLOADED: RESOURCE_EXHAUSTED with
``retry_after_ms``; the client retries with the same action id). Timers, bot
answers and presence are the room's own work and are never shed.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from hand_table import (
    Act, ComeBack, CreateRoom, FillWithBots, JoinRoom, LeaveRoom, RemovePlayer, StartMatch, RoomCode, RoomError,
)
from .metrics import OVERLOAD_REFUSALS

#: commands a client sends (the others are the room's own: timers, bots, presence)
CLIENT_COMMANDS = (Act, ComeBack, CreateRoom, JoinRoom, LeaveRoom, FillWithBots, RemovePlayer, StartMatch)


class Admission:
    """Bounds from ``HAND_ROOM_MAX_PENDING`` and ``HAND_ROOM_MAX_QUEUE_DELAY_MS`` (RoomConfig).
    ``lag``: how late the event loop runs (``loop_lag.LoopLag.seconds``; the owner plugs
    its own in when none is given); past ``max_lag_s`` (``HAND_ROOM_MAX_LOOP_LAG_MS``, 0:
    off) a client's command is refused too — it would wait that long before any of its
    work, in queues the pending count does not see (grpcio's, the loop's). A bound of its
    own, well above a busy host's jitter: shedding on a noisy neighbour's stall would turn
    away work the instance can serve."""

    def __init__(self, max_pending: int, max_delay_s: float, lag: Callable[[], float] | None = None,
                 max_lag_s: float = 0.0) -> None:
        self.max_pending, self.max_delay_s, self.lag, self.max_lag_s = max_pending, max_delay_s, lag, max_lag_s
        self.refused = 0

    def check(self, body: object, pending: int, oldest_enqueued: float | None) -> None:
        """Raise OVERLOADED for a client's command (its ``body``) when ``pending`` commands
        wait or the oldest of them has waited past the bound."""
        if not isinstance(body, CLIENT_COMMANDS):
            return
        delay = time.monotonic() - oldest_enqueued if oldest_enqueued is not None else 0.0
        lag = self.lag() if self.lag is not None and self.max_lag_s > 0 else 0.0
        if pending < self.max_pending and delay < self.max_delay_s and (self.max_lag_s <= 0 or lag < self.max_lag_s):
            return
        self.refused += 1
        limit = ("pending_commands" if pending >= self.max_pending else "queue_delay"
                 if delay >= self.max_delay_s else "loop_lag")
        OVERLOAD_REFUSALS.labels("queue" if limit != "loop_lag" else "loop_lag").inc()
        # spread the retries: a fixed hint brings every refused client back at once
        retry_ms = int(max(100.0, 2000 * max(delay, lag)) * random.uniform(1.0, 2.0))
        raise RoomError(RoomCode.OVERLOADED, "the instance is at capacity", limit=limit,
                        retry_after_ms=min(retry_ms, 5000))
