"""The broker port: the few broker operations the services use, and where their clients
come from (docs/decisions/0037-in-memory-broker.md).

A service never constructs a Kafka client itself: it asks its :class:`BrokerPort` for

- ``producer(settings)``: ``start`` / ``stop`` / ``flush``, ``send(topic, key=, value=,
  headers=)`` (a coroutine whose result is the record's ack future) and ``send_and_wait``;
- ``consumer(settings, group_id=, assignor=)``: ``subscribe(topics, listener=)`` (a member
  of ``group_id``, its partitions dealt by ``assignor``, the rebalance listener told of
  revocations and assignments) or ``assign(partitions)`` by hand; ``start`` / ``stop``,
  ``getmany``, ``commit``, ``seek_to_end`` / ``seek_to_beginning`` / ``seek``,
  ``position``, ``highwater``, ``end_offsets``, ``assignment``, ``partitions_for_topic``
  and ``topics``;
- the admin side, for :class:`~hand_infra.broker_watch.BrokerWatch` and start-up:
  ``reachable()``, ``list_topics()``, ``ensure_topics(settings, names)``; ``close()``
  releases what the admin side keeps open.

Two implementations: :class:`KafkaBroker` (the default: aiokafka's clients, made with
exactly the arguments the services always gave them, so the real path is unchanged —
the objects returned *are* ``AIOKafkaProducer`` / ``AIOKafkaConsumer``, with no wrapper
on the hot path) and :class:`~hand_infra.memory_broker.MemoryBroker` (in-process:
topics, partitions, offsets, consumer groups; tests and simulations).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable
from typing import Any, Protocol

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.admin import AIOKafkaAdminClient

from hand_infra.client_lifecycle import start_client, stop_in_background
from hand_infra.settings import KafkaSettings
from hand_infra.topics import PROJECT_TOPICS, ensure_topics

__all__ = ["BrokerPort", "KafkaBroker", "kafka_or"]


class BrokerPort(Protocol):
    """Where a service's broker clients come from (see the module doc)."""

    def producer(self, settings: KafkaSettings) -> Any: ...

    def consumer(self, settings: KafkaSettings, *, group_id: str | None = None,
                 assignor: type | None = None) -> Any: ...

    async def reachable(self) -> bool: ...

    async def list_topics(self) -> set[str]: ...

    async def close(self) -> None: ...

    async def ensure_topics(self, settings: KafkaSettings, names: Iterable[str] = PROJECT_TOPICS,
                            partitions: int | None = None) -> list[str]: ...


def _endpoints(bootstrap: str) -> list[tuple[str, int]]:
    out = []
    for item in bootstrap.split(","):
        host, _, port = item.strip().rpartition(":")
        out.append((host.strip("[]") or "127.0.0.1", int(port)))
    return out


class KafkaBroker:
    """A Kafka-protocol broker (Kafka, Tansu) through aiokafka: the services' default."""

    def __init__(self, settings: KafkaSettings) -> None:
        self.settings = settings  # the admin side's (the watch's probes, ensure_topics)
        self._admin: AIOKafkaAdminClient | None = None  # list_topics' client, kept
        self._admin_lock = asyncio.Lock()

    def producer(self, settings: KafkaSettings) -> AIOKafkaProducer:
        return AIOKafkaProducer(**settings.producer_kwargs())

    def consumer(self, settings: KafkaSettings, *, group_id: str | None = None,
                 assignor: type | None = None) -> AIOKafkaConsumer:
        kwargs = settings.consumer_kwargs(group_id)  # no_auto_create: applied here
        if assignor is not None:
            kwargs["partition_assignment_strategy"] = (assignor,)
        return AIOKafkaConsumer(**kwargs)

    async def reachable(self) -> bool:
        """A TCP connect to any of the bootstrap servers (0.5 s each)."""
        for host, port in _endpoints(self.settings.bootstrap_servers or ""):
            try:
                _, writer = await asyncio.wait_for(asyncio.open_connection(host, port), 0.5)
            except (OSError, TimeoutError):
                continue
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()
            return True
        return False

    async def list_topics(self) -> set[str]:
        """The broker's topics, asked on one kept admin client (the watch asks every 2 s:
        a client of its own each time cost ~0.9 ms of CPU and a connection opened and
        closed). A client that fails is closed, and the next call starts a new one."""
        async with self._admin_lock:
            try:
                if self._admin is None:
                    admin = AIOKafkaAdminClient(**self.settings.admin_kwargs(), request_timeout_ms=3000)
                    self._admin = await start_client(admin, 3)  # one given up on is closed when it ends
                return set(await asyncio.wait_for(self._admin.list_topics(), 3))
            except BaseException:  # its connection may be half-way through a request
                admin, self._admin = self._admin, None
                if admin is not None:
                    stop_in_background(admin)  # a cancelled caller is not held by the close
                raise

    async def close(self) -> None:
        """Close the kept admin client, if any (a later ``list_topics`` starts another)."""
        async with self._admin_lock:
            admin, self._admin = self._admin, None
            if admin is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(admin.close(), 3)

    async def ensure_topics(self, settings: KafkaSettings, names: Iterable[str] = PROJECT_TOPICS,
                            partitions: int | None = None) -> list[str]:
        return await ensure_topics(settings, names, partitions)


def kafka_or(broker: BrokerPort | None, settings: KafkaSettings) -> BrokerPort:
    """``broker``, or aiokafka's clients for ``settings`` (every part's default)."""
    return broker if broker is not None else KafkaBroker(settings)
