"""Starting a Kafka client so that nothing it opened outlives a failed or abandoned start.

aiokafka's bootstrap opens a connection of its own, asks it for the cluster's
metadata and closes it — except when the wait for that answer is cancelled: the
connection is then left open until the garbage collector finds it (an
``Unclosed AIOKafkaConnection`` ResourceWarning, an error under pytest: one
``make test`` run in six failed on such a warning, its source not caught in the
act; this is the leak path ``test_client_start.py`` reproduces). A start is
cancelled whenever its caller gives up: a ``wait_for`` bound, a broker watch
stopped while it lists topics, a recovery callback past its time. And an admin
client whose start fails half-way keeps the connections it made. :func:`start_client` therefore lets the start itself
run to its end (aiokafka bounds it with its request timeout) while the caller
stops waiting, and closes the client when a start the caller did not see through
has ended — the caller gets its cancellation or its error at once, as before.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, TypeVar

__all__ = ["start_client"]

T = TypeVar("T")

_closing: set[asyncio.Task] = set()  # closes under way (a task nobody holds may be collected)


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
    close = getattr(client, "stop", None) or client.close
    task = asyncio.ensure_future(_quietly(close))
    _closing.add(task)
    task.add_done_callback(_closing.discard)


async def _quietly(close: Any) -> None:
    with contextlib.suppress(Exception):
        await close()
