"""Trace context in Kafka record headers (W3C ``traceparent``), and across the outbox.

- ``headers(context)``: the headers a producer sends with a record (``None``
  while tracing is off: aiokafka then sends none);
- ``consume_span(name, record)``: a CONSUMER span, a child of the context the
  record's headers carry (the shared ``nullcontext`` while tracing is off);
- ``remember_append(room_id, seqs)``: the room owner calls it after an append,
  inside the command's span; the outbox relay, publishing later from its own
  task, takes that context back (``PENDING.take``) so the record's headers
  continue the command's trace. Bounded (``PendingTraces.limit`` entries), a
  no-op while tracing is off.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry.trace import SpanKind

from hand_common.tracing import enabled, extract, inject, start_span

__all__ = ["PENDING", "PendingTraces", "consume_span", "headers", "remember_append"]


def headers(context: Any = None) -> list[tuple[str, bytes]] | None:
    """Record headers carrying ``context`` (default: the current one); None when off."""
    if not enabled():
        return None
    carrier = inject({}, context)
    return [(key, value.encode("latin-1")) for key, value in carrier.items()] or None


def consume_span(name: str, record: Any, *, current: bool = True, **attributes: Any) -> Any:
    """A CONSUMER span continuing the trace of ``record`` (an aiokafka ``ConsumerRecord``);
    ``current=False``: not made current (several records' spans open at once)."""
    if not enabled():
        return start_span(name)  # the shared nullcontext
    return start_span(name, context=extract(getattr(record, "headers", None) or ()), kind=SpanKind.CONSUMER,
                      current=current,
                      **{"messaging.system": "kafka", "messaging.destination.name": getattr(record, "topic", ""),
                         **attributes})


class PendingTraces:
    """The context each appended event was committed in, until the relay publishes it."""

    def __init__(self, limit: int = 10_000) -> None:
        self.limit = limit
        self._contexts: OrderedDict[tuple[str, int], Any] = OrderedDict()

    def remember(self, room_id: str, seqs: Iterable[int], context: Any = None) -> None:
        if not enabled():
            return
        context = otel_context.get_current() if context is None else context
        for seq in seqs:
            self._contexts[(room_id, seq)] = context
        while len(self._contexts) > self.limit:
            self._contexts.popitem(last=False)

    def take(self, room_id: str, seq: int) -> Any:
        """The context ``(room_id, seq)`` was appended in (None: unknown, e.g. another process)."""
        if not self._contexts:
            return None
        return self._contexts.pop((room_id, seq), None)


PENDING = PendingTraces()


def remember_append(room_id: str, seqs: Iterable[int]) -> None:
    """After appending ``seqs`` of ``room_id``: their records continue the current trace."""
    PENDING.remember(room_id, seqs)
