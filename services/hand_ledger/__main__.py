"""``python -m hand_ledger``: run one ledger replica until SIGTERM or SIGINT.

Needs a broker (``KAFKA_BOOTSTRAP_SERVERS``); the store is ``HAND_LEDGER_URL``
(a SQLite file by default). ``hand_run`` starts the embedded broker.
"""

from __future__ import annotations

import asyncio
import signal

import structlog

from hand_common.config import LedgerConfig, load_or_exit
from hand_common.logging import configure_logging
from hand_infra.settings import kafka_settings

from .server import LedgerServer


async def serve(config: LedgerConfig) -> None:
    kafka = kafka_settings()
    if kafka.embedded:
        raise SystemExit("hand_ledger: set KAFKA_BOOTSTRAP_SERVERS (or use `make run`)")
    server = LedgerServer(config, kafka)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        await server.start()
    except (OSError, ValueError) as error:  # a port taken, a session key that does not parse
        structlog.get_logger("hand_ledger").error("cannot start", error=str(error))
        raise SystemExit(1) from None
    print(f"ledger service listening on {server.target}", flush=True)
    try:
        await stop.wait()
    finally:
        await server.stop()


def main() -> None:
    config = load_or_exit(LedgerConfig.from_env)
    configure_logging(config.log)
    asyncio.run(serve(config))


if __name__ == "__main__":
    main()
