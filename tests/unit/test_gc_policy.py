"""The collector policy of a service process (``hand_common.gc_policy``): what survives a
collection of generation 1 or 2 is frozen, so a full collection walks next to nothing;
everything is walked again once per sweep, started on time when none comes by itself; 0
leaves the interpreter's default collector alone."""

from __future__ import annotations

import asyncio
import gc
import weakref

import pytest
from prometheus_client import REGISTRY

from hand_common import gc_policy


@pytest.fixture
def restored():
    callbacks, enabled = list(gc.callbacks), gc.isenabled()
    gc.disable()  # only the test's own collections: none triggered by its allocations
    yield
    gc.callbacks[:] = callbacks
    gc.unfreeze()
    if enabled:
        gc.enable()


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_full_collections_freeze_their_survivors_and_a_sweep_thaws_them_first(restored) -> None:
    clock = _Clock()
    pauses = REGISTRY.get_sample_value("hand_process_gc_pause_seconds_count", {"generation": "2"}) or 0.0
    policy = gc_policy.FreezeSurvivors(60, clock)
    gc.callbacks.append(policy)
    kept = [[i] for i in range(10_000)]  # long-lived state, e.g. the rooms in play
    gc.collect()
    frozen = gc.get_freeze_count()
    assert frozen >= len(kept) and policy.full == 1 and policy.sweeps == 0
    assert REGISTRY.get_sample_value("hand_process_gc_pause_seconds_count", {"generation": "2"}) == pauses + 1, \
        "each pause is measured for operators"
    more = [[i] for i in range(5_000)]
    gc.collect(0)  # the youngest collection neither freezes nor thaws
    assert gc.get_freeze_count() == frozen
    gc.collect()
    assert gc.get_freeze_count() >= frozen + len(more)  # only the newer objects were walked

    class Cycle:
        pass

    garbage = Cycle()
    garbage.me = garbage
    alive = weakref.ref(garbage)
    gc.collect()  # frozen with the rest
    del garbage
    gc.collect()
    assert alive() is not None, "a cycle among frozen objects waits for the sweep"
    clock.now = 61  # past the sweep: the next full collection walks (and frees) everything
    gc.collect()
    assert policy.sweeps == 1 and alive() is None, "the sweep collected the frozen cycle"
    assert gc.get_freeze_count() > 0  # and what survived it is frozen again
    del kept, more


def test_install_freezes_start_up_and_zero_leaves_the_default_collector(restored) -> None:
    assert gc_policy.install(0) is None
    assert gc.get_freeze_count() == 0 and not any(isinstance(c, gc_policy.FreezeSurvivors) for c in gc.callbacks)
    policy = gc_policy.install(600)
    assert policy is not None and policy in gc.callbacks
    assert gc.get_freeze_count() > 0


def test_what_a_generation_1_collection_leaves_alive_is_frozen(restored) -> None:
    """Survivors of a middle collection would go on to the oldest generation and be walked
    by each full collection until frozen: a room instance at 800 act/s paused 50–100 ms
    every few seconds for them. Frozen at once, a full collection has nothing of them to
    walk."""
    policy = gc_policy.FreezeSurvivors(60, _Clock())
    gc.callbacks.append(policy)
    gc.collect()
    frozen = gc.get_freeze_count()
    young = [[i] for i in range(5_000)]  # e.g. the new state of the rooms that just moved
    gc.collect(1)
    assert gc.get_freeze_count() >= frozen + len(young), "frozen by the generation-1 collection"
    assert policy.full == 1  # it was not a full one
    assert gc.get_count()[2] == 0 and len(gc.get_objects(2)) < 1_000, "nothing left for a full collection"
    del young


async def test_the_sweep_comes_on_time_without_a_full_collection_of_the_interpreters(restored) -> None:
    """With survivors frozen the interpreter seldom starts a full collection; the sweeper
    starts the sweep when it is due, so a garbage cycle among frozen objects is freed."""
    clock = _Clock()
    policy = gc_policy.FreezeSurvivors(60, clock)
    gc.callbacks.append(policy)

    class Cycle:
        pass

    garbage = Cycle()
    garbage.me = garbage
    alive = weakref.ref(garbage)
    gc.collect(1)  # frozen with the rest
    del garbage
    sweeper = asyncio.ensure_future(gc_policy.sweep_when_due(policy, check_s=0.01))
    try:
        await asyncio.sleep(0.05)
        assert alive() is not None and policy.sweeps == 0, "not before the sweep is due"
        clock.now = 61
        for _ in range(100):
            if policy.sweeps:
                break
            await asyncio.sleep(0.01)
        assert policy.sweeps == 1 and alive() is None, "the sweep ran and freed the frozen cycle"
    finally:
        sweeper.cancel()


def test_a_service_loop_runs_the_sweeper_beside_its_main_coroutine(restored) -> None:
    from hand_common import event_loop

    async def main() -> list[str]:
        await asyncio.sleep(0)
        return [t.get_coro().__qualname__ for t in asyncio.all_tasks()]

    assert "sweep_when_due" in event_loop.run(main(), "asyncio", gc_sweep_s=600)
    assert "sweep_when_due" not in event_loop.run(main(), "asyncio", gc_sweep_s=0)
