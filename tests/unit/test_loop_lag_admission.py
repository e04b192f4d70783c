"""Admission by the event loop's lag: a saturated loop refuses clients' commands at once
(OVERLOADED, limit loop_lag), never the room's own work; one slow callback sheds nothing
(issue 24, overload shed)."""

from __future__ import annotations

import asyncio
import time

import pytest

from hand_room.admission import Admission
from hand_table import Act, BotTurn, RoomError
from hand_room.loop_lag import LoopLag


async def _saturate(seconds: float, busy_s: float) -> None:
    """Keep the loop late on every tick, as an instance past its capacity is."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        time.sleep(busy_s)
        await asyncio.sleep(0)


def test_the_lag_is_the_mean_lateness_so_one_slow_callback_is_averaged_away() -> None:
    lag = LoopLag(tick_s=0.01, window=10)
    for _ in range(10):
        lag.record(0.0)
    assert lag.seconds == 0.0
    lag.record(0.05)  # one slow callback
    assert lag.seconds == pytest.approx(0.005)
    for _ in range(10):  # late on every tick: a saturated loop
        lag.record(0.06)
    assert lag.seconds == pytest.approx(0.06)
    for _ in range(10):  # gone once the loop keeps its timers again
        lag.record(0.0)
    assert lag.seconds == pytest.approx(0.0, abs=1e-12)


async def test_a_saturated_loop_shows_its_lag() -> None:
    """The ticker on a real loop (one-sided: a busy machine only makes the loop later)."""
    lag = LoopLag(tick_s=0.01, window=10)
    lag.start()
    try:
        await _saturate(0.5, 0.06)
        assert lag.seconds >= 0.03  # late on every tick: seen
    finally:
        await lag.stop()


def test_past_its_bound_a_clients_command_is_refused_with_the_loop_lag_as_limit() -> None:
    now = {"lag": 0.0}
    admission = Admission(max_pending=100, max_delay_s=0.2, lag=lambda: now["lag"], max_lag_s=0.5)
    act = Act(action=None)
    admission.check(act, 0, None)  # a free loop: accepted
    now["lag"] = 0.3
    admission.check(act, 0, None)  # a busy host's jitter, under the bound: accepted
    now["lag"] = 0.6
    with pytest.raises(RoomError) as refused:
        admission.check(act, 0, None)
    assert refused.value.code == "OVERLOADED" and refused.value.params["limit"] == "loop_lag"
    assert 100 <= refused.value.params["retry_after_ms"] <= 5000
    admission.check(BotTurn(seat=0, round_no=1, turn_no=1, actions=()), 0, None)  # the room's own work: never shed


def test_with_the_bound_off_the_loop_lag_refuses_nothing() -> None:
    admission = Admission(max_pending=100, max_delay_s=0.2, lag=lambda: 10.0, max_lag_s=0.0)
    admission.check(Act(action=None), 0, None)


async def test_the_ticker_slows_down_while_nobody_asks_and_speeds_up_when_asked() -> None:
    """An idle instance's ticker woke its loop 40 times a second for nothing (13 % of its idle
    CPU); unasked it ticks every ``idle_tick_s``, and the first ask brings the fast tick back."""
    lag = LoopLag(tick_s=0.01, window=10, idle_tick_s=0.2)
    lag._asked -= 10  # last asked long ago
    lag.start()
    try:
        await asyncio.sleep(0.5)
        unasked = lag.ticks
        assert unasked <= 4, unasked  # ~2 idle ticks (50 at the fast tick)
        end = time.monotonic() + 0.5
        while time.monotonic() < end:
            lag.seconds  # a command's admission asks
            await asyncio.sleep(0.01)
        assert lag.ticks - unasked >= 15  # fast again within one idle tick
    finally:
        await lag.stop()
