"""Settings of the bot service (``python -m hand_bot``): its variables, declared once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from hand_common.config import GrpcServerConfig, LogConfig
from hand_common.env import EnvReader, EnvVar, integer, read_settings, setting, text
from hand_common.metrics import port_or_off

__all__ = ["LOADERS", "BotConfig"]

HOST = EnvVar("HAND_BOT_HOST", "127.0.0.1", "address the bot service's health port listens on", text)
PORT = EnvVar(
    "HAND_BOT_PORT", "50054",
    "port of the bot service's grpc.health.v1 (its only port); 0 picks a free port",
    integer(0, 65535),
)
GROUP = EnvVar("HAND_BOT_GROUP", "hand-bots", "consumer group of the bot-service replicas", text)
METRICS_PORT = EnvVar(
    "HAND_BOT_METRICS_PORT", "off",
    "Prometheus /metrics port of python -m hand_bot; 0 picks a free port; off: none",
    port_or_off,
)


@dataclass(frozen=True)
class BotConfig:
    """Settings of the bot service (``python -m hand_bot``)."""

    server: GrpcServerConfig  # its health port
    log: LogConfig
    group_id: str = setting(GROUP, required=True)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> BotConfig:
        env = EnvReader(environ)
        config = read_settings(cls, env, server=GrpcServerConfig._read(env, HOST, PORT), log=LogConfig._read(env))
        env.check("bot service")
        return config


#: What builds these settings from an environment (``hand_common.settings_index``).
LOADERS = (BotConfig.from_env,)
