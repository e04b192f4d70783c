"""The ledger's consumer of ``hand.room-events`` (consumer group; any number of replicas).

consume a batch → order it per room (:class:`~hand_ledger.ordering.Hold`,
seeded from the archive) → record what is ready in one transaction
(:func:`~hand_ledger.project.ingest`: each event's archive row and its
effects) → commit the offsets that are now safe. The Kafka commit always
follows the database commit, so a crash between the two only redelivers
events the archive already has, and those are dropped as duplicates. An event ahead of a gap is held (its offset is not
committed) until the gap fills.

If a transaction fails (a database error, or an ``IntegrityError`` because
another replica recorded some of the events during a rebalance), the
consumer forgets what it held and rewinds its partitions to their committed
offsets: the archive then says where each room really stands.

With a :class:`~hand_ledger.repair.GapRepair` (``HAND_LEDGER_EVENTSTORE_URL``),
a room that makes no progress for a while — held behind a gap, or silent
with its match open — is completed from the room service's event store
instead of waiting for the broker forever (hand_ledger/repair.py); with a
:class:`~hand_ledger.discovery.RoomDiscovery` too, so is a room the broker lost
every event of, found in the event store's outbox (hand_ledger/discovery.py).

About 300 lines, kept whole: the hold, the committed offsets and the rewind
flag are one state that every step reads and changes (a batch, a gap-repair
pass and a discovery pass record through ``record`` and commit through
``_commit``); the policies themselves live apart (``ordering``, ``repair``,
``discovery``), and the loop is ``hand_infra``'s ``ConsumerLoop``.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import structlog
from aiokafka import TopicPartition
from aiokafka.errors import KafkaError
from google.protobuf.message import DecodeError

from hand_common.tracing import enabled as tracing_enabled
from hand_engine import RuleViolation
from hand_infra.consumer_loop import ConsumerLoop
from hand_infra.kafka_metrics import LagProbe, count_rebalance
from hand_infra.kafka_trace import consume_span
from hand_infra.settings import KafkaSettings
from hand_infra.sqlstore import log_failure
from hand_infra.topics import ROOM_EVENTS
from hand_table import MatchEnded
from hand_wire import Delivered, decode

from .ordering import Hold
from .discovery import CURSOR, RoomDiscovery
from .metrics import DISCOVERED, REPAIRED, ROOMS_WAITING, GameTally
from .project import ingest
from .repair import GapRepair
from .settings import GROUP
from .store import LedgerStore

log = structlog.get_logger("hand_ledger.consumer")


def parse(value: bytes, partition: Any = None, offset: int = -1) -> Delivered | None:
    """A ``hand.room-events`` message (a ``hand.v1.RoomEvent``) as a :class:`Delivered`,
    or None if it is not one."""
    try:
        return Delivered(decode(value), bytes(value), partition, offset)
    except (DecodeError, RuleViolation, ValueError, KeyError, TypeError):
        return None


class LedgerConsumer:
    """Feeds ``store`` from ``topic`` in consumer group ``group_id``; see the module doc."""

    def __init__(self, store: LedgerStore, settings: KafkaSettings, *, group_id: str = GROUP.value,
                 topic: str = ROOM_EVENTS, max_records: int = 500, retry_interval: float = 0.5,
                 repair: GapRepair | None = None, discovery: RoomDiscovery | None = None) -> None:
        self.store, self.settings, self.group_id, self.topic = store, settings, group_id, topic
        self.repair, self.discovery = repair, discovery
        self._repair_at = 0.0
        self.max_records, self.retry_interval = max_records, retry_interval
        self.hold = Hold()
        self.loop = ConsumerLoop(settings, name="ledger-consumer", topics=[topic], group_id=group_id,
                                 on_assigned=self.on_assigned, on_revoked=self.on_revoked,
                                 before_poll=self._before_poll, on_past_end=self._reseed, on_error=self._failed,
                                 handle=self._on_batch, commit=False, poll_ms=200, max_records=max_records,
                                 retry_s=retry_interval)
        self._rewind_next = False
        self._committed: dict[Any, int] = {}
        self.batches = 0
        self.recorded = 0
        self.tally, self._lag = GameTally(), LagProbe(group_id)  # metrics (hand_ledger.metrics)

    async def start(self) -> None:
        await self.loop.start()

    async def reconnect(self) -> None:
        """After a broker outage: a new consumer (positions from the group's commits, or the
        start of a re-created topic — never offsets the broker lost) and a hold re-seeded
        from the archive. Rooms being watched for gaps stay watched, so a room whose last
        events went with the broker is still completed from the event store."""
        began = asyncio.get_running_loop().time()
        await self.loop.restart(before_start=self._restarting)
        log.info("ledger_reconnected", start_s=round(asyncio.get_running_loop().time() - began, 2))

    async def _restarting(self) -> None:
        self._rewind_next = False  # a new consumer starts at the group's commits
        await self._reseed()

    async def _reseed(self) -> None:
        """Forget the hold; the rooms watched for gaps restart from the archive."""
        self.hold.reset()
        self._committed.clear()
        if self.repair is not None and self.repair.watched():
            for room_id, next_seq in (await self.store.next_seqs(self.repair.watched())).items():
                self.hold.seed(room_id, next_seq)

    async def stop(self) -> None:
        """Stop consuming (a batch in flight is abandoned: its offsets stay uncommitted)."""
        await self.loop.stop()

    @property
    def task(self) -> asyncio.Task[None] | None:
        return self.loop.task

    @property
    def _consumer(self) -> Any:
        """The aiokafka consumer while started (None before)."""
        return self.loop.consumer

    # ---------------------------------------------------------------- the loop's callbacks
    async def on_revoked(self, revoked: set[Any]) -> None:
        count_rebalance(self.group_id, "revoked", revoked)
        self.hold.drop_partitions(revoked)
        for tp in revoked:
            self._committed.pop(tp, None)

    async def on_assigned(self, assigned: set[Any]) -> None:
        count_rebalance(self.group_id, "assigned", assigned)
        log.info("partitions_assigned", partitions=sorted(tp.partition for tp in assigned))

    async def _before_poll(self, consumer: Any) -> bool:
        if self._rewind_next:  # nothing is read until the partitions are back at their commits
            await self._rewind()
            self._rewind_next = False
        return True

    def _failed(self, exc: Exception) -> None:
        log_failure(log, "ledger_batch_failed", exc)
        self._rewind_next = True

    async def _on_batch(self, batch: dict[TopicPartition, list[Any]]) -> None:
        await self._lag(self._consumer)
        if batch:
            await self.handle(batch)
        await self.repair_gaps()
        await self.discover()

    async def handle(self, batch: dict[TopicPartition, list[Any]]) -> int:
        """Order, record and commit one ``getmany`` batch; return how many events were recorded."""
        items: list[Delivered] = []
        for tp, records in batch.items():
            for record in records:
                item = parse(record.value, tp, record.offset)
                if item is None:
                    log.warning("bad_message", partition=tp.partition, offset=record.offset)
                    self.hold.seen(tp, record.offset)
                else:
                    items.append(item)
        with contextlib.ExitStack() as spans:  # with tracing on: a span per record, from its producer's
            for records in batch.values() if tracing_enabled() else ():
                for record in records:
                    spans.enter_context(consume_span("ledger.archive", record, current=False))
            recorded = await self.record(items)
            await self._commit()
        return recorded

    async def record(self, items: list[Delivered]) -> int:
        """Offer ``items`` to the hold and record the events it releases (one transaction)."""
        await self._seed(items)
        items = self._owned(items)  # nothing is awaited from the seeding to the offers
        ready: list[Delivered] = []
        for item in items:
            ready.extend(self.hold.offer(item))
            if self.repair is not None:
                self.repair.seen(item.room_id)
        await ingest(self.store, ready)
        self.tally.observe(ready)
        for item in ready:
            if self.repair is not None:
                self.repair.progressed(item.room_id)
            if isinstance(item.recorded.event, MatchEnded):
                self.hold.forget(item.room_id)
                if self.repair is not None:
                    self.repair.finished(item.room_id)
        self.batches += 1
        self.recorded += len(ready)
        waiting = self.hold.waiting()
        ROOMS_WAITING.set(len(waiting))
        log.debug("ledger_batch", received=len(items), recorded=len(ready), waiting_rooms=len(waiting))
        return len(ready)

    async def _seed(self, items: list[Delivered]) -> None:
        """Seed the rooms of ``items`` the hold does not know from the archive. aiokafka
        rebalances in its own task, so a partition can be revoked at this await, and the
        hold then forgets that partition's rooms, some of them in ``items``: the check is
        repeated until every room is known (a room offered unseeded would be expected from
        seq 0 and held forever)."""
        while unknown := list(dict.fromkeys(i.room_id for i in items if not self.hold.known(i.room_id))):
            for room_id, next_seq in (await self.store.next_seqs(unknown)).items():
                self.hold.seed(room_id, next_seq)

    def _owned(self, items: list[Delivered]) -> list[Delivered]:
        """The items of partitions this replica holds now (and those read from no partition:
        gap repair). A batch read before a rebalance may carry partitions since revoked:
        another replica reads them from the committed offsets, so they are left to it
        instead of leaving offsets of foreign partitions in the hold."""
        if self._consumer is None:
            return items
        owned = self._consumer.assignment()
        return [i for i in items if i.partition is None or i.partition in owned]

    async def repair_gaps(self, now: float | None = None) -> int:
        """Complete the rooms without progress from the event store; return events recorded."""
        now = asyncio.get_running_loop().time() if now is None else now
        if self.repair is None or now < self._repair_at:
            return 0
        self._repair_at = now + min(0.5, self.repair.after_s / 2)
        recorded = 0
        waiting = self.hold.waiting()
        for room_id in self.repair.due():
            next_seq = self.hold.next_seq(room_id)
            if next_seq is None:  # its partition went elsewhere, or a rewind: seen again later
                self.repair.finished(room_id)
                continue
            upto = waiting[room_id][1] if room_id in waiting else None
            missing = await self.repair.missing(room_id, next_seq, upto)
            if not missing:
                self.repair.nothing_missing(room_id)
                continue
            duplicates = self.hold.duplicates
            recorded += await self.record(missing)
            filled = len(missing) - (self.hold.duplicates - duplicates)
            self.repair.repaired += filled
            REPAIRED.inc(filled)
            log.info("gap_repaired", room_id=room_id, from_seq=next_seq, events=filled)
            if room_id in self.repair.watched() and self.hold.next_seq(room_id) == next_seq:
                self.repair.nothing_missing(room_id)  # the store is behind too: look later
        if recorded:
            await self._commit()
        return recorded

    async def discover(self) -> int:
        """One discovery pass when due: the rooms of this replica's partitions that the
        archive lacks events of are watched by gap repair; return how many are new."""
        d, consumer = self.discovery, self._consumer
        if d is None or self.repair is None or self.repair.engine is None or consumer is None or not d.due():
            return 0
        parts = {tp.partition for tp in consumer.assignment()}
        count = len(consumer.partitions_for_topic(self.topic) or ())
        if not parts or not count:  # no assignment yet (a rebalance, a broker outage): next pass
            return 0
        cursor = await self.store.cursor(CURSOR)
        window = await d.window(self.repair.engine, cursor)
        archived = await self.store.next_seqs(list(window.heads))
        watched, new = set(self.repair.watched()), 0
        for room_id in d.behind(window, archived, parts, count):
            if not self.hold.known(room_id):
                self.hold.seed(room_id, archived[room_id])
            if room_id not in watched:
                self.repair.seen(room_id)
                new += 1
                log.info("room_discovered", room_id=room_id, archived_to=archived[room_id] - 1,
                         stored_to=window.heads[room_id])
        d.discovered += new
        DISCOVERED.inc(new)
        moved = window.cursor_after(archived, d.settled_before(), cursor)
        if moved > cursor:
            await self.store.set_cursor(CURSOR, moved)
        return new

    async def _commit(self) -> None:
        if self._consumer is None:
            return
        owned = self._consumer.assignment()
        offsets = {tp: off for tp, off in self.hold.commit_offsets().items()
                   if tp in owned and off > self._committed.get(tp, -1)}
        if not offsets:
            return
        try:
            await self._consumer.commit(offsets)
        except KafkaError as exc:  # e.g. a rebalance: the events are recorded, they come back as duplicates
            log.warning("commit_failed", error=str(exc))
            return
        self._committed.update(offsets)

    async def _rewind(self) -> None:
        """Forget the hold and go back to the committed offsets (or the beginning)."""
        self.hold.reset()
        self._committed.clear()
        if self._consumer is None:
            return
        for tp in self._consumer.assignment():
            offset = await self._consumer.committed(tp)
            if offset is None:
                await self._consumer.seek_to_beginning(tp)
            else:
                self._consumer.seek(tp, offset)
