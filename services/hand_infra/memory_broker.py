"""An in-memory broker: the broker port (``hand_infra.broker_port``) in one process,
for tests and simulations — a whole room-service instance (or several sharing one
broker) with no broker process (docs/decisions/0037-in-memory-broker.md).

It is a real implementation of what the services rely on, not a stub:

- topics of numbered partitions, each an append-only log of ``ConsumerRecord`` with
  offsets; a keyed record goes to the partition Kafka's default partitioner gives
  its key (murmur2, as ``hand_infra.topics.partition_of``); a topic is never created
  by a send (``ensure_topics`` creates them, as on the real broker: ``no_auto_create``);
- producers: ``send`` appends and returns the record's already-acked future;
- consumer groups with the eager protocol: a member joining, leaving (``stop``) or
  expiring (:meth:`MemoryBroker.expire`, a session that timed out) starts a
  rebalance; every member revokes its partitions at its next poll (the listener's
  ``on_partitions_revoked``) and waits until all have, or until the rebalance
  timeout (the member's ``session_timeout_ms``) drops the ones that did not; then
  the leader's assignor deals the partitions — the same assignor class the services
  hand aiokafka (the owners' map, ``hand_room.ownership``; Range by default), its
  ``metadata`` / ``assign`` / ``on_assignment`` called as aiokafka calls them — and
  each member takes its share at its next poll (``on_partitions_assigned``). A
  member of an older generation cannot commit (``CommitFailedError``);
- committed offsets per group and partition; a new owner of a partition resumes
  from the group's commit (else from the beginning: ``auto_offset_reset=earliest``);
- manual assignment with ``seek_to_end`` / ``seek_to_beginning`` / ``seek``,
  ``position``, ``highwater`` and ``end_offsets``;
- outages: :meth:`MemoryBroker.outage` (``lose=True``: a restart that loses every
  topic, record, group and offset, as the embedded Tansu does) and
  :meth:`MemoryBroker.restore`. While down, sends and commits raise
  ``KafkaConnectionError``, polls return nothing, ``reachable()`` says False (so a
  ``BrokerWatch`` fails callers fast and runs its recovery when it is back).
"""

from __future__ import annotations

import asyncio
import itertools
import random
import time
from collections.abc import Iterable
from typing import Any

from aiokafka.coordinator.assignors.range import RangePartitionAssignor
from aiokafka.errors import (
    CommitFailedError, ConsumerStoppedError, IllegalOperation, KafkaConnectionError, KafkaTimeoutError,
)
from aiokafka.partitioner import murmur2
from aiokafka.structs import ConsumerRecord, RecordMetadata, TopicPartition

from hand_infra.settings import KafkaSettings
from hand_infra.topics import PROJECT_TOPICS

__all__ = ["MemoryBroker", "MemoryConsumer", "MemoryProducer"]


class _Cluster:
    """What an assignor asks of the cluster: a topic's partitions."""

    def __init__(self, broker: MemoryBroker) -> None:
        self.broker = broker

    def partitions_for_topic(self, topic: str) -> set[int] | None:
        return self.broker.partitions_for_topic(topic)


