"""From the event store to ``hand.room-events``: the outbox relay.

The relay reads unpublished outbox rows oldest first, sends each event with
key = room_id (so a room stays on one partition, in order) to each of its
routes — a topic and a function that renders the stored payload for that
topic's readers (``None``: not for them) — waits for the broker's acks
(``acks="all"``) and only then marks the rows published. A crash between the
ack and the mark re-publishes on restart: delivery is at-least-once, and
consumers put a :class:`~hand_infra.dedupe.Deduper` in front of their handler.

The writer that just committed events may hand them over rendered
(:meth:`publish_direct`): they are sent at once (or, with ``direct_linger_s``, with
those handed over within that time) without being read back (``hand_infra.direct_sends``),
and marked published (by ``(room_id, seq)``) once acked; the polling pass skips them
meanwhile. If a direct send fails, its rows stay pending and the polling pass
publishes them: the outbox stays the safety net. Where every writer publishes its own rows so (the room instances sharing
one store), ``orphan_after_s`` leaves a row to its writer for that long: a
polling pass takes only older rows — those of a writer that died or gave up
before its ack — so one instance's pass does not publish again what another
has just sent and not yet marked; and ``mine`` gives each relay the rows of
the rooms its instance owns, so a backlog goes out once, not once per
instance. After one of this relay's own direct sends was skipped or failed
(or its writer says an append's fate is unknown: :meth:`unsent`), its passes
take every row for that long.

If a send fails, the relay marks nothing after it for that room, so the
failed event and its successors go out again, in order, on the next pass.
A pass waits at most ``ack_timeout`` s for the broker's acks (unacked rows
stay pending), and while a :class:`~hand_infra.broker_watch.BrokerWatch`
says the broker is down the relay does not try: the outbox fills, and is
published in order once the broker (and its topics) are back.

Metrics (``hand_infra.kafka_metrics``): the backlog seen at each pass, each
event's wait from its first read to its ack, produce latency and failures.
With tracing on, each record's headers continue the trace of the command
that appended it (``hand_infra.kafka_trace.remember_append``).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import structlog
from aiokafka import AIOKafkaProducer

from hand_infra import kafka_trace
from hand_infra.broker_port import BrokerPort, kafka_or
from hand_infra.client_lifecycle import start_client
from hand_infra.direct_sends import DirectSends
from hand_infra.eventstore import EventStore, OutboxEntry
from hand_infra.kafka_metrics import OUTBOX_BACKLOG, OUTBOX_PUBLISHED, OUTBOX_RELAY_LAG, produced
from hand_infra.settings import KafkaSettings
from hand_infra.sqlstore import log_failure
from hand_infra.topics import ROOM_EVENTS

log = structlog.get_logger("hand_infra.outbox")

Render = Callable[[OutboxEntry], "bytes | None"]

#: how long relays sharing an outbox leave a row to the relay that wrote it: longer than a
#: direct send's ack timeout (``OutboxRelay``'s default, 5 s) and a mark (docs/decisions/0046)
ORPHAN_AFTER_S = 6.0
#: at most this many pages of pending rows a polling pass reads to find a batch of its own
#: (each ``batch_size`` rows and more): past another live writer's backlog of up to ~10,000 rows
SCAN_PAGES = 20


def as_stored(entry: OutboxEntry) -> bytes:
    """The default route's rendering: the stored payload as it is."""
    return entry.payload


