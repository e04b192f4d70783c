"""hand_room.store_budget: calls share one budget; a spent budget refuses without running."""

from __future__ import annotations

import asyncio

import pytest

from hand_room.store_budget import MIN_SHARE, StoreBudget


async def test_each_call_gets_what_the_earlier_ones_left() -> None:
    now = [0.0]
    budget = StoreBudget(1.0, clock=lambda: now[0])

    async def takes(s: float) -> str:
        now[0] += s
        return "done"

    assert await budget.call(takes(0.7)) == "done"
    assert budget.left == pytest.approx(0.3)
    await budget.call(takes(0.3))
    ran = []

    async def never() -> None:
        ran.append(1)

    with pytest.raises(TimeoutError):
        await budget.call(never())
    assert not ran


async def test_a_hanging_call_times_out_at_the_budget_left() -> None:
    budget = StoreBudget(0.05)
    with pytest.raises(TimeoutError):
        await budget.call(asyncio.sleep(5))
    assert budget.left <= 0


def test_a_pass_gets_what_its_oldest_command_has_left_of_the_timeout_at_least_its_least_share() -> None:
    now = [10.0]
    clock = lambda: now[0]  # noqa: E731
    assert StoreBudget.since(10.0, 1.0, clock).left == pytest.approx(1.0)  # arrived just now
    now[0] = 10.4  # it waited 0.4 s for an earlier pass
    assert StoreBudget.since(10.0, 1.0, clock).left == pytest.approx(0.6)
    now[0] = 11.5  # it waited longer than the timeout: the pass still tries the store
    assert StoreBudget.since(10.0, 1.0, clock).left == pytest.approx(MIN_SHARE * 1.0)
    assert 0 < MIN_SHARE < 1