class MemoryBroker:
    """See the module doc. ``partitions``: the count of a topic created without one."""

    def __init__(self, partitions: int = 4) -> None:
        self.default_partitions = partitions
        self.topics: dict[str, list[list[ConsumerRecord]]] = {}
        self.groups: dict[str, _Group] = {}
        self.up = True
        self.restarts = 0  # outages that lost everything
        self._changed = asyncio.Event()  # set (and replaced) by every record and group change
        self._members = itertools.count(1)

    # ---------------------------------------------------------------- the port
    def producer(self, settings: KafkaSettings | None = None) -> MemoryProducer:
        return MemoryProducer(self)

    def consumer(self, settings: KafkaSettings | None = None, *, group_id: str | None = None,
                 assignor: type | None = None) -> MemoryConsumer:
        timeout_ms = settings.session_timeout_ms if settings is not None else 6000
        return MemoryConsumer(self, group_id=group_id, assignor=assignor, session_timeout_ms=timeout_ms)

    async def reachable(self) -> bool:
        return self.up

    async def list_topics(self) -> set[str]:
        self.check()
        return set(self.topics)

    async def close(self) -> None:
        """Nothing kept open here (the port's ``close``)."""

    async def ensure_topics(self, settings: KafkaSettings | None = None, names: Iterable[str] = PROJECT_TOPICS,
                            partitions: int | None = None) -> list[str]:
        """Create the missing topics (``partitions``, else the settings', else the broker's
        count); a topic with fewer partitions is grown. Returns those created."""
        self.check()
        count = partitions or (settings.partitions if settings is not None else self.default_partitions)
        created = []
        for name in dict.fromkeys(names):
            if name not in self.topics:
                created.append(name)
                self.topics[name] = []
            logs = self.topics[name]
            logs.extend([] for _ in range(count - len(logs)))
        self.wake()
        return created

    # ---------------------------------------------------------------- outages
    def outage(self, *, lose: bool = False) -> None:
        """The broker goes away; ``lose``: it comes back empty (no topic, record, group or
        offset), as the embedded broker does after a restart."""
        self.up = False
        if lose:
            self.topics.clear()
            self.groups.clear()
            self.restarts += 1
        self.wake()

    def restore(self) -> None:
        self.up = True
        self.wake()

    def expire(self, consumer: MemoryConsumer) -> None:
        """``consumer``'s session timed out (a frozen or killed process): its group drops
        it and rebalances; the consumer finds out at its next poll, and rejoins."""
        group = consumer.group
        if group is not None:
            group.leave(consumer)

    # ---------------------------------------------------------------- inspection
    def partitions_for_topic(self, topic: str) -> set[int] | None:
        logs = self.topics.get(topic)
        return set(range(len(logs))) if logs else None

    def records(self, topic: str, partition: int | None = None) -> list[ConsumerRecord]:
        """The records of ``topic`` (one partition, or all of them partition by partition)."""
        logs = self.topics.get(topic, [])
        return list(logs[partition]) if partition is not None else [r for log in logs for r in log]

    def end_offset(self, tp: TopicPartition) -> int:
        log = self._log(tp)
        return len(log) if log is not None else 0

    def committed(self, group_id: str) -> dict[TopicPartition, int]:
        group = self.groups.get(group_id)
        return dict(group.committed) if group is not None else {}

    # ---------------------------------------------------------------- internals
    def check(self) -> None:
        if not self.up:
            raise KafkaConnectionError("the in-memory broker is down")

    def wake(self) -> None:
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    def _log(self, tp: TopicPartition) -> list[ConsumerRecord] | None:
        logs = self.topics.get(tp.topic)
        return logs[tp.partition] if logs is not None and tp.partition < len(logs) else None

    def _group(self, group_id: str) -> _Group:
        group = self.groups.get(group_id)
        if group is None:
            group = self.groups[group_id] = _Group(self, group_id)
        return group

    def append(self, topic: str, key: bytes | None, value: bytes | None, headers: Any = None,
               partition: int | None = None) -> RecordMetadata:
        self.check()
        logs = self.topics.get(topic)
        if not logs:  # no client creates a topic (no_auto_create): aiokafka times out on its metadata
            raise KafkaTimeoutError(f"no topic {topic!r}")
        if partition is None:
            partition = (murmur2(key) & 0x7FFFFFFF) % len(logs) if key is not None else random.randrange(len(logs))
        log = logs[partition]
        stamp = int(time.time() * 1000)
        log.append(ConsumerRecord(topic, partition, len(log), stamp, 0, key, value, None,
                                  len(key) if key is not None else -1, len(value) if value is not None else -1,
                                  tuple(headers or ())))
        self.wake()
        return RecordMetadata(topic, partition, TopicPartition(topic, partition), len(log) - 1, stamp, 0, 0)


