"""Settings of the auth service (``python -m hand_auth``): its variables, declared once.

The keys every service verifies tokens with are shared (``hand_common.config``); the
signing key is this service's own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from hand_common.config import GrpcServerConfig, IdentityConfig, LogConfig, RateLimitConfig
from hand_common.env import EnvReader, EnvVar, integer, number, read_settings, setting, text
from hand_common.metrics import port_or_off

__all__ = ["LOADERS", "AuthConfig"]

HOST = EnvVar("HAND_AUTH_HOST", "127.0.0.1", "address the auth service listens on", text)
PORT = EnvVar(
    "HAND_AUTH_PORT", "50055",
    "gRPC port of the auth service; 0 picks a free port",
    integer(0, 65535),
)
URL = EnvVar(
    "HAND_AUTH_URL", "sqlite:///var/hand-auth.db",
    "auth database (players, refresh tokens): a SQLite file URL or postgresql://…",
    text,
)
SIGNING_KEY = EnvVar(
    "HAND_AUTH_SIGNING_KEY", "",
    "SECRET, auth service only: base64url Ed25519 private key (32-byte seed) that signs session "
    "tokens; empty: the dev key file",
    text,
)
SESSION_TTL_S = EnvVar(
    "HAND_AUTH_SESSION_TTL_S", "900",
    "seconds a session (access) token is valid",
    number(10, 86_400),
)
REFRESH_TTL_S = EnvVar(
    "HAND_AUTH_REFRESH_TTL_S", "2592000",
    "seconds a refresh token is valid (each refresh replaces it)",
    number(60, 400 * 86_400),
)
METRICS_PORT = EnvVar(
    "HAND_AUTH_METRICS_PORT", "off",
    "Prometheus /metrics port of python -m hand_auth; 0 picks a free port; off: none",
    port_or_off,
)


@dataclass(frozen=True)
class AuthConfig:
    """Settings of the auth service (``python -m hand_auth``)."""

    server: GrpcServerConfig
    log: LogConfig
    url: str = setting(URL, required=True)
    identity: IdentityConfig
    session_ttl_s: float = setting(SESSION_TTL_S, required=True)
    refresh_ttl_s: float = setting(REFRESH_TTL_S, required=True)
    limits: RateLimitConfig = RateLimitConfig()

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> AuthConfig:
        env = EnvReader(environ)
        config = read_settings(
            cls, env,
            server=GrpcServerConfig._read(env, HOST, PORT),
            log=LogConfig._read(env),
            identity=IdentityConfig._read(env, signing_key=env.get(SIGNING_KEY)),
            limits=RateLimitConfig._read(env),
        )
        env.check("auth service")
        return config


#: What builds these settings from an environment (``hand_common.settings_index``).
LOADERS = (AuthConfig.from_env,)
