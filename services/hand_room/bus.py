"""The gateway's Kafka side: send commands to owners elsewhere, await their replies,
and hand ``hand.room-events`` to this instance's feeds and repository.

It reads only what it needs, with manual assignment (no consumer group):
replies from the one partition its instance id is keyed to, and only while a
command sent through the broker awaits its reply (the partition is paused
otherwise: an idle fetch loop was ~18 % of an idle instance's CPU), and room events
only from the partitions of rooms it streams but does not own (none on the
normal path, where a room's streams meet at its owner, which hands its feeds
each event straight after the commit). The set is recomputed when a feed
starts or ends or ownership moves. New partitions start near the end: on
Tansu the "latest" offset can be a little early, which only re-delivers a
few old messages — replies are matched by command id, and feeds de-duplicate
by seq.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

import structlog
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.errors import KafkaError

from hand_infra.broker_port import BrokerPort, kafka_or
from hand_infra.broker_watch import BrokerWatch
from hand_infra.client_lifecycle import start_client
from hand_infra.consumer_loop import ConsumerLoop
from hand_infra import kafka_trace
from hand_infra.settings import KafkaSettings
from hand_infra.topics import ROOM_COMMANDS, ROOM_EVENTS, ROOM_REPLIES, partition_of

from hand_table import Recorded, Command, RoomCode, RoomError
from hand_wire import decode, encode_command, Reply, decode_reply
from .feeds import Feeds

log = structlog.get_logger("hand_room.bus")
#: how often an events consumer with nothing to read checks what it should read
IDLE_S = 0.1
#: the same for the replies consumer with no reply awaited (a send wakes it at once)
REPLIES_IDLE_S = 1.0


async def _partitions(consumer: AIOKafkaConsumer, topic: str) -> set[int]:
    parts = consumer.partitions_for_topic(topic) or set()
    if not parts:
        await consumer.topics()
        parts = consumer.partitions_for_topic(topic) or set()
    return parts


class Bus:
    def __init__(self, settings: KafkaSettings, *, instance_id: str | None = None,
                 command_timeout_s: float, topics: dict[str, str] | None = None,
                 feeds: "Feeds | None" = None, watch: "BrokerWatch | None" = None,
                 owns: Callable[[str], bool] = lambda room_id: False,
                 ownership_version: Callable[[], int] = lambda: 0, broker: BrokerPort | None = None) -> None:
        self.broker = kafka_or(broker, settings)  # aiokafka's clients, or the in-memory broker's
        self.feeds = feeds
        self.owns, self.ownership_version = owns, ownership_version  # rooms whose events come in-process
        self._event_parts = settings.partitions
        self._following: set[int] = set()
        self._seen: tuple | None = None
        self.watch = watch  # broker down: commands fail fast with ROOM_UNAVAILABLE
        self.events_received = 0  # hand.room-events messages read
        self.events_decoded = 0  # ... of rooms this instance streams or holds
        self.settings = settings
        self.instance_id = instance_id or uuid.uuid4().hex
        self.timeout = command_timeout_s
        t = topics or {}
        self.t_commands = t.get("commands", ROOM_COMMANDS)
        self.t_replies = t.get("replies", ROOM_REPLIES)
        self.t_events = t.get("events", ROOM_EVENTS)
        self._producer: AIOKafkaProducer | None = None
        self._loops: list[ConsumerLoop] = []  # replies, events (no group: assigned by hand)
        self._replies: ConsumerLoop | None = None
        self._replies_tp: TopicPartition | None = None
        self._pending: dict[str, asyncio.Future] = {}

    async def start(self) -> None:
        self._producer = await start_client(self.broker.producer(self.settings))  # kept once started
        await self._start_consumers()

    async def reconnect(self) -> None:
        """After a broker outage: new consumers near the (new) end of every partition —
        positions from before may be past the end of re-created, empty partitions."""
        await self._stop_consumers(background=True)
        await self._start_consumers()
        log.info("bus_reconnected", instance=self.instance_id)

    async def _stop_consumers(self, background: bool = False) -> None:
        for loop in self._loops:
            await loop.stop(background=background)
        self._loops = []

    async def _start_consumers(self) -> None:
        def failed(exc: Exception) -> None:  # the broker went away: the watch reconnects
            log.warning("bus_fetch_failed", error=type(exc).__name__)

        common = {"broker": self.broker, "commit": False, "poll_ms": 100, "max_records": 1000, "on_error": failed}
        replies = ConsumerLoop(self.settings, name="bus-replies", setup=self._follow_replies,
                               before_poll=self._replies_awaited, idle_s=REPLIES_IDLE_S,
                               handle=self._each(self._on_reply), **common)
        events = ConsumerLoop(self.settings, name="bus-events", setup=self._events_started,
                              before_poll=self._follow, idle_s=IDLE_S, handle=self._each(self._on_event), **common)
        self._loops, self._replies = [replies, events], replies
        for loop in self._loops:
            await loop.start()

    async def _follow_replies(self, consumer: AIOKafkaConsumer) -> None:
        """Replies come from the one partition this instance's id is keyed to, from its end."""
        parts = await _partitions(consumer, self.t_replies)
        mine = TopicPartition(self.t_replies, partition_of(self.instance_id, len(parts)) if parts else 0)
        consumer.assign([mine])
        await consumer.seek_to_end(mine)
        self._replies_tp = mine

    async def _replies_awaited(self, consumer: AIOKafkaConsumer) -> bool:
        """Fetch replies only while one is awaited: the partition is paused otherwise (its
        position stays, so a reply produced before the resume is still read)."""
        tp = self._replies_tp
        if tp is None:
            return True
        paused = tp in consumer.paused()
        if self._pending:
            if paused:
                consumer.resume(tp)
            return True
        if not paused:
            consumer.pause(tp)
        return False

    async def _events_started(self, consumer: AIOKafkaConsumer) -> None:
        self._event_parts = len(await _partitions(consumer, self.t_events)) or self.settings.partitions
        self._following, self._seen = set(), None

    @staticmethod
    def _each(handler: Callable[[Any], None]) -> Callable[[dict], Awaitable[None]]:
        """A batch handler that hands each message to ``handler`` (a bad one is logged)."""
        async def handle(batch: dict) -> None:
            for msgs in batch.values():
                for msg in msgs:
                    try:
                        handler(msg)
                    except Exception:
                        log.exception("bad_message", topic=msg.topic, offset=msg.offset)
        return handle

    def _wanted(self) -> set[int]:
        """Partitions of the rooms this instance streams and does not own."""
        if self.feeds is None:
            return set()
        return {partition_of(r, self._event_parts) for r in self.feeds.rooms() if not self.owns(r)}

    async def _follow(self, consumer: AIOKafkaConsumer) -> bool:
        """Assign the event partitions wanted now; False when none is."""
        version = (self.feeds.version if self.feeds is not None else 0, self.ownership_version())
        if version != self._seen:
            moved = self._seen is not None and version[1] != self._seen[1]
            self._seen = version
            wanted = self._wanted()
            added = wanted - self._following
            if wanted != self._following:
                consumer.assign([TopicPartition(self.t_events, p) for p in sorted(wanted)])
                if added:
                    await consumer.seek_to_end(*(TopicPartition(self.t_events, p) for p in sorted(added)))
                self._following = wanted
                log.info("bus_following", partitions=sorted(wanted))
            # what was published before the consumer's place (a broker restart, a partition
            # newly followed, a room that changed owner) comes from the store, not the topic
            if self.feeds is not None and (moved or added):
                self.feeds.sync(None if moved else [r for r in self.feeds.rooms()
                                                    if partition_of(r, self._event_parts) in added])
        return bool(self._following)

    async def stop(self) -> None:
        log.info("bus_stats", instance=self.instance_id, events_received=self.events_received,
                 events_decoded=self.events_decoded)
        await self._stop_consumers()
        if self._producer is not None:
            await self._producer.stop()

    # ------------------------------------------------------------- commands
    def _on_reply(self, msg) -> None:
        if msg.key is not None and msg.key.decode() != self.instance_id:
            return
        reply = decode_reply(msg.value)
        if reply.reply_to != self.instance_id:
            return
        fut = self._pending.pop(reply.command_id, None)
        if fut is not None and not fut.done():
            fut.set_result(reply)

    async def send(self, cmd: Command, wait: bool = True) -> Reply | None:
        """Send a command; with ``wait``, return its reply (RoomError on timeout)."""
        assert self._producer is not None
        if self.watch is not None and not self.watch.up:  # fail fast, never hang to a deadline
            raise RoomError(RoomCode.ROOM_UNAVAILABLE, "the broker is unreachable",
                            retry_after_ms=self.watch.retry_after_ms)
        if wait:
            cmd = replace(cmd, reply_to=self.instance_id)
            fut = asyncio.get_running_loop().create_future()
            self._pending[cmd.command_id] = fut
            if self._replies is not None:  # its replies partition is fetched again
                self._replies.wake()
        try:  # one timeout for the send and the answer together (until 2026-12-07, one each)
            async with asyncio.timeout(self.timeout):
                await self._producer.send_and_wait(self.t_commands, key=cmd.room_id.encode(),
                                                   value=encode_command(cmd), headers=kafka_trace.headers())
                if not wait:
                    return None
                return await fut
        except TimeoutError:
            raise RoomError(RoomCode.ROOM_UNAVAILABLE, "no answer from the room's owner", retry_after_ms=1000) from None
        except KafkaError:
            raise RoomError(RoomCode.ROOM_UNAVAILABLE, "the broker is unreachable", retry_after_ms=1000) from None
        finally:
            if wait:
                self._pending.pop(cmd.command_id, None)

    # ------------------------------------------------------------- events
    def _on_event(self, msg) -> None:
        self.events_received += 1
        if self.feeds is None:
            return
        room_id = msg.key.decode() if msg.key is not None else ""
        if not self.feeds.following(room_id) and self.feeds.repo.cached(room_id) is None:
            return  # this instance neither streams nor holds that room: not even decoded
        self.events_decoded += 1
        rec: Recorded = decode(msg.value)
        self.feeds.offer(rec)
