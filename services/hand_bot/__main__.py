"""``python -m hand_bot``: run one bot-service replica until SIGTERM or SIGINT.

Needs a broker (``KAFKA_BOOTSTRAP_SERVERS``); replicas share the consumer
group ``HAND_BOT_GROUP``. The bot service has no API of its own: its gRPC
port serves only ``grpc.health.v1`` (SERVING while the consumer loop polls
the broker), for container and Kubernetes probes.
"""

from __future__ import annotations

from hand_common.grpc_core import use_services_io

use_services_io()  # before grpc is imported: grpc core reads GRPC_EXPERIMENTS once

import asyncio
import contextlib
import signal

import structlog

from hand_common import event_loop
from hand_common.env import load_or_exit
from hand_common.logging import configure_logging
from hand_common.metrics import serve_metrics
from hand_common.tracing import configure_tracing
from hand_infra.settings import kafka_settings
from hand_infra.topics import ensure_topics

from .health import HealthServer
from .service import BotService
from .settings import METRICS_PORT, BotConfig

log = structlog.get_logger("hand_bot")


async def serve(config: BotConfig) -> None:
    kafka = kafka_settings()
    if kafka.embedded:
        raise SystemExit("hand_bot: set KAFKA_BOOTSTRAP_SERVERS (or use `make run`)")
    service = BotService(kafka, group_id=config.group_id)
    health = HealthServer(config.server)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    configure_tracing("hand_bot")
    try:
        metrics = serve_metrics(METRICS_PORT)
        await health.start()
    except OSError as error:
        log.error("cannot start", error=str(error))
        raise SystemExit(1) from None
    await ensure_topics(kafka)  # idempotent; whichever service starts first creates them
    await service.start()
    print(f"bot service in group {config.group_id}; health on {health.target}"
          + (f"; metrics on {metrics.url}" if metrics is not None else ""), flush=True)
    try:
        while not stop.is_set():
            await health.set_serving(service.healthy())
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=1.0)
    finally:
        await health.set_serving(False)
        await service.stop()
        await health.stop(config.server.shutdown_grace_s)
        if metrics is not None:
            metrics.stop()


def main() -> None:
    config = load_or_exit(BotConfig.from_env)
    configure_logging(config.log)
    event_loop.run(serve(config), config.log.event_loop, config.log.gc_sweep_s)


if __name__ == "__main__":
    main()
