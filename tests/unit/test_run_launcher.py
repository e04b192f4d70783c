"""``hand_run`` starts components in order and stops them in reverse, even after a failed start."""

from __future__ import annotations

import asyncio

import pytest

from hand_common.config import ConfigError
from hand_run import build, run


class Fake:
    def __init__(self, name: str, journal: list[str], fail: bool = False) -> None:
        self.name, self.target, self._journal, self._fail = name, f"{name}:1", journal, fail

    async def start(self) -> None:
        if self._fail:
            raise RuntimeError(f"{self.name} cannot start")
        self._journal.append(f"start {self.name}")

    async def stop(self) -> None:
        self._journal.append(f"stop {self.name}")


async def test_components_start_in_order_and_stop_in_reverse_order() -> None:
    journal: list[str] = []
    said: list[str] = []
    stop = asyncio.Event()
    stop.set()
    await run([Fake("a", journal), Fake("b", journal)], stop, said.append)
    assert journal == ["start a", "start b", "stop b", "stop a"]
    assert said[:2] == ["a: listening on a:1", "b: listening on b:1"]


async def test_a_failed_start_stops_the_components_already_started() -> None:
    journal: list[str] = []
    with pytest.raises(RuntimeError):
        await run([Fake("a", journal), Fake("b", journal, fail=True), Fake("c", journal)],
                  asyncio.Event(), lambda _: None)
    assert journal == ["start a", "stop a"]


def test_the_rules_service_is_a_component_configured_from_the_environment() -> None:
    components = build({"HAND_RULES_HOST": "0.0.0.0", "HAND_RULES_PORT": "6000"})
    assert [c.name for c in components] == ["metrics", "broker", "rules", "room", "bot", "ledger", "auth", "web"]
    rules = components[2]
    assert rules.name == "rules" and rules.config.port == 6000
    with pytest.raises(ConfigError):
        build({"HAND_RULES_PORT": "seventy"})
