"""Prometheus metrics: where a process exposes them, and what every metric shares.

One registry per process (``prometheus_client``'s default: ``make run`` puts
every service in one process, so one endpoint shows them all). Each service
has a port variable of its own (``HAND_<SERVICE>_METRICS_PORT``, declared by the
service's settings module): ``off`` (the default for ``python -m``, so processes
started side by side never fight for a port), ``0`` for a free port, or a
port; ``HAND_METRICS_HOST`` is the address (``0.0.0.0`` in a container).
``serve_until_signalled`` starts it for the rules, room, ledger and auth
services; the bot's ``__main__`` and ``hand_run`` start theirs.

``HAND_METRICS_ENABLED`` (``on`` by default) is the process's switch, read once
when this module is first imported: ``off`` makes every instrument defined
through :func:`counter`, :func:`gauge` and :func:`histogram` (every ``hand_``
metric of every service) one shared no-op object — nothing is counted, nothing
is registered, no lock is taken — and :func:`serve_metrics` serves no endpoint
whatever the port variables say. What it saves is measured in the room bench
(``bench/bench_rooms.py --observability-cost``; docs/operations.md, "What it costs").

Conventions (docs/operations.md): every name starts with ``hand_``, carries
its unit (``_seconds``, ``_bytes``; counters end in ``_total``), and labels
take a small fixed set of values — a method, a transport, a status code, a
preset, a level. Never a room id, a player id or a seat token.

Decision: docs/decisions/0021-metrics-and-traces.md.
"""

from __future__ import annotations

import contextlib
import threading
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import structlog
import prometheus_client
from prometheus_client import REGISTRY, CollectorRegistry, start_http_server

from .env import EnvReader, EnvVar, declared, switch

__all__ = [
    "FAST_BUCKETS", "NULL_METRIC", "PORT_VARS", "SLOW_BUCKETS", "MetricsEndpoint", "counter", "enabled", "gauge",
    "histogram", "metrics_port", "port_or_off", "sample", "serve_metrics",
]

log = structlog.get_logger("hand_common.metrics")

#: Latency buckets (seconds) of calls that should take milliseconds (RPCs, appends, produce).
FAST_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
#: Buckets of things that take seconds to hours (a match's length).
SLOW_BUCKETS = (10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1200.0, 1800.0, 3600.0, 7200.0)

METRICS_ENABLED = EnvVar(
    "HAND_METRICS_ENABLED", "on",
    "on or off: off turns every metric of the process into a no-op (nothing counted, no /metrics "
    "endpoint whatever the port variables say); read once, at the process's start",
    switch,
)
METRICS_HOST = EnvVar(
    "HAND_METRICS_HOST", "127.0.0.1",
    "address the Prometheus /metrics endpoint listens on (0.0.0.0 in a container)"
)

#: The port variable of each process name (``serve_until_signalled``'s ``name``).
PORT_VARS: Mapping[str, str] = {
    "hand_rules": "HAND_RULES_METRICS_PORT",
    "hand_room": "HAND_ROOM_METRICS_PORT",
    "hand_ledger": "HAND_LEDGER_METRICS_PORT",
    "hand_bot": "HAND_BOT_METRICS_PORT",
    "hand_auth": "HAND_AUTH_METRICS_PORT",
    "hand_run": "HAND_RUN_METRICS_PORT",
}


class _NullMetric:
    """What every instrument is while metrics are off: each method a no-op, ``labels`` itself.
    Covers what the services call on a ``Counter``, ``Gauge`` or ``Histogram`` (and their children)."""

    __slots__ = ()

    def labels(self, *_values: Any, **_labels: Any) -> _NullMetric:
        return self

    def inc(self, amount: float = 1, exemplar: Any = None) -> None:
        pass

    def dec(self, amount: float = 1) -> None:
        pass

    def set(self, value: float) -> None:
        pass

    def observe(self, amount: float, exemplar: Any = None) -> None:
        pass

    def remove(self, *_values: Any) -> None:
        pass

    def clear(self) -> None:
        pass

    def time(self) -> Any:
        return contextlib.nullcontext()

    def __repr__(self) -> str:
        return "NULL_METRIC"


#: The one instrument of a process whose metrics are off.
NULL_METRIC: Any = _NullMetric()


def _read_switch(environ: Mapping[str, str] | None = None) -> bool:
    """``HAND_METRICS_ENABLED``; an invalid value counts as ``on`` here (``metrics_port``, which
    every service calls before it starts, reports it as a ``ConfigError``)."""
    return EnvReader(environ).get(METRICS_ENABLED)


_ENABLED = _read_switch()


def enabled() -> bool:
    """Whether this process's instruments count (``HAND_METRICS_ENABLED`` at its start)."""
    return _ENABLED


