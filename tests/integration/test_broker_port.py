"""The broker port's admin side against the real broker: the watch's topic listings, every
2 s for a service's life, share one admin client instead of bootstrapping one each time,
and that client still answers for a broker restarted under it (the listing is how the
watch sees a restart that lost the topics)."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from hand_infra.broker import TansuBroker
from hand_infra.broker_port import KafkaBroker
from hand_infra.settings import KafkaSettings, kafka_settings
from hand_infra.topics import ensure_topics

from .kafka_proxy_support import CountingProxy, unclosed_connections


@pytest.mark.timeout(30)
async def test_topic_listings_share_one_admin_client(broker: KafkaSettings, unique: str) -> None:
    await ensure_topics(broker, [f"listed.{unique}"], partitions=1)
    proxy = CountingProxy(broker.bootstrap_servers)
    async with proxy as bootstrap:
        port = KafkaBroker(KafkaSettings(bootstrap_servers=bootstrap))
        try:
            for _ in range(4):
                assert f"listed.{unique}" in await port.list_topics()
        finally:
            await port.close()
    assert proxy.connections == 1  # one bootstrap for four listings (a client each: four)
    assert unclosed_connections() == []


@pytest.mark.skipif(not kafka_settings().embedded, reason="restarts the embedded broker")
@pytest.mark.timeout(40)
async def test_the_kept_client_lists_what_a_restarted_broker_holds(unique: str) -> None:
    tansu = TansuBroker()
    await tansu.start()
    settings = dataclasses.replace(kafka_settings()).with_bootstrap(tansu.bootstrap_servers)
    port = KafkaBroker(settings)
    try:
        await ensure_topics(settings, [f"kept.{unique}"], partitions=1)
        assert f"kept.{unique}" in await port.list_topics()
        tansu.kill()  # a restart that loses every topic, faster than the watch's probe
        await tansu.stop()
        tansu = TansuBroker(port=tansu.port)
        await tansu.start()

        async def lost() -> bool:
            try:
                return f"kept.{unique}" not in await port.list_topics()
            except Exception:  # the first ask after the restart may meet the dead connection
                return False
        for _ in range(50):
            if await lost():
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError("the kept client never saw the restarted broker's topics")
    finally:
        await port.close()
        await tansu.stop()
    assert unclosed_connections() == []
