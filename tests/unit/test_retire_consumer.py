"""``retire_consumer`` waits a bounded time for the retired loop and never swallows its
caller's cancellation: a ``BrokerWatch`` recovery callback it runs in stays bounded by
the watch's timeout (a swallowed cancel made ``wait_for`` wait for the whole callback)."""

from __future__ import annotations

import asyncio
import time

import pytest

from hand_infra.broker_watch import retire_consumer


async def _stubborn(seconds: float) -> None:
    """A consumer loop that takes ``seconds`` to end once cancelled (a stuck call)."""
    try:
        await asyncio.sleep(3600)
    except asyncio.CancelledError:
        await asyncio.sleep(seconds)
        raise


def test_a_loop_slow_to_end_is_left_to_end_in_the_background() -> None:
    async def main() -> float:
        task = asyncio.create_task(_stubborn(5.0))
        await asyncio.sleep(0)
        began = time.monotonic()
        await retire_consumer(task, None, None, wait_s=0.1)
        took = time.monotonic() - began
        task.cancel()
        return took

    assert asyncio.run(main()) < 1.0


def test_the_callers_cancellation_goes_through() -> None:
    async def main() -> None:
        loop_task = asyncio.create_task(_stubborn(5.0))
        await asyncio.sleep(0)
        retiring = asyncio.create_task(retire_consumer(loop_task, None, None, wait_s=10.0))
        await asyncio.sleep(0.05)
        retiring.cancel()
        with pytest.raises(asyncio.CancelledError):
            await retiring
        loop_task.cancel()

    asyncio.run(main())
