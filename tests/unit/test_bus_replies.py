"""The bus fetches its replies partition only while a command sent through the broker
awaits its reply (hand_room/bus.py): an idle instance's replies consumer polled the broker
ten times a second for nothing (~18 % of an idle instance's CPU). Paused, the partition
keeps its place, so a reply produced before the resume is still read; the send wakes
the consumer at once rather than after its idle wait."""

from __future__ import annotations

import asyncio
import time

from aiokafka import TopicPartition

from hand_infra.memory_broker import MemoryBroker
from hand_infra.settings import KafkaSettings
from hand_infra.topics import ROOM_COMMANDS, ROOM_EVENTS, ROOM_REPLIES
from hand_room.bus import REPLIES_IDLE_S, Bus
from hand_table import Command, LeaveRoom
from hand_wire import Reply, encode_reply
from hand_wire.room.commands import decode_command


async def _owner(broker: MemoryBroker, delay_s: float = 0.0) -> None:
    """A stand-in owner elsewhere: answers every command on hand.room-commands."""
    consumer = broker.consumer(KafkaSettings(bootstrap_servers="memory:0"))
    await consumer.start()
    consumer.assign([TopicPartition(ROOM_COMMANDS, p) for p in broker.partitions_for_topic(ROOM_COMMANDS)])
    producer = broker.producer()
    await producer.start()
    while True:
        for records in (await consumer.getmany(timeout_ms=50)).values():
            for rec in records:
                cmd = decode_command(rec.value)
                await asyncio.sleep(delay_s)
                await producer.send_and_wait(ROOM_REPLIES, key=cmd.reply_to.encode(), value=encode_reply(
                    Reply(cmd.command_id, cmd.reply_to, True, (7,)), lambda code, params: code))


async def _paused(bus: Bus) -> bool:
    for _ in range(200):
        consumer = bus._replies.consumer if bus._replies is not None else None
        if consumer is not None and bus._replies_tp is not None and bus._replies_tp in consumer.paused():
            return True
        await asyncio.sleep(0.01)
    return False


async def test_replies_are_fetched_only_while_one_is_awaited() -> None:
    broker = MemoryBroker()
    await broker.ensure_topics(None, [ROOM_COMMANDS, ROOM_REPLIES, ROOM_EVENTS])
    bus = Bus(KafkaSettings(bootstrap_servers="memory:0"), command_timeout_s=5.0, broker=broker)
    await bus.start()
    owner = asyncio.ensure_future(_owner(broker, delay_s=0.05))
    try:
        assert await _paused(bus)  # idle: nothing awaited, nothing fetched
        for _ in range(3):  # each send resumes it, each answer pauses it again
            began = time.monotonic()
            reply = await bus.send(Command("r1", LeaveRoom(), seat=0))
            took = time.monotonic() - began
            assert reply is not None and reply.ok and reply.seqs == (7,)
            assert took < REPLIES_IDLE_S / 2, took  # woken by the send, not by the idle wait's end
            assert await _paused(bus)
    finally:
        owner.cancel()
        await bus.stop()
