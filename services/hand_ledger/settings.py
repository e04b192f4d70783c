"""Settings of the scoring ledger (``python -m hand_ledger``): its variables, declared once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from hand_common.config import GrpcServerConfig, IdentityConfig, LogConfig, RateLimitConfig
from hand_common.env import EnvReader, EnvVar, integer, number, raw, read_settings, setting, text
from hand_common.metrics import port_or_off

__all__ = ["DEV_HANDLE_SECRET", "LOADERS", "LedgerConfig"]

DEV_HANDLE_SECRET = b"hand-dev-handle-secret"  # HAND_LEDGER_HANDLE_SECRET unset: development only


def _secret(env: EnvReader, var: EnvVar[bytes]) -> bytes:
    return env.raw(var).encode() or DEV_HANDLE_SECRET


HOST = EnvVar("HAND_LEDGER_HOST", "127.0.0.1", "address the ledger service listens on", text)
PORT = EnvVar(
    "HAND_LEDGER_PORT", "50053",
    "gRPC port of the ledger service; 0 picks a free port",
    integer(0, 65535),
)
URL = EnvVar(
    "HAND_LEDGER_URL", "sqlite:///var/hand-ledger.db",
    "ledger database: a SQLite file URL or postgresql://user:pw@host/db",
    text,
)
GROUP = EnvVar("HAND_LEDGER_GROUP", "hand-ledger", "consumer group of the ledger replicas", text)
EVENTSTORE_URL = EnvVar(
    "HAND_LEDGER_EVENTSTORE_URL", "",
    "the room service's event store, read-only: a room whose next event does not arrive from the "
    "broker in time is completed from it; empty: no repair",
    text,
)
HANDLE_SECRET = EnvVar(
    "HAND_LEDGER_HANDLE_SECRET", "",
    "SECRET: key of players' public handles (HMAC-SHA256 of the account id, docs/privacy.md); empty: "
    "a fixed development key (not for production); changing it changes every handle",
    _secret,
)
REPAIR_AFTER_S = EnvVar(
    "HAND_LEDGER_REPAIR_AFTER_S", "3",
    "seconds without progress (a gap, or silence in an open match) before the ledger reads a room's "
    "missing events from the event store",
    number(0.1, 3600),
)
DISCOVER_S = EnvVar(
    "HAND_LEDGER_DISCOVER_S", "5",
    "seconds between two scans of the event store's outbox for rooms the ledger has not archived to "
    "their end (rooms whose every event the broker lost); needs HAND_LEDGER_EVENTSTORE_URL",
    number(0.1, 3600),
)
DISCOVER_BATCH = EnvVar(
    "HAND_LEDGER_DISCOVER_BATCH", "500",
    "outbox rows one discovery scan reads at most",
    integer(1, 100_000),
)
MIN_SEQ_WAIT_S = EnvVar(
    "HAND_LEDGER_MIN_SEQ_WAIT_S", "5",
    "seconds a GetScoreSheet / GetMatchResult with min_seq waits at most for the ledger to record the"
    " room up to that seq before refusing it UNAVAILABLE / LEDGER_BEHIND",
    number(0.0, 60),
)
ROOM_ADDRESS = EnvVar(
    "HAND_LEDGER_ROOM_ADDRESS", "",
    "host:port of the room service the ledger's tournaments create their tables' rooms with "
    "(docs/decisions/0029); several room instances: host:port,host:port,... (table k at the k-th, "
    "the next one when it does not answer); empty: tournaments cannot be started",
    raw,
)
METRICS_PORT = EnvVar(
    "HAND_LEDGER_METRICS_PORT", "off",
    "Prometheus /metrics port of python -m hand_ledger; 0 picks a free port; off: none",
    port_or_off,
)


@dataclass(frozen=True)
class LedgerConfig:
    """Settings of the scoring ledger (``python -m hand_ledger``)."""

    server: GrpcServerConfig
    log: LogConfig
    url: str = setting(URL, required=True)
    group_id: str = setting(GROUP, required=True)
    limits: RateLimitConfig = RateLimitConfig()
    identity: IdentityConfig = IdentityConfig()
    eventstore_url: str = setting(EVENTSTORE_URL)
    repair_after_s: float = setting(REPAIR_AFTER_S)
    discover_s: float = setting(DISCOVER_S)
    discover_batch: int = setting(DISCOVER_BATCH)
    min_seq_wait_s: float = setting(MIN_SEQ_WAIT_S)
    room_address: str = setting(ROOM_ADDRESS)
    handle_secret: bytes = setting(HANDLE_SECRET, repr=False)  # a secret: never in a log

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> LedgerConfig:
        env = EnvReader(environ)
        config = read_settings(
            cls, env,
            server=GrpcServerConfig._read(env, HOST, PORT),
            log=LogConfig._read(env),
            limits=RateLimitConfig._read(env),
            identity=IdentityConfig._read(env),
        )
        env.check("ledger service")
        return config


#: What builds these settings from an environment (``hand_common.settings_index``).
LOADERS = (LedgerConfig.from_env,)
