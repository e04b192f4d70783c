"""``python -m hand_run`` (``make run``): the whole backend as one local process.

A development launcher, not a deployment: every component runs in-process on
one event loop, configured from the same environment variables as its own
service. Components start in list order and stop in reverse order; one that
fails to start stops those already started. To add a service (broker, room,
bot, ledger), give it ``name``, ``target``, ``async start()`` and
``async stop()`` and append a factory to ``COMPONENTS``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from hand_common.config import RulesConfig
from hand_rules.server import RulesServer

__all__ = ["COMPONENTS", "Component", "build", "run"]


class Component(Protocol):
    """Something ``hand_run`` starts and stops."""

    name: str

    @property
    def target(self) -> str:
        """Where clients on this machine reach it (``host:port``)."""
        ...

    async def start(self) -> None: ...

    async def stop(self) -> None: ...


def _rules(environ: Mapping[str, str] | None) -> Component:
    return RulesServer(RulesConfig.from_env(environ).server)


#: Factories (environment → component), in start order.
COMPONENTS: list[Callable[[Mapping[str, str] | None], Component]] = [_rules]


def build(environ: Mapping[str, str] | None = None) -> list[Component]:
    """Every component, configured from ``environ`` (default: the process environment).

    Raises ``hand_common.config.ConfigError`` before anything starts.
    """
    return [factory(environ) for factory in COMPONENTS]


async def run(components: Sequence[Component], stop: asyncio.Event,
              announce: Callable[[str], None] = print) -> None:
    """Start ``components`` in order, wait for ``stop``, stop them in reverse order."""
    started: list[Component] = []
    try:
        for component in components:
            await component.start()
            started.append(component)
            announce(f"{component.name}: listening on {component.target}")
        announce("hand: running; Ctrl-C stops")
        await stop.wait()
    finally:
        for component in reversed(started):
            await component.stop()
        if started:
            announce("hand: stopped")
