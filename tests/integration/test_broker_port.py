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

from .test_client_lifecycle import unclosed_connections


class CountingProxy:
    """A TCP proxy in front of the broker that counts the connections made through it.
    Kafka clients bootstrap through the address they are given and then reach the broker
    at the address it advertises, so this counts bootstraps."""

    def __init__(self, upstream: str) -> None:
        self.host, port = upstream.rsplit(":", 1)
        self.port = int(port)
        self.connections = 0
        self.server: asyncio.Server | None = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        up_reader, up_writer = await asyncio.open_connection(self.host, self.port)
        pipes = [asyncio.ensure_future(self._pipe(reader, up_writer)),
                 asyncio.ensure_future(self._pipe(up_reader, writer))]
        await asyncio.wait(pipes, return_when=asyncio.FIRST_COMPLETED)
        for pipe in pipes:
            pipe.cancel()
        up_writer.close()
        writer.close()

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while data := await reader.read(65536):
            writer.write(data)

    async def __aenter__(self) -> str:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return f"127.0.0.1:{self.server.sockets[0].getsockname()[1]}"

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()


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
