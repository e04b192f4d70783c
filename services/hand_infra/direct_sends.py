"""Committed events sent straight after their commit: the outbox relay's direct publish.

The writer that has just committed events hands them over rendered, one value per route
(``OutboxRelay.publish_direct``): they are sent without being read back, decoded and
encoded again. With a linger (``linger_s``, ``HAND_ROOM_PUBLISH_LINGER_MS``) what is
handed over within it goes out together — fewer produce requests for the same records
(docs/decisions/0047-the-publish-lingers.md). Each send groups its records by topic and
partition, one batch each, in order within each, and waits at most ``ack_timeout`` s for
the broker's acks; it reports back which ``(room_id, seq)`` were acked (``acked``) and
which were not (``failed``: the relay's polling pass publishes those — the outbox stays
the safety net).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import Any

import structlog
from aiokafka import AIOKafkaProducer

from hand_infra import kafka_trace
from hand_infra.kafka_metrics import produced
from hand_infra.sqlstore import log_failure
from hand_infra.topics import partition_of

log = structlog.get_logger("hand_infra.outbox")

Key = tuple[str, int]  # (room_id, seq)


class DirectSends:
    """``hand_over(items, contexts)`` sends (or holds for the linger); ``flush`` sends what is
    held and waits for the sends under way."""

    def __init__(self, producer: Callable[[], AIOKafkaProducer | None], routes: Sequence[tuple[str, Any]],
                 ack_timeout: float, linger_s: float, *, acked: Callable[[set[Key]], None],
                 failed: Callable[[set[Key]], None]) -> None:
        self._producer, self.routes, self.ack_timeout, self.linger_s = producer, routes, ack_timeout, linger_s
        self._acked, self._failed = acked, failed
        self._held: list = []  # (room_id, seq, values) waiting for the linger's end
        self._held_traces: list = []
        self._held_timer: asyncio.TimerHandle | None = None
        self._sending: set[asyncio.Future] = set()  # sends under way

    def hand_over(self, items: list[tuple[str, int, Sequence[bytes | None]]],
                  contexts: Sequence[Any] | None) -> None:
        """Send ``items`` now, or with what comes within the linger; each record continues the
        trace of its ``contexts`` entry (None: the current one)."""
        self._held += items
        self._held_traces += _traces(len(items), contexts)
        if self.linger_s <= 0:
            self._send_held()
        elif self._held_timer is None:
            self._held_timer = asyncio.get_running_loop().call_later(self.linger_s, self._send_held)

    async def flush(self, timeout: float) -> None:
        """Send what the linger holds now and wait (at most ``timeout`` s) for every send under way."""
        self._send_held()
        if self._sending:
            await asyncio.wait(list(self._sending), timeout=timeout)

    def _send_held(self) -> None:
        if self._held_timer is not None:
            self._held_timer.cancel()
            self._held_timer = None
        if not self._held:
            return
        items, traces, self._held, self._held_traces = self._held, self._held_traces, [], []
        sending = asyncio.ensure_future(self._send(items, traces))
        self._sending.add(sending)
        sending.add_done_callback(self._sending.discard)

    async def _send(self, items, traces) -> None:
        producer = self._producer()
        futures = []  # (the (room_id, seq) a batch carries, its future)
        try:
            if producer is None:
                raise RuntimeError("the producer has stopped")
            for topic, partition, records in await self._batches(producer, items, traces):
                batch, keys = producer.create_batch(), []
                for key, value, trace, at in records:
                    if batch.append(key=key, value=value, timestamp=None, headers=trace) is None:  # full
                        futures.append((keys, await _send_batch(producer, batch, topic, partition)))
                        batch, keys = producer.create_batch(), []
                        batch.append(key=key, value=value, timestamp=None, headers=trace)  # a fresh batch takes any
                    keys.append(at)
                futures.append((keys, await _send_batch(producer, batch, topic, partition)))
            results = await asyncio.wait_for(asyncio.gather(*(f for _, f in futures), return_exceptions=True),
                                             self.ack_timeout)
        except Exception as exc:  # not sent or not acked in time: the polling pass publishes them
            log_failure(log, "direct_publish_failed", exc, events=len(items))
            self._failed({(r, q) for r, q, _ in items})
            return
        failed = {k for (keys, _), res in zip(futures, results, strict=True) if isinstance(res, BaseException)
                  for k in keys}
        acked = {(r, q) for r, q, _ in items} - failed
        if acked:
            self._acked(acked)
        if failed:
            self._failed(failed)

    async def _batches(self, producer: AIOKafkaProducer, items, traces) -> list[tuple[str, int, list]]:
        """The records of ``items`` grouped by topic and partition, in order within each: one
        batch a partition instead of one send a record (a send costs its own partition lookup,
        accumulator entry and future: a pass's publish took ×1.8 the CPU, bench/kafka_publish_floor.py).
        Partitions as Kafka's default partitioner gives them (``partition_of`` the room id over
        the topic's partitions, as the producer knows them now), so readers find the same
        partition either way."""
        counts = {topic: len(await producer.partitions_for(topic)) for topic, _ in self.routes}
        groups: dict[tuple[str, int], list] = {}
        for (room_id, seq, values), trace in zip(items, traces, strict=True):
            key = room_id.encode()
            for (topic, _), value in zip(self.routes, values, strict=True):
                if value is not None:
                    groups.setdefault((topic, partition_of(room_id, counts[topic])), []).append(
                        (key, value, trace, (room_id, seq)))
        return [(topic, partition, records) for (topic, partition), records in groups.items()]


async def _send_batch(producer: AIOKafkaProducer, batch, topic: str, partition: int) -> asyncio.Future:
    future = await producer.send_batch(batch, topic, partition=partition)
    future.add_done_callback(produced(topic, time.perf_counter()))
    return future


def _traces(n: int, contexts: Sequence[Any] | None) -> list:
    """Each record's trace headers: its command's context, else the current one; one encoding
    per distinct context (a command's events share it)."""
    current = kafka_trace.headers()
    if contexts is None or current is None:
        return [current] * n
    made: dict[int, Any] = {}
    return [current if c is None else made.setdefault(id(c), kafka_trace.headers(c)) for c in contexts]
