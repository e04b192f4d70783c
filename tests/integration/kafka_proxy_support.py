"""TCP proxies in front of the real broker, for tests of what a Kafka client does on the
wire, and a check that no client connection was left unclosed.

Kafka clients bootstrap through the address they are given and then reach the broker at
the address it advertises: a proxy here sees a client's bootstrap connection only."""

from __future__ import annotations

import asyncio
import gc
import warnings


class BrokerProxy:
    """Forwards both ways; ``async with proxy as bootstrap`` serves on a free port. A
    subclass changes what ``_serve`` does with a client's connection."""

    def __init__(self, upstream: str) -> None:
        self.host, port = upstream.rsplit(":", 1)
        self.port = int(port)
        self.server: asyncio.Server | None = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
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


class CountingProxy(BrokerProxy):
    """Counts the connections made through it (bootstraps)."""

    def __init__(self, upstream: str) -> None:
        super().__init__(upstream)
        self.connections = 0

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        await super()._serve(reader, writer)


class MetadataBlackhole(BrokerProxy):
    """Forwards every request but the cluster metadata one (API key 3), which it
    swallows: a client's bootstrap then waits for that answer after its connection is
    open. It notes when a metadata request came and when the client closed its
    connection."""

    METADATA = 3

    def __init__(self, upstream: str) -> None:
        super().__init__(upstream)
        self.asked = asyncio.Event()  # a metadata request arrived (and was swallowed)
        self.closed = asyncio.Event()  # a client closed its connection

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


def unclosed_connections() -> list[str]:
    """ResourceWarnings of Kafka connections the collector finds unclosed now."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gc.collect()
    return [str(w.message) for w in caught if "AIOKafkaConnection" in str(w.message)]
