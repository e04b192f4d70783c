"""Watching the broker: is it up, and did it come back without our topics?

A broker restart must not leave a service stuck. Kafka clients reconnect by
themselves, but after the embedded Tansu broker restarts it has lost every
topic, message, group and offset: consumers hold positions past the end of
the new, empty partitions (Tansu answers such fetches with nothing, not
OffsetOutOfRange), and a producer's metadata request re-creates a lost topic
with the broker's default partition count. :class:`BrokerWatch` therefore:

- probes the bootstrap servers every ``interval`` s (a TCP connect) and says
  whether the broker is ``up`` — callers fail fast with UNAVAILABLE while it
  is not, instead of waiting for a client timeout;
- every ``topic_check_s`` s while up, lists the topics (on one admin client the port
  keeps, not a client bootstrapped each time): one of ``topics`` missing means the
  broker lost them (a restart faster than a probe);
- on recovery (down → up, or topics lost) re-creates and checks ``topics``
  (:func:`~hand_infra.topics.ensure_topics`; no client's metadata request re-creates
  one first, ``no_auto_create``) — a topic with too few partitions that cannot be grown
  keeps the watch down (callers refused) and is logged once as ``broker_topics_refused``
  — then runs every
  ``on_recover`` callback — each service rebuilds its consumers there and
  resumes from its store and its own tracked positions, never from broker
  offsets that may no longer exist. ``epoch`` counts recoveries.

Metrics: ``hand_kafka_broker_up`` (1/0, each probe) and
``hand_kafka_broker_recoveries_total`` (``hand_infra.kafka_metrics``).

Works unchanged on Apache Kafka: there a restart keeps topics and offsets,
and the rebuilt group consumers resume from their committed offsets.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Iterable

import structlog

from hand_infra.broker_port import BrokerPort, kafka_or
from hand_infra.client_lifecycle import stop_in_background
from hand_infra.kafka_metrics import BROKER_RECOVERIES, BROKER_UP
from hand_infra.settings import KafkaSettings
from hand_infra.topics import PROJECT_TOPICS, TopicPartitionsError

log = structlog.get_logger("hand_infra.broker_watch")

Recover = Callable[[], Awaitable[None]]


async def cancel_task(task: asyncio.Task | None, again_after_s: float = 1.0) -> None:
    """Cancel a background loop and wait for it to end. The cancel is repeated while the
    loop runs on: Python 3.11's ``asyncio.wait_for`` can swallow a cancellation that arrives
    as its inner call completes, and the loop then goes round forever (a CI run hung in a
    fixture's teardown on a BrokerWatch that went on probing)."""
    while task is not None and not task.done():
        task.cancel()
        await asyncio.wait({task}, timeout=again_after_s)
    if task is not None and not task.cancelled():
        with contextlib.suppress(asyncio.CancelledError):
            task.result()  # an error the loop ended with is raised, as awaiting it did


async def retire_consumer(task: asyncio.Task | None, listener, consumer, wait_s: float = 2.0) -> None:
    """Before a consumer is replaced (a reconnect): end its loop, silence its rebalance
    listener (``listener.active = False``) and take it out of its group — at most
    ``wait_s`` s each, then in the background — so it does not sit on partitions.

    The caller's own cancellation (``BrokerWatch``'s timeout on a recovery callback)
    goes through: only the retired loop's end is waited for, never swallowed."""
    if task is not None:
        task.cancel()
        task.add_done_callback(lambda t: t.cancelled() or t.exception())  # its error is not news
        await asyncio.wait({task}, timeout=wait_s)
    if listener is not None:
        listener.active = False
    if consumer is not None:
        try:
            await asyncio.wait_for(asyncio.shield(consumer.stop()), wait_s)
        except Exception:
            stop_in_background(consumer)


class PastEndCheck:
    """Catches a broker that restarted between two probes: a partition whose consumer
    position is past its high watermark (from the last fetch response, exact on Tansu
    too, unlike ListOffsets) was re-created empty — Tansu answers such fetches with
    nothing, not OffsetOutOfRange. It is read again from its beginning (everything
    in it is new); consumers de-duplicate by command id or ``(room_id, seq)``. Call
    it from the consumer's loop; it looks at most every ``every_s`` s."""

    def __init__(self, every_s: float = 1.0) -> None:
        self.every_s = every_s
        self._at = 0.0
        self.resets = 0

    async def __call__(self, consumer) -> int:
        now = time.monotonic()
        if consumer is None or now < self._at:
            return 0
        self._at = now + self.every_s
        past = []
        for tp in consumer.assignment():
            high = consumer.highwater(tp)
            if high is not None and await consumer.position(tp) > high:
                past.append(tp)
        if past:
            await consumer.seek_to_beginning(*past)
            self.resets += len(past)
            log.warning("partitions_past_end_reset", topic=past[0].topic,
                        partitions=sorted(tp.partition for tp in past))
        return len(past)


class BrokerWatch:
    """See the module doc. ``start()`` / ``stop()``; ``up``; ``on_recover.append(fn)``."""

    def __init__(self, settings: KafkaSettings, topics: Iterable[str] = PROJECT_TOPICS, *,
                 interval: float = 0.5, topic_check_s: float = 2.0, recover_timeout_s: float = 15.0,
                 broker: BrokerPort | None = None) -> None:
        self.settings = settings
        self.broker = kafka_or(broker, settings)  # probes, topic lists and re-creation
        self.topics = list(dict.fromkeys(topics))
        self.interval, self.topic_check_s, self.recover_timeout_s = interval, topic_check_s, recover_timeout_s
        self.on_recover: list[Recover] = []
        self.up = True
        self.epoch = 0
        self.down_since: float | None = None
        self.last_outage_s: float | None = None
        self._task: asyncio.Task | None = None
        self._refused: str | None = None  # the last TopicPartitionsError logged

    @property
    def retry_after_ms(self) -> int:
        """A hint for callers refused during an outage."""
        return 1000

    async def start(self) -> None:
        self._task = asyncio.create_task(self._loop(), name="broker-watch")

    async def stop(self) -> None:
        await cancel_task(self._task)
        self._task = None
        await self.broker.close()  # the admin client its topic checks kept

    async def _reachable(self) -> bool:
        return await self.broker.reachable()

    async def _topics_lost(self) -> bool:
        try:
            existing = await self.broker.list_topics()
        except Exception:  # unreachable after all: the probe will say so
            return False
        return any(t not in existing for t in self.topics)

    async def _loop(self) -> None:
        checked = time.monotonic()
        while True:
            await asyncio.sleep(self.interval)
            if not await self._reachable():
                BROKER_UP.set(0)
                if self.up:
                    self.up, self.down_since = False, time.monotonic()
                    log.warning("broker_down", bootstrap=self.settings.bootstrap_servers)
                continue
            BROKER_UP.set(1)
            lost = False
            if self.up and time.monotonic() - checked >= self.topic_check_s:
                checked = time.monotonic()
                lost = await self._topics_lost()
            if self.up and not lost:
                continue
            await self._recover(lost)
            checked = time.monotonic()

    async def _bounded(self, callback: Recover) -> None:
        """Run one recovery callback for at most ``recover_timeout_s``. Past it the callback
        is cancelled and not waited for: ``wait_for`` would wait for it to end, and one that
        does not end when cancelled (a consumer stuck joining its group, a cancellation
        swallowed inside a client library) would hold the watch down for good."""
        name = getattr(callback, "__qualname__", repr(callback))
        task = asyncio.ensure_future(callback())
        done, _ = await asyncio.wait({task}, timeout=self.recover_timeout_s)
        if not done:
            task.cancel()
            task.add_done_callback(lambda t: t.cancelled() or t.exception())  # its error is not news
            log.error("broker_recover_callback_timeout", callback=name, timeout_s=self.recover_timeout_s)
        elif not task.cancelled() and task.exception() is not None:
            log.error("broker_recover_callback_failed", callback=name, error=repr(task.exception()))

    async def _recover(self, lost: bool) -> None:
        self.up = False
        began = time.monotonic()
        try:
            await asyncio.wait_for(self.broker.ensure_topics(self.settings, self.topics), self.recover_timeout_s)
        except TopicPartitionsError as exc:  # stays down (refusing) until someone fixes the topic
            if str(exc) != self._refused:
                self._refused = str(exc)
                log.error("broker_topics_refused", error=self._refused)
            return
        except Exception as exc:  # not really back yet: try again at the next probe
            log.warning("broker_recover_retry", error=type(exc).__name__)
            return
        self._refused = None
        log.info("broker_topics_ensured", took_s=round(time.monotonic() - began, 2))
        for callback in self.on_recover:
            await self._bounded(callback)
        self.epoch += 1
        BROKER_RECOVERIES.inc()
        since = self.down_since or time.monotonic()
        self.last_outage_s = round(time.monotonic() - since, 2)
        self.up, self.down_since = True, None
        log.info("broker_recovered", epoch=self.epoch, topics_lost=lost, outage_s=self.last_outage_s)
