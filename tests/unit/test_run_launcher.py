"""``hand_run`` starts components in order and stops them in reverse, even after a failed start."""

from __future__ import annotations

import asyncio

import pytest

from hand_common.env import ConfigError
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


class Slow(Fake):
    """Starts only once ``gate`` is set: an ``alongside`` component must be started meanwhile."""

    alongside = True

    def __init__(self, name: str, journal: list[str], gate: asyncio.Event, fail: bool = False) -> None:
        super().__init__(name, journal, fail)
        self._gate = gate

    async def start(self) -> None:
        self._journal.append(f"begin {self.name}")
        await self._gate.wait()
        await super().start()


class Opener(Fake):
    alongside = True

    def __init__(self, name: str, journal: list[str], gate: asyncio.Event) -> None:
        super().__init__(name, journal)
        self._gate = gate

    async def start(self) -> None:
        await super().start()
        self._gate.set()


async def test_an_alongside_component_starts_together_with_the_one_before_it() -> None:
    journal: list[str] = []
    gate = asyncio.Event()
    stop = asyncio.Event()
    stop.set()
    first = Fake("a", journal)
    slow = Slow("b", journal, gate)
    slow.alongside = False  # b waits for c, which starts only with it
    await asyncio.wait_for(run([first, slow, Opener("c", journal, gate), Fake("d", journal)], stop,
                               lambda _: None), 5)
    assert journal == ["start a", "begin b", "start c", "start b", "start d", "stop d", "stop c", "stop b", "stop a"]


async def test_a_failed_alongside_start_stops_its_started_sibling_and_those_before() -> None:
    journal: list[str] = []
    gate = asyncio.Event()
    gate.set()
    with pytest.raises(RuntimeError):
        await run([Fake("a", journal), Fake("b", journal), Slow("c", journal, gate, fail=True), Fake("d", journal)],
                  asyncio.Event(), lambda _: None)
    assert journal == ["start a", "start b", "begin c", "stop b", "stop a"]


def test_the_bots_ledger_and_auth_start_together() -> None:
    from hand_run import _start_groups

    names = [[c.name for c in group] for group in _start_groups(build({}))]
    assert names == [["metrics"], ["broker"], ["rules"], ["room"], ["bot", "ledger", "auth"], ["web"]]


def test_the_rules_service_is_a_component_configured_from_the_environment() -> None:
    components = build({"HAND_RULES_HOST": "0.0.0.0", "HAND_RULES_PORT": "6000"})
    assert [c.name for c in components] == ["metrics", "broker", "rules", "room", "bot", "ledger", "auth", "web"]
    rules = components[2]
    assert rules.name == "rules" and rules.config.port == 6000
    with pytest.raises(ConfigError):
        build({"HAND_RULES_PORT": "seventy"})


LEFT_BEHIND = '''
import asyncio, threading, hand_run
from hand_run.__main__ import main

class HalfMade:
    """Fails to start as a taken port does, leaving a task that outlives cancellation."""
    name, target = "half", ""
    async def start(self):
        async def stubborn():
            while True:
                try:
                    await asyncio.sleep(3600)
                except asyncio.CancelledError:
                    pass
        self.task = asyncio.create_task(stubborn())
        await asyncio.sleep(0)
        raise OSError("cannot listen on 127.0.0.1:1: Address already in use")
    async def stop(self):
        pass

hand_run.COMPONENTS[:] = [lambda environ, stack: HalfMade()]
main()
'''


def test_a_start_that_fails_on_a_taken_port_exits_non_zero_at_once_whatever_it_left() -> None:
    """Bug: ``make run`` that could not bind a port printed "cannot listen on …" and "stopped",
    then stayed alive in ``asyncio.run``'s clean-up (a task of the half-started component that
    would not end), deaf to Ctrl-C and SIGTERM."""
    import subprocess
    import sys
    import time

    began = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", LEFT_BEHIND], capture_output=True, text=True, timeout=60,
                          env={**__import__("os").environ, "HAND_LOG_LEVEL": "warning"})
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert "hand: cannot listen on 127.0.0.1:1" in proc.stderr
    assert time.monotonic() - began < 20