class MemoryProducer:
    """The producer side of the port: every send is acked at once (acks=all of one replica)."""

    def __init__(self, broker: MemoryBroker) -> None:
        self.broker = broker
        self.started = False

    async def start(self) -> None:
        self.broker.check()
        self.started = True

    async def stop(self) -> None:
        self.started = False

    async def flush(self) -> None:
        return None

    async def send(self, topic: str, value: bytes | None = None, key: bytes | None = None,
                   partition: int | None = None, timestamp_ms: int | None = None,
                   headers: Any = None) -> asyncio.Future:
        if not self.started:
            raise KafkaConnectionError("producer not started")
        meta = self.broker.append(topic, key, value, headers, partition)
        future = asyncio.get_running_loop().create_future()
        future.set_result(meta)
        return future

    async def send_and_wait(self, topic: str, value: bytes | None = None, key: bytes | None = None,
                            partition: int | None = None, timestamp_ms: int | None = None,
                            headers: Any = None) -> RecordMetadata:
        return await (await self.send(topic, value, key, partition, timestamp_ms, headers))

    async def partitions_for(self, topic: str) -> set[int]:
        self.broker.check()
        logs = self.broker.topics.get(topic)
        if not logs:
            raise KafkaTimeoutError(f"no topic {topic!r}")
        return set(range(len(logs)))

    def create_batch(self) -> "MemoryBatch":
        return MemoryBatch()

    async def send_batch(self, batch: "MemoryBatch", topic: str, *, partition: int) -> asyncio.Future:
        """Every record of ``batch`` appended to ``partition`` in order, acked at once."""
        if not self.started:
            raise KafkaConnectionError("producer not started")
        metas = [self.broker.append(topic, key, value, headers, partition) for key, value, headers in batch.records]
        future = asyncio.get_running_loop().create_future()
        future.set_result(metas[0] if metas else None)
        return future


class MemoryBatch:
    """aiokafka's ``BatchBuilder`` as the port uses it: records appended, then sent whole."""

    def __init__(self) -> None:
        self.records: list[tuple[bytes | None, bytes | None, Any]] = []

    def append(self, *, timestamp: float | None, key: bytes | None, value: bytes | None,
               headers: Any = None) -> object:
        self.records.append((key, value, headers))
        return self


class _Group:
    """A consumer group: members, the current generation's assignment, committed offsets."""

    def __init__(self, broker: MemoryBroker, group_id: str) -> None:
        self.broker, self.group_id = broker, group_id
        self.members: dict[str, MemoryConsumer] = {}
        self.generation = 0
        self.assignments: dict[str, Any] = {}  # member id → ConsumerProtocolMemberAssignment
        self.committed: dict[TopicPartition, int] = {}
        self.rebalancing = False
        self.joined: set[str] = set()  # members that revoked (or joined) in this rebalance
        self.done = asyncio.Event()
        self.deadline = 0.0
        self.rebalances = 0

    def join(self, member: MemoryConsumer) -> None:
        member.member_id = f"{self.group_id}-member-{next(self.broker._members):04d}"
        self.members[member.member_id] = member
        self._rebalance()
        self.joined.add(member.member_id)  # nothing to revoke
        self._maybe_complete()

    def leave(self, member: MemoryConsumer) -> None:
        if self.members.pop(member.member_id or "", None) is None:
            return
        self.joined.discard(member.member_id or "")
        self.assignments.pop(member.member_id or "", None)
        self._rebalance()
        self._maybe_complete()

    def rejoined(self, member: MemoryConsumer) -> None:
        self.joined.add(member.member_id or "")
        self._maybe_complete()

    def expire_stragglers(self) -> None:
        """The rebalance timed out: the members that did not rejoin are dropped."""
        for member_id in [m for m in self.members if m not in self.joined]:
            del self.members[member_id]
        self._maybe_complete()

    def _rebalance(self) -> None:
        if not self.rebalancing:
            self.rebalancing, self.joined, self.done = True, set(), asyncio.Event()
            self.rebalances += 1
        timeout = max((m.session_timeout_ms for m in self.members.values()), default=0) / 1000
        self.deadline = asyncio.get_running_loop().time() + timeout
        self.broker.wake()

    def _maybe_complete(self) -> None:
        if not self.rebalancing or not set(self.members) <= self.joined:
            return
        if self.members:
            leader = next(iter(self.members.values()))
            metadata = {mid: m.assignor.metadata(m.topics) for mid, m in self.members.items()}
            self.assignments = leader.assignor.assign(_Cluster(self.broker), metadata)
        else:
            self.assignments = {}
        self.generation += 1
        self.rebalancing = False
        self.done.set()
        self.broker.wake()


