"""Configuration from environment variables, in one place.

``kafka_settings()`` is the only source of aiokafka keyword arguments in the
project, so every producer, consumer and admin client behaves the same on
the embedded Tansu broker and on Apache Kafka (see shared/BROKER.md):

- producers: ``acks="all"``, **no** idempotence (Tansu rejects
  InitProducerId; consumers de-duplicate by ``(room_id, seq)`` instead);
- consumers: manual commits, ``auto_offset_reset="earliest"`` (Tansu's
  "latest" is wrong), ``fetch_max_wait_ms`` low for latency, and short
  session/heartbeat for quick fail-over of room ownership.

Environment variables:

``KAFKA_BOOTSTRAP_SERVERS``   use this broker; unset: start embedded Tansu
``HAND_KAFKA_PARTITIONS``     partitions per project topic (default 8)
``HAND_KAFKA_REPLICATION``    replication factor of project topics (default 1)
``HAND_EVENTSTORE_URL``       event store database URL (default SQLite file)
``HAND_KAFKA_SECURITY_PROTOCOL`` and friends: TLS / SASL (``kafka_security``)
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from .kafka_security import KafkaSecurity, kafka_security

DEFAULT_PARTITIONS = 8
DEFAULT_EVENTSTORE_URL = "sqlite+aiosqlite:///var/hand-events.db"


@dataclass(frozen=True)
class KafkaSettings:
    """Where the broker is and how every client talks to it."""

    bootstrap_servers: str | None = None
    partitions: int = DEFAULT_PARTITIONS
    replication_factor: int = 1
    client_id: str = "hand"
    linger_ms: int = 0
    fetch_max_wait_ms: int = 100  # an idle consumer asks 10 times a second, not 100
    session_timeout_ms: int = 6000
    heartbeat_interval_ms: int = 1000
    security: KafkaSecurity = field(default_factory=KafkaSecurity)

    @property
    def embedded(self) -> bool:
        """True when no external broker is configured (start Tansu)."""
        return not self.bootstrap_servers

    def with_bootstrap(self, bootstrap_servers: str) -> KafkaSettings:
        """A copy pointing at ``bootstrap_servers`` (e.g. a started Tansu)."""
        return replace(self, bootstrap_servers=bootstrap_servers)

    def _servers(self) -> str:
        if not self.bootstrap_servers:
            raise RuntimeError("no broker: start one or set KAFKA_BOOTSTRAP_SERVERS")
        return self.bootstrap_servers

    def admin_kwargs(self) -> dict[str, Any]:
        """Arguments for ``AIOKafkaAdminClient``."""
        return {"bootstrap_servers": self._servers(), "client_id": f"{self.client_id}-admin",
                **self.security.kwargs()}

    def producer_kwargs(self) -> dict[str, Any]:
        """Arguments for ``AIOKafkaProducer``: acks=all, no idempotence."""
        return {
            "bootstrap_servers": self._servers(),
            "client_id": self.client_id,
            "acks": "all",
            "enable_idempotence": False,
            "linger_ms": self.linger_ms,
            **self.security.kwargs(),
        }

    def consumer_kwargs(self, group_id: str | None) -> dict[str, Any]:
        """Arguments for ``AIOKafkaConsumer`` in ``group_id`` (manual commits)."""
        return {
            "bootstrap_servers": self._servers(),
            "client_id": self.client_id,
            "group_id": group_id,
            "enable_auto_commit": False,
            "auto_offset_reset": "earliest",
            "fetch_max_wait_ms": self.fetch_max_wait_ms,
            "session_timeout_ms": self.session_timeout_ms,
            "heartbeat_interval_ms": self.heartbeat_interval_ms,
            **self.security.kwargs(),
        }


def _int(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    value = int(raw)
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {value}")
    return value


def kafka_settings(env: Mapping[str, str] | None = None) -> KafkaSettings:
    """Read :class:`KafkaSettings` from ``env`` (default ``os.environ``)."""
    env = os.environ if env is None else env
    return KafkaSettings(
        bootstrap_servers=env.get("KAFKA_BOOTSTRAP_SERVERS", "").strip() or None,
        partitions=_int(env, "HAND_KAFKA_PARTITIONS", DEFAULT_PARTITIONS),
        replication_factor=_int(env, "HAND_KAFKA_REPLICATION", 1),
        fetch_max_wait_ms=_int(env, "HAND_KAFKA_FETCH_WAIT_MS", 100),
        security=kafka_security(env),
    )


def eventstore_url(env: Mapping[str, str] | None = None) -> str:
    """The event store URL from ``HAND_EVENTSTORE_URL`` or the SQLite default."""
    env = os.environ if env is None else env
    return env.get("HAND_EVENTSTORE_URL", "").strip() or DEFAULT_EVENTSTORE_URL
