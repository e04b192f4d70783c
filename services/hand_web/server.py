"""``WebServer``: the browser face of the backend (uvicorn on the caller's event loop).

It serves given servicer objects (the same ones the native gRPC servers
use) over Connect and gRPC-Web, and the built web app, on one HTTP port.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Iterable, Iterator
from pathlib import Path

import structlog
import uvicorn

from .adapter import ServiceApp
from .app import WebApp
from .settings import WebConfig

__all__ = ["DEFAULT_STATIC_DIR", "WebServer", "start_beside"]

log = structlog.get_logger("hand_web")
DEFAULT_STATIC_DIR = Path(__file__).resolve().parents[2] / "web" / "dist"


class _Server(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:  # the launcher owns the signals
        yield


class WebServer:
    """Connect + gRPC-Web for ``services`` and the web app, on ``config.host:config.port``."""

    name = "web"

    def __init__(self, config: WebConfig, services: Iterable[tuple], grace_s: float = 1.0) -> None:
        """``services``: ``(servicer, service descriptor[, its server's interceptors])`` each.
        ``grace_s``: how long a stop waits for the calls and streams in flight before it
        cuts them."""
        self.config, self.grace_s = config, grace_s
        static = Path(config.static_dir) if config.static_dir else DEFAULT_STATIC_DIR
        self.app = WebApp([ServiceApp(*entry) for entry in services],
                          static if static.is_dir() else None, config.cors_origins)
        self.port = 0
        self._server: _Server | None = None
        self._task: asyncio.Task | None = None

    @property
    def target(self) -> str:
        host = {"0.0.0.0": "127.0.0.1", "::": "[::1]"}.get(self.config.host, self.config.host)
        return f"{host}:{self.port}"

    @property
    def url(self) -> str:
        return f"http://{self.target}/"

    async def start(self) -> None:
        family = socket.AF_INET6 if ":" in self.config.host else socket.AF_INET
        # IPPROTO_TCP explicitly: asyncio turns Nagle off (TCP_NODELAY) only on sockets whose proto
        # says TCP, and a response's headers and body are two writes (else +40 ms per call)
        sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.config.host, self.config.port))
        sock.setblocking(False)
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(self.app, log_config=None, access_log=False, lifespan="off",
                                timeout_graceful_shutdown=self.grace_s, http="h11")
        self._server = _Server(config)
        self._task = asyncio.create_task(self._server.serve(sockets=[sock]))
        while not self._server.started:
            if self._task.done():
                self._task.result()
                raise RuntimeError("web server stopped while starting")
            await asyncio.sleep(0.01)
        log.info("listening", address=self.target, static=str(self.app.static_dir),
                 services=sorted(self.app.services))

    async def stop(self) -> None:
        if self._server is not None and self._task is not None:
            self._server.should_exit = True
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self._server = self._task = None
        log.info("stopped")


async def start_beside(server, environ=None) -> WebServer | None:
    """For ``python -m hand_rules|hand_room|hand_ledger``: when ``HAND_WEB_ENABLED=on``, serve that
    (started) server's ``browser_service`` over Connect and gRPC-Web too, and return the web server.
    It is stopped with the server (``serve_until_signalled``) and gives its calls and streams
    the server's grace (``HAND_SHUTDOWN_GRACE_S``): a room instance ends its browsers' Watch
    streams one after another, as its native ones (``WatchStreams.drain``), instead of the
    web server cutting them all at once."""
    config = WebConfig.from_env(environ)
    if not config.enabled:
        return None
    web = WebServer(config, list(getattr(server, "browser_services", [server.browser_service])),
                    grace_s=config.shutdown_grace_s)
    await web.start()
    return web
