"""The collector policy of a service process (``hand_common.gc_policy``): what survives a full
collection is frozen, so the next full collection walks only newer objects; everything is
walked again once per sweep; 0 leaves the interpreter's default collector alone."""

from __future__ import annotations

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
    gc.collect(1)  # a young collection neither freezes nor thaws
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
