"""``hand_common.background.Background``: a component's fire-and-forget tasks are held while
they run, an error one ends with is logged, and ``stop`` cancels those left and waits for
them — bounded, for a task that will not end."""

from __future__ import annotations

import asyncio
import gc

import structlog

from hand_common.background import Background


async def test_a_spawned_task_is_held_until_it_ends_even_with_no_reference_elsewhere() -> None:
    tasks = Background("t")
    ran = asyncio.Event()

    async def work() -> None:
        await asyncio.sleep(0.01)
        ran.set()

    tasks.spawn(work())
    gc.collect()
    assert len(tasks) == 1
    await asyncio.wait_for(ran.wait(), 2)
    await asyncio.sleep(0)
    assert len(tasks) == 0


async def test_stop_cancels_the_tasks_left_and_returns_once_they_ended() -> None:
    tasks = Background("t")
    cleaned: list[str] = []

    async def stuck(name: str) -> None:
        try:
            await asyncio.Event().wait()
        finally:
            await asyncio.sleep(0.01)  # its clean-up takes a moment: stop waits for it
            cleaned.append(name)

    spawned = [tasks.spawn(stuck(n)) for n in ("a", "b")]
    await asyncio.sleep(0)
    await tasks.stop(within_s=2)
    assert sorted(cleaned) == ["a", "b"] and all(t.cancelled() for t in spawned) and len(tasks) == 0


async def test_stop_is_bounded_for_a_task_that_will_not_end_and_says_so() -> None:
    tasks = Background("t")
    release = asyncio.Event()

    async def stubborn() -> None:
        while not release.is_set():
            try:
                await asyncio.sleep(10)
            except asyncio.CancelledError:
                continue  # swallows every cancellation

    task = tasks.spawn(stubborn())
    await asyncio.sleep(0)
    with structlog.testing.capture_logs() as logs:
        await tasks.stop(within_s=0.05)
    assert not task.done()
    assert logs == [{"event": "background_tasks_left", "component": "t", "tasks": 1, "log_level": "warning"}]
    release.set()
    task.cancel()
    await asyncio.wait({task}, timeout=2)
    assert task.done()


async def test_an_error_a_task_ends_with_is_logged() -> None:
    tasks = Background("t")

    async def fails() -> None:
        raise ValueError("boom")

    with structlog.testing.capture_logs() as logs:
        task = tasks.spawn(fails())
        await asyncio.wait({task})
        await asyncio.sleep(0)
    assert logs == [{"event": "background_task_failed", "component": "t", "error": "ValueError('boom')",
                     "log_level": "error"}]
