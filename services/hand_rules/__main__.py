"""``python -m hand_rules``: run the rules service until SIGTERM or SIGINT.

Configuration comes only from the environment (``hand_common.config``); an
invalid value exits with status 2 before any port is bound. A signal stops
the server gracefully (``HAND_SHUTDOWN_GRACE_S``) and exits with status 0.
"""

from __future__ import annotations

import asyncio
import signal
from concurrent.futures import Executor

import structlog

from hand_common.config import RulesConfig, load_or_exit
from hand_common.logging import configure_logging

from .server import RulesServer


async def serve(config: RulesConfig, executor: Executor | None = None) -> None:
    """Serve until SIGTERM/SIGINT; engine calls run inline unless an ``executor`` is given."""
    server = RulesServer(config.server, executor, limits=config.limits, identity=config.identity)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        await server.start()
    except (OSError, ValueError) as error:  # a port taken, a session key that does not parse
        structlog.get_logger("hand_rules").error("cannot start", error=str(error))
        raise SystemExit(1) from None
    try:
        await stop.wait()
    finally:
        await server.stop()


def main() -> None:
    config = load_or_exit(RulesConfig.from_env)
    configure_logging(config.log)
    asyncio.run(serve(config))


if __name__ == "__main__":
    main()
