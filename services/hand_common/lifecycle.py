"""How every service process runs: start, serve until SIGTERM or SIGINT, stop gracefully."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Awaitable, Callable
from typing import Any

import structlog

from .metrics import PORT_VARS, serve_metrics
from .tracing import configure_tracing

__all__ = ["serve_until_signalled"]


async def serve_until_signalled(server: Any, name: str, announce: str = "",
                                beside: Callable[[Any], Awaitable[Any]] | None = None) -> None:
    """Start ``server`` (``start()``/``stop()``), serve until SIGTERM/SIGINT, stop it.

    A start that fails (a port taken, a session key that does not parse:
    ``OSError``, ``ValueError``) is logged as ``cannot start`` by logger
    ``name`` and exits with status 1. ``announce``: print ``"<announce>
    listening on <server.target>"`` once serving (what scripts wait for).
    ``beside``: started with the server once it serves (e.g. the browser protocol's
    web server, ``hand_web.server.start_beside``); what it returns is stopped together with
    the server (a room instance's stop ends the Watch streams of both one after another).
    Before the server starts: the Prometheus endpoint of ``name``'s port variable
    (``hand_common.metrics.PORT_VARS``: printed with ``announce``) and tracing (when
    ``HAND_OTLP_ENDPOINT`` is set).
    """
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    metrics = None
    try:
        configure_tracing(name)
        metrics = serve_metrics(PORT_VARS[name]) if name in PORT_VARS else None
        await server.start()
    except (OSError, ValueError) as error:
        if metrics is not None:
            metrics.stop()
        structlog.get_logger(name).error("cannot start", error=str(error))
        raise SystemExit(1) from None
    # which loop serves (hand_common.event_loop): "uvloop", or "asyncio" for the standard library's
    structlog.get_logger(name).info("serving", event_loop=type(loop).__module__.split(".")[0])
    if announce and metrics is not None:
        print(f"{announce} metrics on {metrics.url}", flush=True)
    if announce:
        print(f"{announce} listening on {server.target}", flush=True)
    extra = None
    try:
        extra = await beside(server) if beside is not None else None
        await stop.wait()
    finally:
        await asyncio.gather(server.stop(), *([extra.stop()] if extra is not None else []))
        if metrics is not None:
            metrics.stop()
