"""``python -m hand_room``: run one room-service instance until SIGTERM or SIGINT.

Needs a broker (``KAFKA_BOOTSTRAP_SERVERS``) and an event store
(``HAND_EVENTSTORE_URL``); ``hand_run`` starts the embedded ones.
"""

from __future__ import annotations

import asyncio
import signal

from hand_common.config import RoomConfig, load_or_exit
from hand_common.logging import configure_logging
from hand_web.server import start_beside
from hand_infra.settings import eventstore_url, kafka_settings

from .server import RoomServer


async def serve(config: RoomConfig) -> None:
    kafka = kafka_settings()
    if kafka.embedded:
        raise SystemExit("hand_room: set KAFKA_BOOTSTRAP_SERVERS (or use `make run`)")
    server = RoomServer(config, kafka, eventstore_url())
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await server.start()
    print(f"room service listening on {server.target}", flush=True)
    web = None
    try:
        web = await start_beside(server)  # Connect + gRPC-Web too when HAND_WEB_ENABLED=on
        await stop.wait()
    finally:
        if web is not None:
            await web.stop()
        await server.stop()


def main() -> None:
    config = load_or_exit(RoomConfig.from_env)
    configure_logging(config.log)
    asyncio.run(serve(config))


if __name__ == "__main__":
    main()
