"""Settings of the rules service (``python -m hand_rules``): its variables, declared once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from hand_common.config import GrpcServerConfig, IdentityConfig, LogConfig, RateLimitConfig
from hand_common.env import EnvReader, EnvVar, integer, text
from hand_common.metrics import port_or_off

__all__ = ["LOADERS", "RulesConfig"]

HOST = EnvVar(
    "HAND_RULES_HOST", "127.0.0.1",
    "address the rules service listens on (0.0.0.0 in a container)",
    text,
)
PORT = EnvVar(
    "HAND_RULES_PORT", "50051",
    "gRPC port of the rules service; 0 picks a free port",
    integer(0, 65535),
)
METRICS_PORT = EnvVar(
    "HAND_RULES_METRICS_PORT", "off",
    "Prometheus /metrics port of python -m hand_rules; 0 picks a free port; off: none",
    port_or_off,
)


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
            server=GrpcServerConfig._read(env, HOST, PORT),
            log=LogConfig._read(env),
            # its callers are the room instances, many rooms each: no per-peer bucket
            limits=RateLimitConfig._read(env).internal(),
            identity=IdentityConfig._read(env),
        )
        env.check("rules service")
        return config


#: What builds these settings from an environment (``hand_common.settings_index``).
LOADERS = (RulesConfig.from_env,)
