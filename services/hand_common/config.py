"""The settings every service shares, as building blocks: logging, a gRPC server's address
and limits, TLS, load shedding and session-token identity; and the table of deployable services.

Each service declares its own variables and builds its own settings dataclass in its own
package (``hand_rules.settings``, ``hand_room.settings``, …) from these blocks;
``hand_common.env`` reads them and ``hand_common.settings_index`` collects them all
(docs/decisions/0032-configuration-per-service.md).
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .env import EnvReader, EnvVar, choice, declared, integer, number, read_settings, setting, text

__all__ = [
    "LOADERS",
    "LOG_FORMATS",
    "LOG_LEVELS",
    "SERVICES",
    "GrpcServerConfig",
    "IdentityConfig",
    "LogConfig",
    "RateLimitConfig",
    "ServiceSpec",
]

LOG_FORMATS = ("auto", "json", "console")
LOG_LEVELS = ("debug", "info", "warning", "error", "critical")
MAX_GRPC_MESSAGE_BYTES = 2**31 - 1  # gRPC message lengths are int32


def _keys(env: EnvReader, var: EnvVar[tuple[str, ...]]) -> tuple[str, ...]:
    return tuple(k.strip() for k in env.raw(var).split(",") if k.strip())


def _dev_key_file(env: EnvReader, var: EnvVar[str]) -> str:
    value = env.text(var)
    return "" if value.lower() == "off" else value


# --- logging and gRPC servers (every service) ---
LOG_FORMAT = EnvVar(
    "HAND_LOG_FORMAT", "auto",
    "auto (console in a terminal, JSON otherwise), json or console",
    choice(*LOG_FORMATS),
)
LOG_LEVEL = EnvVar("HAND_LOG_LEVEL", "info", "debug, info, warning, error or critical", choice(*LOG_LEVELS))
LOG_CALL_CHOICES = ("all", "refused")
LOG_CALLS = EnvVar(
    "HAND_LOG_CALLS", "refused",
    "the one `rpc` line per call at info: for every call (all), or only for calls that did not "
    "end OK (refused; an OK call's line is at debug)",
    choice(*LOG_CALL_CHOICES),
)
EVENT_LOOPS = ("uvloop", "asyncio")
EVENT_LOOP = EnvVar(
    "HAND_EVENT_LOOP", "uvloop",
    "the event loop a service process runs on: uvloop (libuv) or asyncio (the standard library's)",
    choice(*EVENT_LOOPS),
)
GC_SWEEP_S = EnvVar(
    "HAND_GC_SWEEP_S", "600",
    "a service process freezes what survives each garbage collection of generation 1 or 2, "
    "so a full collection has next to nothing to walk (no long pauses with thousands of rooms "
    "in memory), and walks everything once every this many seconds; 0: Python's default "
    "collector (hand_common/gc_policy.py)",
    number(0, 86_400),
)
GRPC_MAX_MESSAGE_BYTES = EnvVar(
    "HAND_GRPC_MAX_MESSAGE_BYTES", "1048576",
    "largest gRPC message received or sent, in bytes; bigger requests fail with RESOURCE_EXHAUSTED",
    integer(1024, MAX_GRPC_MESSAGE_BYTES),
)
GRPC_WORKERS = EnvVar(
    "HAND_GRPC_WORKERS", "4",
    "worker threads a gRPC server may use for CPU-bound calls",
    integer(1, 256),
)
GRPC_MAX_PENDING_CALLS = EnvVar(
    "HAND_GRPC_MAX_PENDING_CALLS", "25",
    "calls a gRPC server's runtime holds before the service takes them (its backlog); past it "
    "a growing share of new calls, all of them at 3x, is refused at once CANCELLED before any "
    "of the service's code runs, so that overload is shed instead of queued (0: grpcio's "
    "default, 1,000 / 3,000; docs/decisions/0040-overload-at-the-edge.md)",
    integer(0, 100_000),
)
GRPC_MAX_IN_FLIGHT = EnvVar(
    "HAND_GRPC_MAX_IN_FLIGHT", "0",
    "unary calls a gRPC server works on at once; the next is refused at once OVERLOADED "
    "(RESOURCE_EXHAUSTED, retry_after_ms) so that what it accepts is served in bounded time "
    "(Little's law: the bound / the throughput); streams are not counted; 0: off "
    "(hand_common/in_flight.py)",
    integer(0, 100_000),
)
SHUTDOWN_GRACE_S = EnvVar(
    "HAND_SHUTDOWN_GRACE_S", "5",
    "seconds in-flight calls get to finish after SIGTERM",
    number(0, 300),
)
TLS_CERT_FILE = EnvVar(
    "HAND_TLS_CERT_FILE", "",
    "PEM certificate chain a gRPC server presents; empty: plaintext (loopback, tests)",
    text,
)
TLS_KEY_FILE = EnvVar("HAND_TLS_KEY_FILE", "", "PEM private key of HAND_TLS_CERT_FILE (a Secret)", text)
TLS_CLIENT_CA_FILE = EnvVar(
    "HAND_TLS_CLIENT_CA_FILE", "",
    "PEM CA bundle; set: a gRPC server requires client certificates it signed (mTLS)",
    text,
)
TLS_CA_FILE = EnvVar(
    "HAND_TLS_CA_FILE", "",
    "PEM CA bundle a service verifies the gRPC servers it dials against (TLS on)"
)
# --- load shedding (hand_common.ratelimit; every gRPC service) ---
RATE_PLAYER_PER_S = EnvVar(
    "HAND_RATE_PLAYER_PER_S", "20",
    "requests a second per signed-in player (token bucket); 0: no limit",
    number(0, 1e6),
)
RATE_PLAYER_BURST = EnvVar(
    "HAND_RATE_PLAYER_BURST", "40",
    "burst of requests per signed-in player",
    integer(1, 10**6),
)
RATE_PEER_PER_S = EnvVar(
    "HAND_RATE_PEER_PER_S", "100",
    "requests a second per peer address (IP), signed in or not; 0: no limit",
    number(0, 1e6),
)
RATE_PEER_BURST = EnvVar(
    "HAND_RATE_PEER_BURST", "200",
    "burst of requests per peer address",
    integer(1, 10**6),
)
STREAMS_PER_PLAYER = EnvVar(
    "HAND_STREAMS_PER_PLAYER", "4",
    "server streams (Watch) open at once per signed-in player; 0: no limit",
    integer(0, 10**6),
)
STREAMS_PER_PEER = EnvVar(
    "HAND_STREAMS_PER_PEER", "16",
    "server streams (Watch) open at once per peer address; 0: no limit",
    integer(0, 10**6),
)
RATE_TRACKED_KEYS = EnvVar(
    "HAND_RATE_TRACKED_KEYS", "100000",
    "players and peers tracked at once; the least recently seen are dropped",
    integer(100, 10**8),
)
# --- session tokens: verified by every service (hand_auth signs them: hand_auth.settings) ---
AUTH_PUBLIC_KEYS = EnvVar(
    "HAND_AUTH_PUBLIC_KEYS", "",
    "comma-separated base64url Ed25519 public keys whose session tokens are accepted (several during "
    "a key rotation); empty: the dev key file's",
    _keys,
)
AUTH_DEV_KEY_FILE = EnvVar(
    "HAND_AUTH_DEV_KEY_FILE", "var/hand-auth-dev.key",
    "development only: signing key generated on first use when no key is set; off: none (a service "
    "without keys then refuses to start)",
    _dev_key_file,
)
AUTH_ISSUER = EnvVar("HAND_AUTH_ISSUER", "hand-auth", "iss claim of session tokens (checked on verify)", text)


@dataclass(frozen=True)
class LogConfig:
    """How a process logs: ``format`` is auto, json or console; ``level`` a level name. And
    the event loop it runs on (``hand_common.event_loop``) and how it collects garbage
    (``hand_common.gc_policy``): read once at start-up, beside the logging, by every
    service's ``__main__``."""

    format: str = setting(LOG_FORMAT)
    level: str = setting(LOG_LEVEL)
    calls: str = setting(LOG_CALLS)
    event_loop: str = setting(EVENT_LOOP)
    gc_sweep_s: float = setting(GC_SWEEP_S)

    @classmethod
    def _read(cls, env: EnvReader) -> LogConfig:
        return read_settings(cls, env)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> LogConfig:
        env = EnvReader(environ)
        config = cls._read(env)
        env.check("logging")
        return config


