"""A Kafka client's start that its caller gives up on leaves no connection open.

aiokafka's bootstrap connection stays open when the wait for its metadata answer
is cancelled (an ``Unclosed AIOKafkaConnection`` ResourceWarning failed one
``make test`` run in six; this is the leak path found for it). A proxy that never
forwards the metadata request holds the bootstrap at exactly that wait, on an open
connection.
"""

from __future__ import annotations

import asyncio
import gc
import time
import warnings

from aiokafka import AIOKafkaProducer

from hand_infra.broker_port import KafkaBroker
from hand_infra.client_lifecycle import start_client
from hand_infra.settings import KafkaSettings


class MetadataBlackhole:
    """A proxy in front of the real broker that forwards every request but the cluster
    metadata one (API key 3), which it swallows: a client's bootstrap then waits for
    that answer after its connection is open. It notes when a metadata request came
    and when the client closed its connection."""

    METADATA = 3

    def __init__(self, upstream: str) -> None:
        self.host, port = upstream.rsplit(":", 1)
        self.port = int(port)
        self.asked = asyncio.Event()  # a metadata request arrived (and was swallowed)
        self.closed = asyncio.Event()  # a client closed its connection
        self.server: asyncio.Server | None = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(self.host, self.port)
        back = asyncio.ensure_future(self._pipe(up_reader, writer))
        try:
            while True:
                head = await reader.readexactly(4)
                frame = await reader.readexactly(int.from_bytes(head, "big"))
                if int.from_bytes(frame[:2], "big", signed=True) == self.METADATA:
                    self.asked.set()
                    continue
                up_writer.write(head + frame)
        except (asyncio.IncompleteReadError, ConnectionError):
            self.closed.set()
        finally:
            back.cancel()
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


def unclosed_connections() -> list[str]:
    """ResourceWarnings of Kafka connections the collector finds unclosed now."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gc.collect()
    return [str(w.message) for w in caught if "AIOKafkaConnection" in str(w.message)]


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
