"""``python -m hand_ledger``: run one ledger replica until SIGTERM or SIGINT.

Needs a broker (``KAFKA_BOOTSTRAP_SERVERS``); the store is ``HAND_LEDGER_URL``
(a SQLite file by default). ``hand_run`` starts the embedded broker.
"""

from __future__ import annotations

from hand_common.grpc_core import use_services_io

use_services_io()  # before grpc is imported: grpc core reads GRPC_EXPERIMENTS once

from hand_common import event_loop
from hand_common.env import load_or_exit
from hand_common.lifecycle import serve_until_signalled
from hand_common.logging import configure_logging
from hand_infra.settings import kafka_settings
from hand_web.server import start_beside

from .server import LedgerServer
from .settings import LedgerConfig


async def serve(config: LedgerConfig) -> None:
    kafka = kafka_settings()
    if kafka.embedded:
        raise SystemExit("hand_ledger: set KAFKA_BOOTSTRAP_SERVERS (or use `make run`)")
    server = LedgerServer(config, kafka)
    await serve_until_signalled(server, "hand_ledger", announce="ledger service", beside=start_beside)


def main() -> None:
    config = load_or_exit(LedgerConfig.from_env)
    configure_logging(config.log)
    event_loop.run(serve(config), config.log.event_loop, config.log.gc_sweep_s)


if __name__ == "__main__":
    main()