@dataclass(frozen=True)
class GrpcServerConfig:
    """Where and how a gRPC server listens (host and port: the service's own variables)."""

    host: str
    port: int
    max_message_bytes: int = setting(GRPC_MAX_MESSAGE_BYTES, required=True)
    workers: int = setting(GRPC_WORKERS, required=True)
    max_pending_calls: int = setting(GRPC_MAX_PENDING_CALLS, required=True)
    max_in_flight: int = setting(GRPC_MAX_IN_FLIGHT, required=True)
    shutdown_grace_s: float = setting(SHUTDOWN_GRACE_S, required=True)
    tls_cert_file: str = setting(TLS_CERT_FILE)
    tls_key_file: str = setting(TLS_KEY_FILE)
    tls_client_ca_file: str = setting(TLS_CLIENT_CA_FILE)

    @classmethod
    def _read(cls, env: EnvReader, host_var: EnvVar[str], port_var: EnvVar[int]) -> GrpcServerConfig:
        config = read_settings(cls, env, host=env.get(host_var), port=env.get(port_var))
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

    def server_options(self) -> list[tuple[str, int]]:
        """The channel options, and the server's backlog of calls not yet taken by the
        service: refusals begin at ``max_pending_calls`` and grow to every call at 3x."""
        backlog = [("grpc.server.max_pending_requests", self.max_pending_calls),
                   ("grpc.server.max_pending_requests_hard_limit", 3 * self.max_pending_calls)] \
            if self.max_pending_calls else []
        return [*self.channel_options(), *backlog]


