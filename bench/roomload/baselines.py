"""Baselines of the same run, same machine: bare Kafka and gRPC round trips."""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from typing import Any

import grpc
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

from hand.v1 import rules_service_pb2 as rpb
from hand.v1 import rules_service_pb2_grpc as rpb_grpc
from hand_infra.settings import KafkaSettings
from hand_infra.topics import ensure_topics

async def kafka_round_trips(settings: KafkaSettings, count: int, size: int = 512) -> dict[str, Any]:
    """Sequential produce (send_and_wait) → consume (getmany loop, as the services do) round trips."""
    topic = f"bench-rt-{uuid.uuid4().hex[:8]}"
    await ensure_topics(settings, [topic], partitions=1)
    producer = AIOKafkaProducer(**settings.producer_kwargs())
    consumer = AIOKafkaConsumer(**settings.consumer_kwargs(None))
    await producer.start()
    await consumer.start()
    waiting: dict[int, asyncio.Future] = {}

    async def consume() -> None:
        while True:
            batch = await consumer.getmany(timeout_ms=100, max_records=1000)
            now = time.perf_counter()
            for msgs in batch.values():
                for msg in msgs:
                    fut = waiting.pop(int.from_bytes(msg.value[:4], "big"), None)
                    if fut is not None and not fut.done():
                        fut.set_result(now)

    tp = TopicPartition(topic, 0)
    consumer.assign([tp])
    await consumer.seek_to_beginning(tp)
    task = asyncio.create_task(consume())
    rt, produce = [], []
    try:
        for i in range(count + 20):  # the first 20 warm up
            fut = asyncio.get_running_loop().create_future()
            waiting[i] = fut
            t0 = time.perf_counter()
            await producer.send_and_wait(topic, i.to_bytes(4, "big") + b"x" * (size - 4), key=b"k")
            t1 = time.perf_counter()
            seen = await asyncio.wait_for(fut, 10)
            if i >= 20:
                produce.append(t1 - t0)
                rt.append(seen - t0)
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await consumer.stop()
        await producer.stop()
    return {"samples": rt, "produce": produce}


async def grpc_echoes(target: str, count: int, size: int = 128) -> dict[str, Any]:
    """Sequential unary Echo calls to the rules service on a fresh channel."""
    async with grpc.aio.insecure_channel(target) as channel:
        stub = rpb_grpc.RulesServiceStub(channel)
        req = rpb.EchoRequest(payload=b"x" * size)
        out = []
        for i in range(count + 50):
            t0 = time.perf_counter()
            await stub.Echo(req)
            if i >= 50:
                out.append(time.perf_counter() - t0)
    return {"samples": out}
