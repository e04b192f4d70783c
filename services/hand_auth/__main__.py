"""``python -m hand_auth``: run the auth service until SIGTERM or SIGINT.

The signing key is ``HAND_AUTH_SIGNING_KEY`` (a secret); without one, the
development key file (``HAND_AUTH_DEV_KEY_FILE``, under ``var/``).
"""

from __future__ import annotations

import asyncio
import signal

import structlog

from hand_common.config import AuthConfig, load_or_exit
from hand_common.logging import configure_logging

from .server import AuthServer


async def serve(config: AuthConfig) -> None:
    server = AuthServer(config)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        await server.start()
    except (OSError, ValueError) as error:
        structlog.get_logger("hand_auth").error("cannot start", error=str(error))
        raise SystemExit(1) from None
    print(f"auth service listening on {server.target}", flush=True)
    try:
        await stop.wait()
    finally:
        await server.stop()


def main() -> None:
    config = load_or_exit(AuthConfig.from_env)
    configure_logging(config.log)
    asyncio.run(serve(config))


if __name__ == "__main__":
    main()
