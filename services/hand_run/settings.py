"""Settings of ``make run`` (``python -m hand_run``) beyond its services' own: its variables."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from hand_common.env import EnvReader, EnvVar, integer, read_settings, setting
from hand_common.metrics import port_or_off

__all__ = ["LOADERS", "EmbeddedBrokerConfig"]

BROKER_PORT = EnvVar(
    "HAND_BROKER_PORT", "19092",
    "port of the embedded broker that make run starts (0: a free port)",
    integer(0, 65535),
)
BROKER_MAX_RSS_MB = EnvVar(
    "HAND_BROKER_MAX_RSS_MB", "64",
    "the embedded broker keeps every message in memory (no retention): past this resident size make "
    "run replaces it with an empty one, as after a crash (0: never)",
    integer(0, 1 << 20),
)
METRICS_PORT = EnvVar(
    "HAND_RUN_METRICS_PORT", "0",
    "Prometheus /metrics port of make run (every service, one process); 0 picks a free port, printed "
    "at start; off: none",
    port_or_off,
)


@dataclass(frozen=True)
class EmbeddedBrokerConfig:
    """The embedded broker ``make run`` starts when no Kafka is configured."""

    port: int = setting(BROKER_PORT, required=True)  # 0: a free port
    max_rss_mb: int = setting(BROKER_MAX_RSS_MB)  # 0: unbounded

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> EmbeddedBrokerConfig:
        env = EnvReader(environ)
        config = read_settings(cls, env)
        env.check("embedded broker")
        return config


#: What builds these settings from an environment (``hand_common.settings_index``).
LOADERS = (EmbeddedBrokerConfig.from_env,)
