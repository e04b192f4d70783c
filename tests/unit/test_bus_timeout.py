"""A command forwarded to its room's owner waits ``HAND_ROOM_COMMAND_TIMEOUT_S`` in all —
for the broker's ack and for the owner's answer together. Until 2026-12-07 each of the two
had the whole timeout, so a slow ack followed by an owner that never answers (frozen,
dead) held the caller for up to twice it."""

from __future__ import annotations

import asyncio
import time

import pytest

from hand_infra.memory_broker import MemoryBroker
from hand_infra.settings import KafkaSettings
from hand_infra.topics import ROOM_COMMANDS, ROOM_EVENTS, ROOM_REPLIES
from hand_room.bus import Bus
from hand_table import Command, LeaveRoom, RoomCode, RoomError

TIMEOUT_S = 1.0
ACK_S = 0.8  # the broker's ack takes this long; nobody answers the command


async def test_a_slow_ack_and_no_answer_are_refused_within_one_timeout() -> None:
    broker = MemoryBroker()
    await broker.ensure_topics(None, [ROOM_COMMANDS, ROOM_REPLIES, ROOM_EVENTS])
    bus = Bus(KafkaSettings(bootstrap_servers="memory:0"), command_timeout_s=TIMEOUT_S, broker=broker)
    await bus.start()
    try:
        producer = bus._producer
        real = producer.send_and_wait

        async def slow_ack(*args, **kw):
            await asyncio.sleep(ACK_S)
            return await real(*args, **kw)

        producer.send_and_wait = slow_ack
        began = time.monotonic()
        with pytest.raises(RoomError) as refused:
            await bus.send(Command("r1", LeaveRoom(), seat=0))
        took = time.monotonic() - began
        assert refused.value.code == RoomCode.ROOM_UNAVAILABLE.value
        assert refused.value.params.get("retry_after_ms", 0) > 0
        assert broker.topics[ROOM_COMMANDS] and any(broker.topics[ROOM_COMMANDS])  # it was sent
        assert TIMEOUT_S <= took < TIMEOUT_S + ACK_S / 2, took  # one timeout, not the ack's wait plus one
    finally:
        await bus.stop()