class _CachedLabels:
    """``labels(*values)`` in one dict look-up once a label set has been seen: prometheus-client
    builds a tuple of ``str()`` of every value and takes the metric's lock on every call, and the
    hot paths call ``labels`` per command, per record produced (``COMMANDS``, ``ACT_TO_COMMIT``,
    ``PRODUCE_SECONDS`` …). The cache is emptied by ``remove`` and ``clear``; keyword labels take
    the library's path."""

    _hand_children: dict[tuple[Any, ...], Any]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._hand_children = {}

    def labels(self, *values: Any, **kwargs: Any) -> Any:
        if kwargs:
            return super().labels(*values, **kwargs)  # type: ignore[misc]
        child = self._hand_children.get(values)
        if child is None:
            child = self._hand_children[values] = super().labels(*values)  # type: ignore[misc]
        return child

    def remove(self, *values: Any) -> None:
        self._hand_children = {}
        super().remove(*values)  # type: ignore[misc]

    def remove_by_labels(self, labels: dict[str, str]) -> None:
        self._hand_children = {}
        super().remove_by_labels(labels)  # type: ignore[misc]

    def clear(self) -> None:
        self._hand_children = {}
        super().clear()  # type: ignore[misc]


class _Counter(_CachedLabels, prometheus_client.Counter):
    pass


class _Gauge(_CachedLabels, prometheus_client.Gauge):
    pass


class _Histogram(_CachedLabels, prometheus_client.Histogram):
    def observe(self, amount: float, exemplar: dict[str, str] | None = None) -> None:
        """The library's ``observe`` with its bucket found by bisection, not a walk over the bounds."""
        if exemplar or amount != amount:  # an exemplar, or NaN (counted in no bucket): the library's way
            super().observe(amount, exemplar)
            return
        self._raise_if_not_observable()
        self._sum.inc(amount)
        self._buckets[bisect_left(self._upper_bounds, amount)].inc(1)


def counter(name: str, documentation: str, labelnames: Sequence[str] = (), **kwargs: Any) -> Any:
    """A ``prometheus_client.Counter`` in the default registry, or ``NULL_METRIC`` while metrics are off."""
    return _Counter(name, documentation, labelnames, **kwargs) if _ENABLED else NULL_METRIC


def gauge(name: str, documentation: str, labelnames: Sequence[str] = (), **kwargs: Any) -> Any:
    """A ``prometheus_client.Gauge`` in the default registry, or ``NULL_METRIC`` while metrics are off."""
    return _Gauge(name, documentation, labelnames, **kwargs) if _ENABLED else NULL_METRIC


def histogram(name: str, documentation: str, labelnames: Sequence[str] = (), **kwargs: Any) -> Any:
    """A ``prometheus_client.Histogram`` in the default registry, or ``NULL_METRIC`` while metrics are off."""
    return _Histogram(name, documentation, labelnames, **kwargs) if _ENABLED else NULL_METRIC


def port_or_off(env: EnvReader, var: EnvVar[int | None]) -> int | None:
    """The parser of a ``HAND_<SERVICE>_METRICS_PORT``: a port (0: a free one), or ``None`` for ``off``."""
    if env.raw(var).lower() == "off":
        return None
    return env.integer(var, 0, 65535)


def metrics_port(port_var: str | EnvVar[int | None], environ: Mapping[str, str] | None = None) -> int | None:
    """The configured metrics port: ``None`` when ``off`` (or metrics are off: ``HAND_METRICS_ENABLED``
    in ``environ``, or in this process at its start); raises ``ConfigError`` when invalid.
    ``port_var``: the variable, or its name (KeyError: a variable nobody declares)."""
    env = EnvReader(environ)
    port = env.get(declared(port_var) if isinstance(port_var, str) else port_var)
    on = env.get(METRICS_ENABLED)
    env.check("metrics")
    return port if on and _ENABLED else None


@dataclass
class MetricsEndpoint:
    """A running ``/metrics`` HTTP server (its own thread): ``target``, ``stop()``."""

    host: str
    port: int
    _server: Any
    _thread: threading.Thread

    @property
    def target(self) -> str:
        host = {"0.0.0.0": "127.0.0.1", "::": "[::1]"}.get(self.host, self.host)
        return f"{host}:{self.port}"

    @property
    def url(self) -> str:
        return f"http://{self.target}/metrics"

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def serve_metrics(port_var: str | EnvVar[int | None], environ: Mapping[str, str] | None = None,
                  registry: CollectorRegistry = REGISTRY) -> MetricsEndpoint | None:
    """Start the exposition server on ``HAND_METRICS_HOST`` and the port ``port_var`` names
    (``None``: off, or metrics off). ``OSError`` when the port cannot be bound, as for a gRPC port."""
    port = metrics_port(port_var, environ)
    if port is None:
        if not (_ENABLED and EnvReader(environ).get(METRICS_ENABLED)):
            log.info("metrics_off", variable=METRICS_ENABLED.name)
        return None
    host = EnvReader(environ).get(METRICS_HOST)
    server, thread = start_http_server(port, addr=host, registry=registry)
    endpoint = MetricsEndpoint(host, server.server_port, server, thread)
    log.info("metrics_listening", address=endpoint.target,
             variable=port_var if isinstance(port_var, str) else port_var.name)
    return endpoint


def sample(name: str, labels: Mapping[str, str] | None = None,
           registry: CollectorRegistry = REGISTRY) -> float:
    """The current value of one sample (0.0 when absent): for tests and the bench."""
    value = registry.get_sample_value(name, dict(labels or {}))
    return 0.0 if value is None else value
