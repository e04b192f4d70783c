"""``cancel_task`` ends a background loop even when one cancellation is swallowed (Python
3.11's ``asyncio.wait_for`` can lose a cancel that arrives as its inner call completes; a
BrokerWatch loop then went on probing and a service's stop hung)."""

from __future__ import annotations

import asyncio

import pytest

from hand_infra.broker_watch import cancel_task


async def test_a_loop_that_swallows_a_cancel_is_cancelled_again_and_ends() -> None:
    rounds = []

    async def loop() -> None:
        swallowed = False
        while True:
            rounds.append(1)
            try:
                await asyncio.sleep(0.01)
            except asyncio.CancelledError:
                if swallowed:
                    raise
                swallowed = True  # as wait_for's race does: the loop goes on

    task = asyncio.create_task(loop())
    await asyncio.sleep(0.03)
    stopping = asyncio.ensure_future(cancel_task(task, again_after_s=0.05))
    done, _ = await asyncio.wait({stopping}, timeout=3)
    loop_ran_on = not task.done()
    task.cancel()  # whatever happened, leave nothing running
    assert done and not loop_ran_on, "cancel_task did not end a loop that swallowed one cancel"
    assert task.cancelled() and len(rounds) > 3


async def test_an_error_the_loop_ended_with_is_raised_and_none_is_a_no_op() -> None:
    async def broken() -> None:
        raise ValueError("boom")

    task = asyncio.create_task(broken())
    await asyncio.sleep(0)
    with pytest.raises(ValueError):
        await cancel_task(task)
    await cancel_task(None)
