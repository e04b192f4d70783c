"""How every service process runs: start, serve until SIGTERM or SIGINT, stop gracefully."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Awaitable, Callable
from typing import Any

import structlog

__all__ = ["serve_until_signalled"]


async def serve_until_signalled(server: Any, name: str, announce: str = "",
                                beside: Callable[[Any], Awaitable[Any]] | None = None) -> None:
    """Start ``server`` (``start()``/``stop()``), serve until SIGTERM/SIGINT, stop it.

    A start that fails (a port taken, a session key that does not parse:
    ``OSError``, ``ValueError``) is logged as ``cannot start`` by logger
    ``name`` and exits with status 1. ``announce``: print ``"<announce>
    listening on <server.target>"`` once serving (what scripts wait for).
    ``beside``: started with the server once it serves (e.g. the browser protocol's
    web server, ``hand_web.server.start_beside``); what it returns is stopped first.
    """
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        await server.start()
    except (OSError, ValueError) as error:
        structlog.get_logger(name).error("cannot start", error=str(error))
        raise SystemExit(1) from None
    if announce:
        print(f"{announce} listening on {server.target}", flush=True)
    extra = None
    try:
        extra = await beside(server) if beside is not None else None
        await stop.wait()
    finally:
        if extra is not None:
            await extra.stop()
        await server.stop()
