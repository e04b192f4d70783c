"""``python -m hand_run`` (``make run``): the whole backend as one local process.

A development launcher, not a deployment: every component runs in-process on
one event loop, configured from the same environment variables as its own
service. Components start in list order and stop in reverse order; one that
fails to start stops those already started. A component whose class sets
``alongside = True`` needs nothing from the one listed just before it and starts
together with it: the bots' and the ledger's consumer groups each wait about
half their session timeout to be joined (3 s), and wait it at the same time.
To add a service (broker, room, bot, ledger, auth), give it ``name``,
``target``, ``async start()`` and ``async stop()`` and append a factory to
``COMPONENTS``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from hand_common.grpc_core import use_services_io

# ``python -m hand_run`` imports this package first, and the imports below import grpc,
# which reads these once. The broker keeper starts the broker with subprocess (fork +
# exec) while the gRPC servers run in this process: gRPC's fork handlers (for a fork
# without exec) could crash the child before its exec.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")
use_services_io()  # the servers' socket I/O as in the image (hand_common.grpc_core)

from hand_auth import AuthConfig
from hand_infra.broker import TansuBroker
from hand_infra.settings import KafkaSettings, eventstore_url, kafka_settings
from hand_infra.topics import ensure_topics
from hand_ledger import LedgerConfig
from hand_room import RoomConfig
from hand_rules import RulesConfig, RulesServer
from hand_web.settings import WebConfig

from .bots import Bots
from .keeper import BrokerKeeper
from .settings import METRICS_PORT, EmbeddedBrokerConfig

__all__ = ["COMPONENTS", "Component", "build", "run"]


class Component(Protocol):
    """Something ``hand_run`` starts and stops."""

    name: str

    @property
    def target(self) -> str:
        """Where clients on this machine reach it (``host:port``)."""
        ...

    async def start(self) -> None: ...

    async def stop(self) -> None: ...


@dataclasses.dataclass
class Stack:
    """What components learn from those started before them (addresses)."""

    kafka: KafkaSettings | None = None
    rules_target: str = ""
    room_target: str = ""
    #: (servicer, service descriptor, its interceptors) of each gRPC service, also served to browsers by ``Web``
    servicers: list = dataclasses.field(default_factory=list)


class Broker:
    """The embedded Tansu broker (or the configured Kafka), with the project's topics.
    An embedded broker that dies is started again on its port (keeper.BrokerKeeper)."""

    name = "broker"

    def __init__(self, environ: Mapping[str, str] | None, stack: Stack) -> None:
        self.settings = kafka_settings(environ)
        embedded = EmbeddedBrokerConfig.from_env(environ)
        self.port, self.max_rss_bytes = embedded.port, embedded.max_rss_mb * 2**20
        self.stack = stack
        self.keeper: BrokerKeeper | None = None

    @property
    def target(self) -> str:
        return self.stack.kafka.bootstrap_servers if self.stack.kafka else ""

    async def start(self) -> None:
        settings = self.settings
        if settings.embedded:
            tansu = TansuBroker(port=self.port or None)
            await tansu.start()
            settings = settings.with_bootstrap(tansu.bootstrap_servers)
            self.keeper = BrokerKeeper(tansu, settings, max_rss_bytes=self.max_rss_bytes)
        await ensure_topics(settings)
        if self.keeper is not None:
            await self.keeper.start()
        self.stack.kafka = settings

    async def stop(self) -> None:
        if self.keeper is not None:
            await self.keeper.stop()
            await self.keeper.tansu.stop()


class _Served:
    """A component that runs one ``server`` (made by its ``start``)."""

    server: Any = None

    @property
    def target(self) -> str:
        return self.server.target if self.server else ""

    async def stop(self) -> None:
        if self.server is not None:
            await self.server.stop()


class Rules(RulesServer):
    def __init__(self, environ: Mapping[str, str] | None, stack: Stack) -> None:
        config = RulesConfig.from_env(environ)
        super().__init__(config.server, limits=config.limits, identity=config.identity)
        self.stack = stack

    async def start(self) -> None:
        await super().start()
        self.stack.rules_target = self.target
        self.stack.servicers.append(self.browser_service)


class Room(_Served):
    """One room-service instance; its owner runs the engine in-process (set
    HAND_RULES_ADDRESS to make it call a rules service instead)."""

    name = "room"

    def __init__(self, environ: Mapping[str, str] | None, stack: Stack) -> None:
        self.config = RoomConfig.from_env(environ)
        ledger = LedgerConfig.from_env(environ).server
        if not self.config.ledger_address and ledger.port:  # play now rates players by this stack's ledger
            self.config = dataclasses.replace(self.config, ledger_address=ledger.dial_target(ledger.port))
        self.store_url = eventstore_url(environ)
        self.stack = stack

    async def start(self) -> None:
        from hand_room import RoomServer

        self.server = RoomServer(self.config, self.stack.kafka, self.store_url)
        await self.server.start()
        self.stack.servicers.append(self.server.browser_service)
        self.stack.room_target = self.server.target


class Metrics:
    """The process's Prometheus endpoint (every service's metrics: one process, one registry;
    ``HAND_RUN_METRICS_PORT``), and tracing when ``HAND_OTLP_ENDPOINT`` is set."""

    name = "metrics"

    def __init__(self, environ: Mapping[str, str] | None, stack: Stack) -> None:
        from hand_common.metrics import metrics_port

        self.environ = environ
        metrics_port(METRICS_PORT, environ)  # an invalid value fails before anything starts
        self.endpoint: Any = None

    @property
    def target(self) -> str:
        return self.endpoint.target if self.endpoint is not None else "off"

    async def start(self) -> None:
        from hand_common.metrics import serve_metrics
        from hand_common.tracing import configure_tracing

        configure_tracing("hand_run", self.environ)
        self.endpoint = serve_metrics(METRICS_PORT, self.environ)

    async def stop(self) -> None:
        if self.endpoint is not None:
            self.endpoint.stop()
            self.endpoint = None


class Ledger(_Served):
    """One scoring-ledger replica, consuming the room events of the broker above."""

    name = "ledger"
    alongside = True  # needs the broker and the room (above the bots), not the bots

    def __init__(self, environ: Mapping[str, str] | None, stack: Stack) -> None:
        self.config = LedgerConfig.from_env(environ)
        self.stack = stack

    async def start(self) -> None:
        from hand_ledger import LedgerServer

        config = self.config
        if not config.room_address and self.stack.room_target:  # tournaments make rooms here
            config = dataclasses.replace(config, room_address=self.stack.room_target)
        self.server = LedgerServer(config, self.stack.kafka)
        await self.server.start()
        self.stack.servicers.extend(self.server.browser_services)

    async def stop(self) -> None:
        if self.server is not None:
            await self.server.stop()


class Web(_Served):
    """Connect + gRPC-Web for the services above, and the web app (``hand_web``)."""

    name = "web"

    def __init__(self, environ: Mapping[str, str] | None, stack: Stack) -> None:
        self.config = WebConfig.from_env(environ)
        self.stack = stack
        self.server = None

    @property
    def url(self) -> str:
        return self.server.url if self.server else ""

    async def start(self) -> None:
        from hand_web.server import WebServer

        self.server = WebServer(self.config, self.stack.servicers)
        await self.server.start()


class Auth(_Served):
    """The auth service (player identity), signing with the development key under var/."""

    name = "auth"
    alongside = True  # needs nothing started before it

    def __init__(self, environ: Mapping[str, str] | None, stack: Stack) -> None:
        self.config = AuthConfig.from_env(environ)
        self.stack = stack

    async def start(self) -> None:
        from hand_auth import AuthServer

        self.server = AuthServer(self.config)
        await self.server.start()
        self.stack.servicers.append(self.server.browser_service)  # the web app signs in through it


#: Factories (environment, shared stack → component), in start order.
COMPONENTS: list[Callable[[Mapping[str, str] | None, Stack], Component]] = [
    Metrics, Broker, Rules, Room, Bots, Ledger, Auth, Web]


def build(environ: Mapping[str, str] | None = None) -> list[Component]:
    """Every component, configured from ``environ`` (default: the process environment).

    Raises ``hand_common.env.ConfigError`` before anything starts.
    """
    stack = Stack()
    return [factory(environ, stack) for factory in COMPONENTS]


def client_hint(components: Sequence[Component]) -> str:
    """How to point a client (or the conformance client) at what is running."""
    names = {"broker": "KAFKA_BOOTSTRAP_SERVERS", "rules": "HAND_RULES_ADDR", "room": "HAND_ROOM_ADDR",
             "ledger": "HAND_LEDGER_ADDR", "auth": "HAND_AUTH_ADDR"}
    pairs = [f"{names[c.name]}={c.target}" for c in components if c.name in names and c.target]
    return ("hand: clients connect with " + " ".join(pairs)
            + " (public events: topic hand.room-events-public; docs/clients.md)")


async def run(components: Sequence[Component], stop: asyncio.Event,
              announce: Callable[[str], None] = print) -> None:
    """Start ``components`` in order (an ``alongside`` one with the one before it), wait
    for ``stop``, stop them in reverse order."""
    started: list[Component] = []
    try:
        for group in _start_groups(components):
            results = await asyncio.gather(*(c.start() for c in group), return_exceptions=True)
            for component, result in zip(group, results, strict=True):
                if not isinstance(result, BaseException):
                    started.append(component)
                    announce(f"{component.name}: listening on {component.target}")
            failed = next((r for r in results if isinstance(r, BaseException)), None)
            if failed is not None:
                raise failed
        announce(client_hint(started))
        for component in started:
            if getattr(component, "url", ""):
                announce(f"{component.name}: open {component.url} in a browser")
        announce("hand: running; Ctrl-C stops")
        await stop.wait()
    finally:
        for component in reversed(started):
            await component.stop()
        if started:
            announce("hand: stopped")


def _start_groups(components: Sequence[Component]) -> list[list[Component]]:
    """Consecutive components started together: each ``alongside`` one joins the group before it."""
    groups: list[list[Component]] = []
    for component in components:
        if groups and getattr(component, "alongside", False):
            groups[-1].append(component)
        else:
            groups.append([component])
    return groups