class OutboxRelay:
    """A task that publishes the store's outbox to ``topic``, in order per room.

    ``async with OutboxRelay(store, settings):`` starts the producer and the
    loop; :meth:`notify` wakes it right after an append (otherwise it polls
    every ``idle_interval`` s). :meth:`publish_pending` runs one pass.
    """

    def __init__(self, store: EventStore, settings: KafkaSettings, topic: str = ROOM_EVENTS,
                 batch_size: int = 500, idle_interval: float = 0.05,
                 retry_interval: float = 0.5, routes: Sequence[tuple[str, Render]] | None = None,
                 mark_interval: float = 0.0, ack_timeout: float = 5.0, watch: Any = None,
                 broker: BrokerPort | None = None, orphan_after_s: float = 0.0,
                 mine: Callable[[str], bool] | None = None, direct_linger_s: float = 0.0) -> None:
        self.ack_timeout, self.watch = ack_timeout, watch
        # >0: a polling pass takes only rows appended at least this long ago (younger ones are
        # their writer's to publish directly), except for this long after an own send failed
        self.orphan_after_s = orphan_after_s
        self._take_all_until = 0.0
        # the rooms whose rows this relay's polling pass takes (None: every room): where several
        # relays share one outbox, each takes the rooms its instance owns, so a backlog (after a
        # broker outage, a dead instance's rows) goes out once, not once per instance
        self.mine = mine
        self.store, self.settings, self.topic = store, settings, topic
        self.broker = kafka_or(broker, settings)  # where the producer comes from
        # >0: rows acked by the broker are marked published at most every ``mark_interval`` s
        # (one write transaction for many passes; a crash before the mark re-publishes them,
        # which the readers' de-duplication by (room_id, seq) absorbs)
        self.mark_interval = mark_interval
        self._unmarked: set[int] = set()
        self._direct: set[tuple[str, int]] = set()  # sent directly, not yet acked and marked
        self._direct_acked: set[tuple[str, int]] = set()
        self._first_read: dict[int, float] = {}  # outbox id → when a pass first read it (relay lag)
        self._marked_at = 0.0
        self.routes = list(routes) if routes is not None else [(topic, as_stored)]
        # the writer's committed events, sent without being read back (``publish_direct``)
        self._sends = DirectSends(lambda: self._producer, self.routes, ack_timeout, direct_linger_s,
                                  acked=self._direct_acked_now, failed=self._direct_failed)
        self.batch_size, self.idle_interval, self.retry_interval = (
            batch_size, idle_interval, retry_interval)
        self._producer: AIOKafkaProducer | None = None
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._stopping = False
        self.published = 0

    async def start(self, run: bool = True) -> None:
        """Start the producer and, if ``run``, the relay loop."""
        self._producer = await start_client(self.broker.producer(self.settings))  # kept once started
        self._marked_at = asyncio.get_running_loop().time()
        if run:
            self._task = asyncio.create_task(self._loop(), name="outbox-relay")

    async def stop(self, timeout: float = 5.0) -> None:
        """Finish the pass in flight (up to ``timeout`` s), then stop the producer."""
        self._stopping = True
        self._wake.set()
        # what waits for the direct linger goes now, and the direct sends under way end: what
        # they get acked is marked below, not left for another instance's pass to publish again
        await self._sends.flush(timeout)
        if self._task is not None:
            # On timeout wait_for cancels the pass; its unmarked rows go out again later.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._task, timeout)
            self._task = None
        with contextlib.suppress(Exception):
            await self._mark(force=True)
        if self._producer is not None:
            await self._producer.stop()
            self._producer = None

    async def __aenter__(self) -> OutboxRelay:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def notify(self) -> None:
        """Wake the loop now (call after an append)."""
        self._wake.set()

    def unsent(self) -> None:
        """Some of this writer's rows may be pending without a direct send under way (a send
        skipped or failed, an append whose outcome is unknown): for ``orphan_after_s`` the
        polling passes take every pending row, young ones included. Wakes nothing: a failed
        send also calls :meth:`notify`; after an append the store refused, the next pass comes
        at its interval rather than at once to a store that is in trouble."""
        if self.orphan_after_s > 0:
            self._take_all_until = time.monotonic() + self.orphan_after_s

    def _own_unsent(self) -> None:
        """A direct send skipped or failed: its rows are the polling pass's, young or not, now."""
        self.unsent()
        self.notify()

    async def _loop(self) -> None:
        while not self._stopping:
            self._wake.clear()
            if self.watch is not None and not self.watch.up:  # the outbox waits for the broker
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), self.retry_interval)
                continue
            try:
                count = await self.publish_pending()
            except Exception as exc:  # keep relaying; the rows stay pending
                log_failure(log, "relay_pass_failed", exc)
                count, delay = 0, self.retry_interval
            else:
                delay = 0 if count >= self.batch_size else self.idle_interval
            if delay and not self._stopping:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), delay)

    async def _mark(self, force: bool = False) -> None:
        """Mark the acked rows published: every pass, or every ``mark_interval`` s."""
        if not self._unmarked and not self._direct_acked:
            return
        now = asyncio.get_running_loop().time()
        if force or self.mark_interval <= 0 or len(self._unmarked) + len(self._direct_acked) >= self.batch_size // 2 \
                or now - self._marked_at >= self.mark_interval:
            ids, keys = sorted(self._unmarked), sorted(self._direct_acked)
            self._marked_at = now
            if ids:
                await self.store.mark_published(ids)
                self._unmarked.difference_update(ids)
            if keys:
                await self.store.mark_published_at(keys)
                self._direct_acked.difference_update(keys)
                self._direct.difference_update(keys)

    def publish_direct(self, items: Sequence[tuple[str, int, Sequence[bytes | None]]],
                       contexts: Sequence[Any] | None = None) -> None:
        """Send committed events now (or at the end of the direct linger): ``(room_id, seq, one
        value per route or None)``, in order per room, each record continuing the trace of its
        ``contexts`` entry (the command that made it; None: the current one). Acked rows are
        marked published with the next mark."""
        if self._producer is None or (self.watch is not None and not self.watch.up):
            self._own_unsent()  # the polling pass (or the broker's return) takes them
            return
        self._direct.update((room_id, seq) for room_id, seq, _ in items)
        self._sends.hand_over(list(items), contexts)

    def _direct_acked_now(self, keys: set[tuple[str, int]]) -> None:
        self._direct_acked.update(keys)
        self.published += len(keys)
        OUTBOX_PUBLISHED.inc(len(keys))
        if len(self._direct_acked) >= self.batch_size // 2:
            self.notify()  # the loop marks them

    def _direct_failed(self, keys: set[tuple[str, int]]) -> None:
        self._direct.difference_update(keys)
        self._own_unsent()

    def _young_from(self) -> datetime | None:
        """Where a polling pass stops: rows appended since are their writers' own to publish
        (None: it takes every row)."""
        if self.orphan_after_s <= 0 or time.monotonic() < self._take_all_until:
            return None
        return datetime.now(UTC) - timedelta(seconds=self.orphan_after_s)

    async def _due(self) -> list[OutboxEntry]:
        """The pass's rows, oldest first: pending, old enough, not sent by this relay, of its
        rooms. Read on past the rows it leaves — those of rooms another instance owns — for at
        most ``SCAN_PAGES`` pages, so another live writer's backlog (its broker unreachable)
        does not hide this instance's orphaned rows behind it; every pass starts from the
        oldest row, so a room's rows still go out in order."""
        page_size = self.batch_size + len(self._unmarked) + len(self._direct)
        before, after, due = self._young_from(), 0, []
        for _ in range(SCAN_PAGES):
            page = await self.store.pending_outbox(page_size, before=before, after=after)
            due += [e for e in page if e.id not in self._unmarked and (e.room_id, e.seq) not in self._direct
                    and (self.mine is None or self.mine(e.room_id))]
            if len(due) >= self.batch_size or len(page) < page_size:
                break
            after = page[-1].id
        return due[:self.batch_size]

    async def publish_pending(self) -> int:
        """Publish one batch of the outbox; return how many rows were marked."""
        if self._producer is None:
            raise RuntimeError("relay not started")
        # marks that are due first: rows sent directly and acked since the last mark would
        # otherwise be read back (with their payloads) only to be skipped — at 150 act/s
        # most of what a pass read
        await self._mark()
        entries = await self._due()
        OUTBOX_BACKLOG.set(len(entries))
        now = time.perf_counter()
        for entry in entries:
            self._first_read.setdefault(entry.id, now)
        if not entries:
            await self._mark()
            return 0
        sent: list[tuple[OutboxEntry, asyncio.Future[Any]]] = []
        blocked: set[str] = set()
        for entry in entries:
            if entry.room_id in blocked:
                continue
            try:
                futures = []
                trace = kafka_trace.headers(kafka_trace.PENDING.take(entry.room_id, entry.seq))
                for topic, render in self.routes:
                    value = render(entry)
                    if value is not None:
                        future = await self._producer.send(topic, key=entry.room_id.encode(), value=value,
                                                           headers=trace)
                        future.add_done_callback(produced(topic, time.perf_counter()))
                        futures.append(future)
            except Exception as exc:  # e.g. no metadata in time; retried next pass
                log.warning("relay_send_failed", room_id=entry.room_id, seq=entry.seq, error=str(exc))
                blocked.add(entry.room_id)
                continue
            sent.append((entry, asyncio.gather(*futures)))
        try:
            results = await asyncio.wait_for(asyncio.shield(
                asyncio.gather(*(f for _, f in sent), return_exceptions=True)), self.ack_timeout)
        except TimeoutError:  # the broker went quiet: all of it goes out again
            results = [TimeoutError("no ack in time")] * len(sent)
        acked: list[int] = []
        for (entry, _), result in zip(sent, results, strict=True):
            if entry.room_id in blocked:
                continue
            if isinstance(result, BaseException):
                log.warning("relay_ack_failed", room_id=entry.room_id, seq=entry.seq,
                            error=str(result))
                blocked.add(entry.room_id)
                continue
            acked.append(entry.id)
        if acked:
            self._unmarked.update(acked)
            self.published += len(acked)
            OUTBOX_PUBLISHED.inc(len(acked))
            done = time.perf_counter()
            for outbox_id in acked:
                OUTBOX_RELAY_LAG.observe(done - self._first_read.pop(outbox_id, done))
        if len(self._first_read) > 4 * self.batch_size:  # rows another relay published
            pending = {e.id for e in entries}
            self._first_read = {i: t for i, t in self._first_read.items() if i in pending}
        await self._mark()
        log.debug("relay_pass", acked=len(acked), blocked_rooms=len(blocked))
        if blocked:
            raise RuntimeError(f"publishing failed for {len(blocked)} room(s); will retry")
        return len(acked)