@dataclass(frozen=True)
class RateLimitConfig:
    """Load shedding of a gRPC server (``hand_common.ratelimit``); 0 turns a limit off."""

    player_per_s: float = setting(RATE_PLAYER_PER_S)
    player_burst: int = setting(RATE_PLAYER_BURST)
    peer_per_s: float = setting(RATE_PEER_PER_S)
    peer_burst: int = setting(RATE_PEER_BURST)
    streams_per_player: int = setting(STREAMS_PER_PLAYER)
    streams_per_peer: int = setting(STREAMS_PER_PEER)
    tracked_keys: int = setting(RATE_TRACKED_KEYS)

    @classmethod
    def _read(cls, env: EnvReader) -> RateLimitConfig:
        return read_settings(cls, env)

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

    ``signing_key`` is a secret (``HAND_AUTH_SIGNING_KEY``, read by ``hand_auth.settings``
    only): left out of ``repr`` so it never reaches a log line.
    """

    public_keys: tuple[str, ...] = setting(AUTH_PUBLIC_KEYS)
    dev_key_file: str = setting(AUTH_DEV_KEY_FILE)
    issuer: str = setting(AUTH_ISSUER)
    signing_key: str = field(default="", repr=False)  # "": this process verifies, never signs

    @classmethod
    def _read(cls, env: EnvReader, *, signing_key: str | None = None) -> IdentityConfig:
        """``signing_key``: given by a signer (the auth service), which then needs a key of its own."""
        config = read_settings(cls, env, signing_key=signing_key or "")
        if not config.dev_key_file and not (signing_key if signing_key is not None else config.public_keys):
            env.problems.append(
                ("HAND_AUTH_SIGNING_KEY" if signing_key is not None else "HAND_AUTH_PUBLIC_KEYS")
                + " is empty and HAND_AUTH_DEV_KEY_FILE=off: no key for session tokens")
        return config

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> IdentityConfig:
        env = EnvReader(environ)
        config = cls._read(env)
        env.check("identity")
        return config


#: What builds the shared settings from an environment (``hand_common.settings_index``).
LOADERS: tuple[Callable[[Mapping[str, str]], Any], ...] = (
    LogConfig.from_env, RateLimitConfig.from_env, IdentityConfig.from_env,
)


@dataclass(frozen=True)
class ServiceSpec:
    """A deployable service: its short name, the module ``python -m`` runs, its port variable."""

    name: str
    module: str
    port_var: str

    @property
    def default_port(self) -> int:
        """The port variable's default, declared by the service's own settings module."""
        importlib.import_module(f"{self.module}.settings")
        return int(declared(self.port_var).default)


SERVICES: Mapping[str, ServiceSpec] = MappingProxyType(
    {
        "rules": ServiceSpec(name="rules", module="hand_rules", port_var="HAND_RULES_PORT"),
        "room": ServiceSpec(name="room", module="hand_room", port_var="HAND_ROOM_PORT"),
        "bot": ServiceSpec(name="bot", module="hand_bot", port_var="HAND_BOT_PORT"),
        "ledger": ServiceSpec(name="ledger", module="hand_ledger", port_var="HAND_LEDGER_PORT"),
        "auth": ServiceSpec(name="auth", module="hand_auth", port_var="HAND_AUTH_PORT"),
    }
)
