"""``hand_common.logging.bound_context``: the values of a ``with`` block reach every log line
in it, and each key's previous value — or its absence — is back after it, however the block
ends, even when an async generator's block is left in another context."""

from __future__ import annotations

import asyncio
import contextvars

import pytest
import structlog

from hand_common.logging import bound_context


def _bound() -> dict:
    return structlog.contextvars.get_contextvars()


def _fresh(fn):
    """``fn()`` in an empty context, so that no test sees another's values."""
    return contextvars.Context().run(fn)


def test_values_are_bound_inside_and_gone_after() -> None:
    def run():
        with bound_context(room_id="r1", seat=0):
            inside = _bound()
        return inside, _bound()

    inside, after = _fresh(run)
    assert inside == {"room_id": "r1", "seat": 0}
    assert after == {}


def test_nested_blocks_restore_the_outer_value_and_leave_other_keys_alone() -> None:
    def run():
        structlog.contextvars.bind_contextvars(instance="i1")
        with bound_context(room_id="outer"):
            with bound_context(room_id="inner", seat=1):
                inner = _bound()
            between = _bound()
        return inner, between, _bound()

    inner, between, after = _fresh(run)
    assert inner == {"instance": "i1", "room_id": "inner", "seat": 1}
    assert between == {"instance": "i1", "room_id": "outer"}
    assert after == {"instance": "i1"}


def test_a_block_left_by_an_exception_restores_too() -> None:
    def run():
        with pytest.raises(KeyError), bound_context(room_id="r1"):
            raise KeyError("boom")
        return _bound()

    assert _fresh(run) == {}


def test_the_same_values_as_structlogs_own_binding() -> None:
    """What the hot path replaced: structlog's ``bound_contextvars`` gives the same lines."""
    def with_ours():
        structlog.contextvars.bind_contextvars(room_id="before")
        with bound_context(room_id="r1", command="Act"):
            inside = _bound()
        return inside, _bound()

    def with_structlogs():
        structlog.contextvars.bind_contextvars(room_id="before")
        with structlog.contextvars.bound_contextvars(room_id="r1", command="Act"):
            inside = _bound()
        return inside, _bound()

    assert _fresh(with_ours) == _fresh(with_structlogs)


def test_an_async_generator_closed_in_another_context_does_not_raise() -> None:
    """A Watch stream's generator binds its room; if it is closed from elsewhere (the
    collector's finalizer runs ``aclose`` in a task of its own) its block still ends cleanly."""

    async def stream():
        with bound_context(room_id="r1"):
            yield _bound()
            yield _bound()

    async def run():
        gen = stream()
        first = await asyncio.create_task(gen.__anext__())  # entered in that task's context
        await asyncio.create_task(gen.aclose())  # left in another task's context
        return first

    assert _fresh(lambda: asyncio.run(run())) == {"room_id": "r1"}
