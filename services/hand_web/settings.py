"""Settings of the web server (``hand_web``): its variables, declared once, and ``WebConfig``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from hand_common.config import SHUTDOWN_GRACE_S, LogConfig
from hand_common.env import EnvReader, EnvVar, integer, read_settings, setting, switch, text

__all__ = ["LOADERS", "WebConfig"]


def _origins(env: EnvReader, var: EnvVar[tuple[str, ...]]) -> tuple[str, ...]:
    return tuple(o.strip().rstrip("/") for o in env.raw(var).split(",") if o.strip())


HOST = EnvVar(
    "HAND_WEB_HOST", "127.0.0.1",
    "address the web server (Connect, gRPC-Web, the web app) listens on",
    text,
)
PORT = EnvVar("HAND_WEB_PORT", "8080", "HTTP port of the web server; 0 picks a free port", integer(0, 65535))
CORS_ORIGINS = EnvVar(
    "HAND_WEB_CORS_ORIGINS", "",
    "comma-separated origins allowed to call the browser protocol cross-origin (* = any); empty: same"
    " origin only",
    _origins,
)
STATIC_DIR = EnvVar("HAND_WEB_STATIC_DIR", "", "folder of the built web app; empty: web/dist of the checkout")
ENABLED = EnvVar(
    "HAND_WEB_ENABLED", "off",
    "on: python -m hand_rules / hand_room / hand_ledger also serve their service over Connect and "
    "gRPC-Web on HAND_WEB_HOST:HAND_WEB_PORT (make run always does, for all three)",
    switch,
)


@dataclass(frozen=True)
class WebConfig:
    """Settings of the web server (``hand_web``): browser protocol, CORS and the web app."""

    host: str = setting(HOST, required=True)
    port: int = setting(PORT, required=True)
    cors_origins: tuple[str, ...] = setting(CORS_ORIGINS, required=True)
    static_dir: str = setting(STATIC_DIR, required=True)
    #: the grace of the server it serves beside (``start_beside``); hand_run's stops in 1 s
    shutdown_grace_s: float = setting(SHUTDOWN_GRACE_S, required=True)
    log: LogConfig
    enabled: bool = setting(ENABLED)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> WebConfig:
        env = EnvReader(environ)
        config = read_settings(cls, env, log=LogConfig._read(env))
        env.check("web server")
        return config


#: What builds these settings from an environment (``hand_common.settings_index``).
LOADERS = (WebConfig.from_env,)
