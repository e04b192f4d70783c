"""A Kafka client's start that its caller gives up on leaves no connection open.

aiokafka's bootstrap connection stays open when the wait for its metadata answer
is cancelled (an ``Unclosed AIOKafkaConnection`` ResourceWarning failed one
``make test`` run in six; this is the leak path found for it). A proxy that never
forwards the metadata request holds the bootstrap at exactly that wait, on an open
connection.
"""

from __future__ import annotations

import asyncio
import time

from aiokafka import AIOKafkaProducer

from hand_infra.broker_port import KafkaBroker
from hand_infra.client_lifecycle import start_client
from hand_infra.settings import KafkaSettings

from .kafka_proxy_support import MetadataBlackhole, unclosed_connections


async def test_a_topic_listing_cancelled_during_the_bootstrap_closes_its_connection(broker: KafkaSettings) -> None:
    silent = MetadataBlackhole(broker.bootstrap_servers)
    async with silent as bootstrap:
        listing = asyncio.ensure_future(KafkaBroker(KafkaSettings(bootstrap_servers=bootstrap)).list_topics())
        await asyncio.wait_for(silent.asked.wait(), 5)  # the bootstrap waits for its metadata
        cancelled_at = time.monotonic()
        listing.cancel()  # the watch stopped (a service shutting down)
        await asyncio.wait({listing}, timeout=1)
        assert listing.cancelled() and time.monotonic() - cancelled_at < 0.5  # the caller is not held
        # the start ends by itself (its 3 s request timeout), then the client is closed
        await asyncio.wait_for(silent.closed.wait(), 8)
    assert unclosed_connections() == []


async def test_a_start_past_its_bound_raises_at_once_and_closes_the_client_when_it_ends(
        broker: KafkaSettings) -> None:
    silent = MetadataBlackhole(broker.bootstrap_servers)
    async with silent as bootstrap:
        producer = AIOKafkaProducer(bootstrap_servers=bootstrap, request_timeout_ms=1000)
        began = time.monotonic()
        try:
            await start_client(producer, 0.3)
        except TimeoutError:
            pass
        else:
            raise AssertionError("a start against a silent broker succeeded")
        assert time.monotonic() - began < 1.0
        assert silent.asked.is_set()
        await asyncio.wait_for(silent.closed.wait(), 6)
    assert unclosed_connections() == []
