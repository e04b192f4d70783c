"""``HAND_EVENT_LOOP``: every service process runs on uvloop unless told asyncio."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hand_common import event_loop
from hand_common.config import LogConfig
from hand_common.env import ConfigError

ROOT = Path(__file__).resolve().parents[2]


async def _loop_module() -> str:
    return type(asyncio.get_running_loop()).__module__


def test_run_uses_the_loop_it_is_told() -> None:
    assert event_loop.run(_loop_module(), "uvloop").startswith("uvloop")
    assert event_loop.run(_loop_module(), "asyncio").startswith("asyncio")


def test_the_default_is_uvloop_and_anything_else_is_refused() -> None:
    assert LogConfig.from_env({}).event_loop == "uvloop"
    assert LogConfig.from_env({"HAND_EVENT_LOOP": "asyncio"}).event_loop == "asyncio"
    with pytest.raises(ConfigError, match="HAND_EVENT_LOOP"):
        LogConfig.from_env({"HAND_EVENT_LOOP": "trio"})


@pytest.mark.parametrize(("setting", "expected"), [(None, "uvloop"), ("asyncio", "asyncio")])
def test_a_service_process_serves_on_the_configured_loop(setting: str | None, expected: str, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "HAND_EVENT_LOOP"}
    env |= {"HAND_RULES_PORT": "0", "HAND_LOG_FORMAT": "json", "HAND_LOG_LEVEL": "info",
            "PYTHONPATH": os.pathsep.join([str(ROOT / "services"), str(ROOT / "gen")])}
    if setting is not None:
        env["HAND_EVENT_LOOP"] = setting
    out = tmp_path / "rules.out"
    with out.open("w") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "hand_rules"], env=env, stdout=sink, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while "\"serving\"" not in out.read_text():
            assert proc.poll() is None and time.monotonic() < deadline, out.read_text()
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0, out.read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
    serving = [line for line in out.read_text().splitlines() if '"serving"' in line]
    assert len(serving) == 1 and f'"event_loop": "{expected}"' in serving[0], out.read_text()
