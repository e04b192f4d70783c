"""``python -m hand_room``: run one room-service instance until SIGTERM or SIGINT.

Needs a broker (``KAFKA_BOOTSTRAP_SERVERS``) and an event store
(``HAND_EVENTSTORE_URL``); ``hand_run`` starts the embedded ones.
"""

from __future__ import annotations

from hand_common.grpc_core import use_services_io

use_services_io()  # before grpc is imported: grpc core reads GRPC_EXPERIMENTS once

from hand_common import event_loop
from hand_common.env import load_or_exit
from hand_common.lifecycle import serve_until_signalled
from hand_common.logging import configure_logging
from hand_infra.settings import eventstore_url, kafka_settings
from hand_web.server import start_beside

from .server import RoomServer
from .settings import RoomConfig


async def serve(config: RoomConfig) -> None:
    kafka = kafka_settings()
    if kafka.embedded:
        raise SystemExit("hand_room: set KAFKA_BOOTSTRAP_SERVERS (or use `make run`)")
    server = RoomServer(config, kafka, eventstore_url())
    await serve_until_signalled(server, "hand_room", announce="room service", beside=start_beside)


def main() -> None:
    config = load_or_exit(RoomConfig.from_env)
    configure_logging(config.log)
    event_loop.run(serve(config), config.log.event_loop, config.log.gc_sweep_s)


if __name__ == "__main__":
    main()
