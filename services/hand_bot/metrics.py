"""The bot service's metrics (docs/operations.md).

- ``hand_bot_decision_seconds{level}``: time to choose a turn's moves, by bot level;
- ``hand_bot_requests_waiting``: requests fetched from ``hand.bot-requests`` and not yet
  answered (the rest of the backlog is the consumer lag of group ``hand-bots``,
  ``hand_kafka_consumer_lag_records``);
- ``hand_bot_decisions_total{level, outcome}``: turns answered (``ok``) or given up (``failed``:
  the room's timer plays the safe automatic turn).
"""

from __future__ import annotations

from hand_common.metrics import counter, gauge, histogram

__all__ = ["DECISIONS", "DECISION_SECONDS", "REQUESTS_WAITING"]

DECISION_SECONDS = histogram("hand_bot_decision_seconds", "Time a bot takes to choose its turn's moves",
                             ["level"], buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0,
                                                 2.5, 5.0, 10.0))
REQUESTS_WAITING = gauge("hand_bot_requests_waiting", "Bot requests fetched and not yet answered")
DECISIONS = counter("hand_bot_decisions", "Bot turns answered or given up", ["level", "outcome"])
