"""``make run``'s embedded broker, kept alive: a Tansu that dies is started again.

:class:`BrokerKeeper` polls the broker process; when it has exited it starts
a new one on the same port (waiting, with a deadline, until the port can be
bound again) and re-creates the project's topics at once. The services ride
the outage out by themselves (hand_infra.broker_watch: fail fast while it is
down, rebuild their consumers once it is back); the keeper only makes sure
there is a broker, with the right topics, to come back to.

Tansu's memory storage applies no retention (and has no DeleteRecords): it
keeps every message it was ever sent. With ``max_rss_bytes`` set the keeper
also bounds it: past that resident size the broker is killed and replaced at
once, exactly as after a crash — which every service rides out, and which
loses nothing accepted, since the event store is the source of truth
(docs/decisions/0013).

Tansu re-creates a topic with its default 4 partitions when a client asks
for a topic it does not have (the services' clients never ask so,
hand_infra.no_auto_create, but another client may).
A room's partition is computed from the partition count, so the keeper
deletes a project topic with the wrong count and creates it again (the
embedded broker has just lost everything anyway; never done to an external
broker: the keeper only runs for the embedded one).
"""

from __future__ import annotations

import asyncio
import time

import structlog
from aiokafka.admin import AIOKafkaAdminClient

from hand_infra import _proc
from hand_infra.broker import TansuBroker
from hand_infra.broker_watch import cancel_task
from hand_infra.client_lifecycle import start_client
from hand_infra.settings import KafkaSettings
from hand_infra.topics import PROJECT_TOPICS, ensure_topics

log = structlog.get_logger("hand_run.keeper")


async def reset_topics(settings: KafkaSettings, names=PROJECT_TOPICS) -> list[str]:
    """Delete the topics of ``names`` whose partition count is not ``settings.partitions``,
    then create every missing one; return those deleted. Embedded broker only."""
    admin = AIOKafkaAdminClient(**settings.admin_kwargs())
    await start_client(admin)
    try:
        existing = set(await admin.list_topics())
        wrong = []
        present = [n for n in names if n in existing]
        if present:
            for info in await admin.describe_topics(present):
                if not info["error_code"] and len(info["partitions"]) != settings.partitions:
                    wrong.append(info["topic"])
        if wrong:
            await admin.delete_topics(wrong)
    finally:
        await admin.close()
    await ensure_topics(settings, names)
    if wrong:
        log.warning("topics_recreated", topics=wrong, partitions=settings.partitions)
    return wrong


class BrokerKeeper:
    """Restarts ``tansu`` on its port when it dies (see the module doc)."""

    def __init__(self, tansu: TansuBroker, settings: KafkaSettings, *, interval: float = 0.2,
                 restart_deadline_s: float = 30.0, max_rss_bytes: int = 0) -> None:
        self.tansu, self.settings = tansu, settings
        self.interval, self.restart_deadline_s = interval, restart_deadline_s
        self.max_rss_bytes = max_rss_bytes  # 0: unbounded
        self.restarts = 0
        self.rotations = 0  # of the restarts, those for the memory bound
        self.last_restart_s: float | None = None
        self._task: asyncio.Task | None = None

    async def start(self) -> None:
        self._task = asyncio.create_task(self._loop(), name="broker-keeper")

    async def stop(self) -> None:
        await cancel_task(self._task)
        self._task = None

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            if self.max_rss_bytes and self.tansu.running:
                rss = self.tansu.rss_bytes()
                if rss > self.max_rss_bytes:
                    log.warning("broker_rotated", port=self.tansu.port, rss_mb=round(rss / 2**20, 1),
                                max_rss_mb=round(self.max_rss_bytes / 2**20, 1))
                    self.rotations += 1
                    self.tansu.kill()
            if not self.tansu.running:
                try:
                    await self.restart()
                except Exception:  # try again at the next poll
                    log.exception("broker_restart_failed")

    async def restart(self) -> None:
        """A new broker on the same port, with the project's topics."""
        began = time.monotonic()
        port = self.tansu.port
        log.warning("broker_down", port=port)
        await self.tansu.stop()  # reaps the process, removes its log
        deadline = began + self.restart_deadline_s
        while True:
            fresh = TansuBroker(host=self.tansu.host, port=port)
            try:
                await fresh.start()
                break
            except _proc.ProcessStartError:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.2)
        self.tansu = fresh
        await reset_topics(self.settings)
        self.restarts += 1
        self.last_restart_s = round(time.monotonic() - began, 2)
        log.info("broker_restarted", port=port, restarts=self.restarts, took_s=self.last_restart_s)