class MemoryConsumer:
    """The consumer side of the port (see the module doc)."""

    def __init__(self, broker: MemoryBroker, *, group_id: str | None, assignor: type | None,
                 session_timeout_ms: int) -> None:
        self.broker, self.group_id = broker, group_id
        self.assignor = assignor or RangePartitionAssignor
        self.session_timeout_ms = session_timeout_ms
        self.topics: list[str] = []
        self.listener: Any = None
        self.group: _Group | None = None
        self.member_id: str | None = None
        self.generation = -1  # the group generation whose assignment this consumer holds
        self._assigned: dict[TopicPartition, None] = {}
        self._positions: dict[TopicPartition, int] = {}
        self._highwater: dict[TopicPartition, int] = {}
        self._paused: set[TopicPartition] = set()
        self._started = self._closed = False

    # ---------------------------------------------------------------- lifecycle
    def subscribe(self, topics: Iterable[str], listener: Any = None) -> None:
        self.topics, self.listener = list(topics), listener

    def subscription(self) -> set[str]:
        return set(self.topics)

    async def start(self) -> None:
        self.broker.check()
        self._started = True
        if self.group_id is not None and self.topics:
            self.group = self.broker._group(self.group_id)
            self.group.join(self)

    async def stop(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self.group is not None:
            self.group.leave(self)

    # ---------------------------------------------------------------- partitions
    def assign(self, partitions: Iterable[TopicPartition]) -> None:
        """Manual assignment (no group); positions of partitions kept stay."""
        if self.topics:
            raise IllegalOperation("subscribed: partitions are dealt by the group")
        self._assigned = dict.fromkeys(partitions)
        self._positions = {tp: p for tp, p in self._positions.items() if tp in self._assigned}
        self._paused &= set(self._assigned)

    def pause(self, *partitions: TopicPartition) -> None:
        """Fetch nothing from ``partitions`` (their positions stay) until resumed."""
        self._paused.update(tp for tp in partitions if tp in self._assigned)

    def resume(self, *partitions: TopicPartition) -> None:
        self._paused.difference_update(partitions)
        self.broker.wake()

    def paused(self) -> set[TopicPartition]:
        return set(self._paused)

    def assignment(self) -> set[TopicPartition]:
        return set(self._assigned)

    def partitions_for_topic(self, topic: str) -> set[int] | None:
        return self.broker.partitions_for_topic(topic)

    async def topics(self) -> set[str]:
        self.broker.check()
        return set(self.broker.topics)

    async def seek_to_end(self, *partitions: TopicPartition) -> None:
        for tp in partitions or tuple(self._assigned):
            self._positions[tp] = self.broker.end_offset(tp)

    async def seek_to_beginning(self, *partitions: TopicPartition) -> None:
        for tp in partitions or tuple(self._assigned):
            self._positions[tp] = 0

    def seek(self, partition: TopicPartition, offset: int) -> None:
        self._positions[partition] = offset

    async def position(self, partition: TopicPartition) -> int:
        return self._position(partition)

    def highwater(self, partition: TopicPartition) -> int | None:
        return self._highwater.get(partition)

    async def end_offsets(self, partitions: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        self.broker.check()
        return {tp: self.broker.end_offset(tp) for tp in partitions}

    async def beginning_offsets(self, partitions: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        return dict.fromkeys(partitions, 0)

    async def committed(self, partition: TopicPartition) -> int | None:
        return self.group.committed.get(partition) if self.group is not None else None

    def _position(self, tp: TopicPartition) -> int:
        pos = self._positions.get(tp)
        if pos is None:  # the group's commit, else the beginning (auto_offset_reset=earliest)
            pos = self._positions[tp] = (self.group.committed.get(tp, 0) if self.group is not None else 0)
        return pos

    # ---------------------------------------------------------------- consuming
    async def commit(self, offsets: dict[TopicPartition, int] | None = None) -> None:
        if self.group is None:
            raise IllegalOperation("no group: nothing to commit to")
        self.broker.check()
        group = self.group
        if self.member_id not in group.members or self.generation != group.generation:
            raise CommitFailedError("the group rebalanced: this member's assignment is gone")
        if offsets is None:
            offsets = {tp: self._positions[tp] for tp in self._assigned if tp in self._positions}
        group.committed.update(offsets)

    async def getmany(self, *partitions: TopicPartition, timeout_ms: int = 0,
                      max_records: int | None = None) -> dict[TopicPartition, list[ConsumerRecord]]:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_ms / 1000
        while True:
            if self._closed or not self._started:
                raise ConsumerStoppedError()
            changed = self.broker._changed  # before looking: a change meanwhile is not missed
            if self.broker.up:
                if self.group is not None:
                    await self._sync(deadline)
                batch = self._fetch(partitions, max_records)
                if batch:
                    return batch
            left = deadline - loop.time()
            if left <= 0:
                return {}
            try:
                await asyncio.wait_for(changed.wait(), left)
            except TimeoutError:
                return {}

    async def _sync(self, deadline: float) -> None:
        """Follow the group: rejoin if dropped, revoke at a rebalance, wait for its end (up
        to the poll's ``deadline``), take this member's share of the new generation."""
        group = self.group
        assert group is not None
        if self.broker.groups.get(group.group_id) is not group:  # the broker lost its groups
            self.group = group = self.broker._group(group.group_id)
        if self.member_id not in group.members:  # dropped (expired, or lost): a new member
            await self._revoke()
            group.join(self)
        if group.rebalancing:
            if self.member_id not in group.joined:
                await self._revoke()
                group.rejoined(self)
            loop = asyncio.get_running_loop()
            left = min(deadline, group.deadline) - loop.time()
            if group.rebalancing and left > 0:
                try:
                    await asyncio.wait_for(asyncio.shield(group.done.wait()), left)
                except TimeoutError:
                    pass
            if group.rebalancing and loop.time() >= group.deadline:
                group.expire_stragglers()
            if group.rebalancing or self.member_id not in group.members:
                return
        if self.generation != group.generation and self.member_id in group.assignments:
            await self._take(group.assignments[self.member_id], group.generation)

    async def _revoke(self) -> None:
        held, had = set(self._assigned), self.generation >= 0
        self._assigned, self._positions, self.generation, self._paused = {}, {}, -1, set()
        if had and self.listener is not None:
            await self.listener.on_partitions_revoked(held)

    async def _take(self, assignment: Any, generation: int) -> None:
        self.generation = generation
        self.assignor.on_assignment(assignment)
        self._assigned = dict.fromkeys(assignment.partitions())
        self._positions, self._paused = {}, set()
        if self.listener is not None:
            await self.listener.on_partitions_assigned(set(self._assigned))

    def _fetch(self, partitions: tuple[TopicPartition, ...], max_records: int | None
               ) -> dict[TopicPartition, list[ConsumerRecord]]:
        out: dict[TopicPartition, list[ConsumerRecord]] = {}
        left = max_records if max_records is not None else 1 << 30
        for tp in partitions or tuple(self._assigned):
            log = self.broker._log(tp)
            if log is None or tp in self._paused:
                continue
            self._highwater[tp] = len(log)
            pos = self._position(tp)
            if pos < len(log) and left > 0:
                records = log[pos:pos + left]
                out[tp] = records
                self._positions[tp] = pos + len(records)
                left -= len(records)
        return out
