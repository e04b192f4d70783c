"""The gateway's Kafka side: send commands, await their replies, and fan
``hand.room-events`` out to local subscribers.

Replies and room events are read from every partition with manual
assignment (no consumer group), starting near the end: on Tansu the
"latest" offset can be a little early, which only re-delivers a few old
messages — replies are matched by command id, and watchers de-duplicate by
seq.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections import defaultdict
from typing import Any

import structlog
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

from hand_infra.settings import KafkaSettings
from hand_infra.topics import ROOM_COMMANDS, ROOM_EVENTS, ROOM_REPLIES

from .errors import RoomCode, RoomError
from .messages import decode, encode

log = structlog.get_logger("hand_room.bus")


class Bus:
    def __init__(self, settings: KafkaSettings, *, instance_id: str | None = None,
                 command_timeout_s: float = 10.0, topics: dict[str, str] | None = None) -> None:
        self.settings = settings
        self.instance_id = instance_id or uuid.uuid4().hex
        self.timeout = command_timeout_s
        t = topics or {}
        self.t_commands = t.get("commands", ROOM_COMMANDS)
        self.t_replies = t.get("replies", ROOM_REPLIES)
        self.t_events = t.get("events", ROOM_EVENTS)
        self._producer: AIOKafkaProducer | None = None
        self._consumers: list[AIOKafkaConsumer] = []
        self._tasks: list[asyncio.Task] = []
        self._pending: dict[str, asyncio.Future] = {}
        self._subs: dict[str, set[asyncio.Queue]] = defaultdict(set)

    async def start(self) -> None:
        self._producer = AIOKafkaProducer(**self.settings.producer_kwargs())
        await self._producer.start()
        for topic, handler in ((self.t_replies, self._on_reply), (self.t_events, self._on_event)):
            consumer = AIOKafkaConsumer(**self.settings.consumer_kwargs(None))
            await consumer.start()
            parts = consumer.partitions_for_topic(topic) or set()
            if not parts:
                await consumer.topics()
                parts = consumer.partitions_for_topic(topic) or set()
            tps = [TopicPartition(topic, p) for p in sorted(parts)]
            consumer.assign(tps)
            await consumer.seek_to_end(*tps)
            self._consumers.append(consumer)
            self._tasks.append(asyncio.create_task(self._consume(consumer, handler), name=f"bus-{topic}"))

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for consumer in self._consumers:
            await consumer.stop()
        if self._producer is not None:
            await self._producer.stop()

    async def _consume(self, consumer: AIOKafkaConsumer, handler) -> None:
        while True:
            batch = await consumer.getmany(timeout_ms=100, max_records=1000)
            for msgs in batch.values():
                for msg in msgs:
                    try:
                        handler(decode(msg.value))
                    except Exception:
                        log.exception("bad_message", topic=msg.topic, offset=msg.offset)

    # ------------------------------------------------------------- commands
    def _on_reply(self, reply: dict[str, Any]) -> None:
        if reply.get("reply_to") != self.instance_id:
            return
        fut = self._pending.pop(reply.get("command_id", ""), None)
        if fut is not None and not fut.done():
            fut.set_result(reply)

    async def send(self, cmd: dict[str, Any], wait: bool = True) -> dict[str, Any] | None:
        """Send a command; with ``wait``, return its reply (RoomError on timeout)."""
        assert self._producer is not None
        if wait:
            cmd["reply_to"] = self.instance_id
            fut = asyncio.get_running_loop().create_future()
            self._pending[cmd["command_id"]] = fut
        try:
            await self._producer.send_and_wait(self.t_commands, key=cmd["room_id"].encode(), value=encode(cmd))
            if not wait:
                return None
            return await asyncio.wait_for(fut, self.timeout)
        except TimeoutError:
            raise RoomError(RoomCode.ROOM_UNAVAILABLE, "no answer from the room's owner") from None
        finally:
            if wait:
                self._pending.pop(cmd["command_id"], None)

    # ------------------------------------------------------------- events
    def _on_event(self, event: dict[str, Any]) -> None:
        for queue in self._subs.get(event.get("room_id", ""), ()):
            queue.put_nowait(event)

    def subscribe(self, room_id: str) -> asyncio.Queue:
        queue: asyncio.Queue = asyncio.Queue()
        self._subs[room_id].add(queue)
        return queue

    def unsubscribe(self, room_id: str, queue: asyncio.Queue) -> None:
        subs = self._subs.get(room_id)
        if subs is not None:
            subs.discard(queue)
            if not subs:
                del self._subs[room_id]
