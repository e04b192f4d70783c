"""The one Kafka consumer loop of the project: start, poll, rebalance callbacks,
reconnect after a broker outage, commit, stop.

Every consumer of the services (the room owner, the gateway's bus, the bots, the
ledger) is a :class:`ConsumerLoop` and differs only in what it hands in:

- ``topics`` and a ``group_id`` (a member of a consumer group, partitions dealt
  by the group; ``assignor``: a custom ``partition_assignment_strategy``, e.g.
  the room owners' map, ``hand_room.ownership``) — or no group and a ``setup``
  that assigns partitions by hand after the consumer starts;
- ``on_assigned`` / ``on_revoked``: the rebalance callbacks, silenced once the
  consumer is replaced (a reconnect), so an old consumer's late revocation
  never undoes the new one's assignment;
- ``handle(batch)``: each ``getmany`` batch, empty ones too (a loop with work
  between batches, e.g. the ledger's gap repair, does it there);
- ``commit``: commit the consumer's position after each non-empty batch (the
  handler's work is done by then); ``False`` for a loop that commits its own
  offsets (the ledger) or has no group;
- ``before_poll(consumer)``: called before each poll; ``False`` skips it and
  waits ``idle_s``, or until :meth:`ConsumerLoop.wake` (the bus's events consumer
  with nothing to follow, its replies consumer with no reply awaited);
- ``on_past_end``: called when :class:`~hand_infra.broker_watch.PastEndCheck`
  reset partitions of a broker that restarted between two probes;
- ``on_error(exc)``: a failed poll, handler or commit (the default logs
  ``<name>_poll_failed``); the loop waits ``retry_s`` and goes on.

Clients get their arguments from :class:`~hand_infra.settings.KafkaSettings`,
so no metadata request of theirs creates a topic (``no_auto_create``); the consumer
comes from ``broker`` (:mod:`hand_infra.broker_port`: aiokafka's by default, or the
in-memory broker's).
``restart()`` (a :class:`~hand_infra.broker_watch.BrokerWatch` recovery) retires
the consumer — its loop ended, its listener silenced, out of its group within
``retire_s`` or in the background — and starts a new one in a new group session,
whose positions come from the group's commits, never from offsets the broker lost.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import structlog
from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener
from aiokafka.client import ConnectionGroup
from aiokafka.protocol.group import LeaveGroupRequest

from .broker_port import BrokerPort, kafka_or
from .broker_watch import PastEndCheck, retire_consumer
from .client_lifecycle import start_client, stop_in_background
from .settings import KafkaSettings

__all__ = ["ConsumerLoop"]

log = structlog.get_logger("hand_infra.consumer_loop")

Batch = dict[Any, list[Any]]
Partitions = Callable[[set[Any]], Awaitable[None]]


class _Listener(ConsumerRebalanceListener):
    """Hands a consumer's rebalances to its loop's callbacks while ``active``."""

    def __init__(self, loop: ConsumerLoop) -> None:
        self.loop = loop
        self.active = True  # False once its consumer is replaced (restart)

    async def on_partitions_revoked(self, revoked) -> None:
        if self.active and self.loop.on_revoked is not None:
            await self.loop.on_revoked(set(revoked))

    async def on_partitions_assigned(self, assigned) -> None:
        if self.active and self.loop.on_assigned is not None:
            await self.loop.on_assigned(set(assigned))


class ConsumerLoop:
    """One consumer and the task that polls it; see the module doc."""

    def __init__(self, settings: KafkaSettings, *, name: str, handle: Callable[[Batch], Awaitable[Any]],
                 topics: Sequence[str] = (), group_id: str | None = None, assignor: type | None = None,
                 on_assigned: Partitions | None = None, on_revoked: Partitions | None = None,
                 setup: Callable[[AIOKafkaConsumer], Awaitable[None]] | None = None,
                 before_poll: Callable[[AIOKafkaConsumer], Awaitable[bool]] | None = None,
                 on_past_end: Callable[[], Awaitable[None]] | None = None,
                 on_error: Callable[[Exception], Any] | None = None,
                 commit: bool = True, poll_ms: int = 200, max_records: int = 1000,
                 retry_s: float = 0.5, idle_s: float = 0.1, retire_s: float = 2.0,
                 broker: BrokerPort | None = None, leave_first_generation: bool = False) -> None:
        self.settings, self.name, self.handle = settings, name, handle
        # stop() leaves the group from Tansu's generation 0 too (``_leave_first_generation``):
        # for a group whose partitions must move at once (the room owners')
        self.leave_first_generation = leave_first_generation
        self.broker = kafka_or(broker, settings)
        self.topics, self.group_id, self.assignor = list(topics), group_id, assignor
        self.on_assigned, self.on_revoked, self.setup = on_assigned, on_revoked, setup
        self.before_poll, self.on_past_end, self.on_error = before_poll, on_past_end, on_error
        self.commit, self.poll_ms, self.max_records = commit, poll_ms, max_records
        self.retry_s, self.idle_s, self.retire_s = retry_s, idle_s, retire_s
        self.consumer: Any = None  # the AIOKafkaConsumer while started
        self.task: asyncio.Task[None] | None = None
        self._listener: _Listener | None = None
        self.last_poll = 0.0  # time.monotonic() of the latest poll
        self.restarts = 0
        self._woken = asyncio.Event()  # wake(): the idle wait ends now

    # ---------------------------------------------------------------- lifecycle
    def _new_consumer(self) -> AIOKafkaConsumer:
        return self.broker.consumer(self.settings, group_id=self.group_id, assignor=self.assignor)

    async def start(self) -> None:
        """Start a consumer (subscribed to ``topics``, or set up by hand) and its loop."""
        consumer = self._new_consumer()
        if self.topics:
            self._listener = _Listener(self)
            consumer.subscribe(self.topics, listener=self._listener)
        await start_client(consumer)
        self.consumer = consumer
        if self.setup is not None:
            await self.setup(consumer)
        self.last_poll = time.monotonic()
        self.task = asyncio.create_task(self._run(), name=self.name)

    async def restart(self, before_start: Callable[[], Any] | None = None) -> None:
        """After a broker outage: retire this consumer (see the module doc), call
        ``before_start`` (the old consumer's callbacks are silent by then) and start anew."""
        await retire_consumer(self.task, self._listener, self.consumer, self.retire_s)
        self.task = self.consumer = self._listener = None
        self.restarts += 1
        if before_start is not None and inspect.isawaitable(pending := before_start()):
            await pending
        await self.start()

    async def stop(self, *, background: bool = False) -> None:
        """End the loop (a batch in flight is abandoned: its offsets stay uncommitted) and
        stop the consumer — or, with ``background``, leave it stopping (its broker may be
        gone: leaving a group or closing can take seconds)."""
        task, self.task = self.task, None
        if task is not None:
            if task.done() and not task.cancelled() and task.exception() is not None:
                log.error("consumer_loop_died", loop=self.name, error=repr(task.exception()))
            while not task.done():  # repeated: Python 3.11's wait_for can swallow a cancel (cancel_task)
                task.cancel()
                await asyncio.wait({task}, timeout=1.0)
        if self._listener is not None:
            self._listener.active = False
        consumer, self.consumer, self._listener = self.consumer, None, None
        if consumer is not None:
            if background:
                stop_in_background(consumer)
            else:
                if self.leave_first_generation:
                    _leave_first_generation(consumer)
                await consumer.stop()

    def running(self, max_silence_s: float | None = None) -> bool:
        """The loop runs (and, with ``max_silence_s``, polled the broker that recently)."""
        alive = self.task is not None and not self.task.done()
        return alive and (max_silence_s is None or time.monotonic() - self.last_poll <= max_silence_s)

    def assignment(self) -> set[Any]:
        """The partitions the consumer holds now (none while it is not started)."""
        return set(self.consumer.assignment()) if self.consumer is not None else set()

    def partitions_for(self, topic: str) -> set[int]:
        """The partition numbers of ``topic`` in the consumer's metadata."""
        return set(self.consumer.partitions_for_topic(topic) or ()) if self.consumer is not None else set()

    # ---------------------------------------------------------------- the loop
    async def _run(self) -> None:
        past_end = PastEndCheck()  # a broker restarted between two probes of the watch
        while True:
            try:
                await self._once(past_end)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the broker went away mid-commit, a failed batch: keep the loop
                if self.on_error is not None:
                    self.on_error(exc)
                else:
                    log.warning(f"{self.name}_poll_failed", error=type(exc).__name__)
                await asyncio.sleep(self.retry_s)

    async def _once(self, past_end: PastEndCheck) -> None:
        consumer = self.consumer
        if self.before_poll is not None and not await self.before_poll(consumer):
            await self._idle()  # nothing to read
            return
        if await past_end(consumer) and self.on_past_end is not None:
            await self.on_past_end()
        batch = await consumer.getmany(timeout_ms=self.poll_ms, max_records=self.max_records)
        self.last_poll = time.monotonic()
        await self.handle(batch)
        if batch and self.commit:
            await consumer.commit()

    async def _idle(self) -> None:
        try:
            async with asyncio.timeout(self.idle_s):
                await self._woken.wait()
        except TimeoutError:
            pass
        self._woken.clear()

    def wake(self) -> None:
        """Ask ``before_poll`` again now, not after the rest of an idle wait (the bus
        sent a command whose reply it awaits)."""
        self._woken.set()


def _leave_first_generation(consumer: Any) -> None:
    """Make ``consumer.stop()`` leave its group also from generation 0, so that the others
    take its partitions at once. aiokafka leaves (after it stopped its heartbeats, in
    ``GroupCoordinator.close``) only from generation 1, Apache Kafka's first; Tansu's first
    is 0, and a member of it that stopped was found gone only when its session timed out,
    a second or more with its partitions held by nobody (a graceful stop of a room instance
    was slower than a crash). Sent from inside ``close``, in aiokafka's place, so no
    heartbeat can rejoin meanwhile, and only on the coordinator connection already open
    (``_open_coordination``: a connection opened for it could be left unclosed). Best
    effort, as aiokafka's own: a failure is the session timeout. Only for the groups that
    ask for it: the room owners' group is the one whose partitions must move at once."""
    coordinator = getattr(consumer, "_coordinator", None)  # None: not in a group, or in-memory
    if coordinator is None or getattr(coordinator, "generation", None) != 0:
        return
    own = coordinator._maybe_leave_group

    async def leave() -> None:
        conn = _open_coordination(coordinator)
        if coordinator.generation == 0 and coordinator.member_id and conn is not None:
            try:
                async with asyncio.timeout(1.0):
                    await conn.send(LeaveGroupRequest(coordinator.group_id, coordinator.member_id))
                log.info("group_left", group=coordinator.group_id, generation=0)
            except Exception as exc:  # noqa: BLE001 — the session timeout does it instead
                log.warning("group_leave_failed", group=coordinator.group_id, error=type(exc).__name__)
        await own()  # aiokafka's: leaves from generation 1, resets the generation either way

    coordinator._maybe_leave_group = leave


def _open_coordination(coordinator: Any) -> Any:
    """The connection to the group's coordinator if one is open, else None. The leave is
    sent on it only: asking the client for a connection may open a new one, and one
    opened as the 1 s bound cancels it is left out of the client's table, so the
    client's close never closes it (an unclosed ``AIOKafkaConnection``: a ``make test``
    run on 2026-12-06 failed on it, two tests of one worker)."""
    node = coordinator.coordinator_id
    conn = coordinator._client._conns.get((node, ConnectionGroup.COORDINATION)) if node is not None else None
    return conn if conn is not None and conn.connected() else None
