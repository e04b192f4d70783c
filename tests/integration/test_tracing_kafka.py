"""One trace crosses Kafka: a command's span appends events, the outbox relay publishes them
later from its own task with the command's trace context in the record headers, and a consumer's
span (as the ledger's and the bot's) continues that same trace — on a real broker (Tansu)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from aiokafka import AIOKafkaConsumer
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from hand_common import tracing
from hand_infra import kafka_trace
from hand_infra.eventstore import EventStore
from hand_infra.outbox import OutboxRelay
from hand_infra.settings import KafkaSettings
from hand_infra.topics import ensure_topics


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    assert tracing.configure_tracing("hand_test", {}, exporter=exporter, install_global=False)
    try:
        yield exporter
    finally:
        tracing.disable_tracing()


async def test_the_trace_of_an_append_reaches_the_consumer_through_record_headers(
        spans: InMemorySpanExporter, broker: KafkaSettings, unique: str, tmp_path) -> None:
    topic = f"traced.{unique}"
    await ensure_topics(broker, [topic], partitions=1)
    async with EventStore(f"sqlite:///{tmp_path / 'events.db'}") as store:
        with tracing.start_span("room.act") as act:
            seqs = await store.append("room-1", 0, [("Played", b"one"), ("Played", b"two")])
            kafka_trace.remember_append("room-1", seqs)
        trace_id = act.get_span_context().trace_id
        async with OutboxRelay(store, broker, topic=topic) as relay:
            relay.notify()
            consumer = AIOKafkaConsumer(topic, **broker.consumer_kwargs(f"g.{unique}"))
            await consumer.start()
            try:
                got, deadline = [], time.monotonic() + 30
                while len(got) < 2:
                    assert time.monotonic() < deadline, got
                    for records in (await consumer.getmany(timeout_ms=200)).values():
                        for record in records:
                            assert dict(record.headers)["traceparent"].decode().split("-")[1] \
                                == format(trace_id, "032x")
                            with kafka_trace.consume_span("ledger.archive", record) as span:
                                got.append(span.get_span_context().trace_id)
            finally:
                await consumer.stop()
    assert got == [trace_id, trace_id]
    finished = {s.name: s for s in spans.get_finished_spans()}
    assert finished["ledger.archive"].parent.span_id == finished["room.act"].context.span_id
    assert finished["ledger.archive"].attributes["messaging.destination.name"] == topic
