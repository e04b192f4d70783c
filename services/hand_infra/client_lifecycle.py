"""A Kafka client's start and its stop in the background: nothing it opened outlives a
failed, abandoned or replaced client.

aiokafka's bootstrap opens a connection of its own, asks it for the cluster's metadata
and closes it — except when the wait for that answer is cancelled: the connection is
then left open until the garbage collector finds it (an ``Unclosed AIOKafkaConnection``
ResourceWarning, an error under pytest: one ``make test`` run in six failed on such a
warning, its source not caught in the act; this is the leak path
``test_client_lifecycle.py`` reproduces). A start is cancelled whenever its caller gives
up: a ``wait_for`` bound, a broker watch stopped while it lists topics, a recovery
callback past its time. And an admin client whose start fails half-way keeps the
connections it made. :func:`start_client` therefore lets the start itself run to its end
(aiokafka bounds it with its request timeout) while the caller stops waiting, and stops
the client once a start the caller did not see through has ended — the caller gets its
cancellation or its error at once, as before.

:func:`stop_in_background` stops a client nobody waits for (a start given up on, a
consumer replaced after a broker outage whose stop could take seconds), bounded, its
errors dropped; the tasks are held until they end.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, TypeVar

__all__ = ["start_client", "stop_in_background"]

T = TypeVar("T")

_closing: set[asyncio.Task] = set()  # stops under way (a task nobody holds may be collected)


async def start_client(client: T, timeout_s: float | None = None) -> T:
    """``await client.start()``, within ``timeout_s`` if given (TimeoutError past it); the
    client, started. A start the caller abandons (cancelled, timed out) or that fails is
    left to end and the client is then closed (``stop()``, or ``close()`` for an admin
    client) in the background — so keep the client only from what this returns."""
    start = asyncio.ensure_future(client.start())  # type: ignore[attr-defined]
    try:
        await asyncio.wait_for(asyncio.shield(start), timeout_s)
    except BaseException:
        start.add_done_callback(lambda _: _close_soon(client, start))
        raise
    return client


def _close_soon(client: Any, start: asyncio.Future) -> None:
    if not start.cancelled():
        start.exception()  # read: a failed start is the caller's news, not the loop's
    stop_in_background(client)


def stop_in_background(client: Any, within_s: float = 10.0) -> None:
    """Stop ``client`` (``stop()``, or ``close()`` for an admin client) without waiting for
    it: its broker may be gone, and leaving a group or flushing can take seconds. At most
    ``within_s``; errors are dropped — it is being given up or replaced."""
    task = asyncio.ensure_future(_quietly(getattr(client, "stop", None) or client.close, within_s))
    _closing.add(task)
    task.add_done_callback(_closing.discard)


async def _quietly(close: Any, within_s: float) -> None:
    with contextlib.suppress(Exception):
        await asyncio.wait_for(close(), within_s)
