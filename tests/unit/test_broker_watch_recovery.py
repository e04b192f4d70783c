"""A broker watch's recovery is bounded by ``recover_timeout_s`` whatever its callbacks do:
one that does not end when cancelled (a consumer stuck joining its group, a cancellation
swallowed inside a client library) is left to end in the background, and the watch comes
up. Before, ``wait_for`` waited for the cancelled callback to finish: the watch stayed
down, and every command that needs the broker was refused, for as long as it hung."""

from __future__ import annotations

import asyncio
import time

from hand_infra.broker_watch import BrokerWatch
from hand_infra.memory_broker import MemoryBroker
from hand_infra.settings import KafkaSettings

TOPICS = ["hand.room-events"]


async def _until(predicate, timeout: float) -> float:
    began = time.monotonic()
    while not predicate():
        assert time.monotonic() - began < timeout, "condition not met in time"
        await asyncio.sleep(0.01)
    return time.monotonic() - began


async def _outage_and_back(*callbacks) -> tuple[BrokerWatch, float]:
    """A watch (recovery bound 0.3 s) with ``callbacks``, through an outage of its broker:
    the watch, and how long it took to come up once the broker was back."""
    broker = MemoryBroker()
    await broker.ensure_topics(None, TOPICS)
    watch = BrokerWatch(KafkaSettings(bootstrap_servers="memory:0"), TOPICS, interval=0.02,
                        recover_timeout_s=0.3, broker=broker)
    watch.on_recover += list(callbacks)
    await watch.start()
    try:
        broker.outage()
        await _until(lambda: not watch.up, 5)
        broker.restore()
        return watch, await _until(lambda: watch.up, 5)
    finally:
        await watch.stop()


async def test_a_recovery_callback_that_ignores_its_cancellation_does_not_hold_the_watch_down() -> None:
    calls: list[str] = []

    async def stuck() -> None:
        calls.append("stuck")
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:  # swallowed, as a hung client call can: 4 s more
            calls.append("cancelled")
            await asyncio.sleep(4)

    async def next_one() -> None:
        calls.append("next")

    watch, took = await _outage_and_back(stuck, next_one)
    assert took < 2.0, took  # the bound (0.3 s) and a few probes, not the callback's 4 s more
    assert calls[:3] == ["stuck", "cancelled", "next"]
    assert watch.epoch == 1


async def test_a_recovery_callback_that_fails_is_logged_and_the_others_still_run() -> None:
    calls: list[str] = []

    async def failing() -> None:
        calls.append("failing")
        raise RuntimeError("no")

    async def next_one() -> None:
        calls.append("next")

    watch, _ = await _outage_and_back(failing, next_one)
    assert calls == ["failing", "next"] and watch.epoch == 1
