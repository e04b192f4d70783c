"""Two room instances and a real browser (docs/clients.md, "Reaching the room's owner"): the stack of
``make run`` (``hand_run.process.LocalStack``) and a second ``python -m hand_room`` on its broker and
store that serves browsers itself (``HAND_WEB_ENABLED=on``, its own ``HAND_WEB_ADVERTISED_URL``, the
stack's page origin in ``HAND_WEB_CORS_ORIGINS``). ``web/e2e/two-instances.scenario.mjs``: a page
served by the second instance hosts a room (so that instance owns it); a page served by the stack
joins it by code and plays two turns with its Act and Watch sent cross-origin to the owner;
after a reload its first Watch is refused ROOM_MOVED at home and followed, marked."""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

from hand_run.process import LocalStack, RoomInstance

from .browser_support import CHROMIUM, WEB, ensure_built


STEADY = {"HAND_ROOM_SESSION_TIMEOUT_MS": "6000", "HAND_ROOM_HEARTBEAT_MS": "500"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _second_instance(stack: LocalStack, log: Path) -> tuple[RoomInstance, str]:
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**stack.env, "KAFKA_BOOTSTRAP_SERVERS": stack.targets["broker"], "HAND_ROOM_PORT": "0",
           "HAND_WEB_ENABLED": "on", "HAND_WEB_HOST": "127.0.0.1", "HAND_WEB_PORT": str(port),
           "HAND_WEB_ADVERTISED_URL": url, "HAND_WEB_CORS_ORIGINS": stack.url.rstrip("/"),
           "HAND_LOG_LEVEL": "info", **STEADY}
    room = RoomInstance(env, log)
    room.start()
    return room, url


def _notable(log: Path) -> str:
    """A log's lines that explain a failed scenario: ownership moves, warnings, errors, refusals."""
    keep = ("partitions_", "warning", "error", "ROOM_MOVED", "redirect", "feed_", "Heartbeat", "rebalanc")
    lines = [line for line in log.read_text(errors="replace").splitlines() if any(k in line for k in keep)]
    return "\n".join(lines[-60:])[-6000:]


def test_a_page_plays_a_room_owned_by_another_instance(tmp_path: Path) -> None:
    assert os.access(CHROMIUM, os.X_OK), f"{CHROMIUM} is missing: run `make chromium` (Debian's chromium)"
    ensure_built()
    # A longer group session than the default 1 s: on a loaded machine a missed heartbeat moves the
    # room's partition mid-scenario (a fail-over, not what this scenario is about)
    with LocalStack(tmp_path, env=STEADY) as stack:
        second, url_b = _second_instance(stack, tmp_path / "room-b.out")
        try:
            env = {**os.environ, "HAND_WEB_URL": stack.url, "HAND_WEB_URL_B": f"{url_b}/", "CHROMIUM": CHROMIUM}
            result = subprocess.run(["node", "--test", "e2e/two-instances.scenario.mjs"], cwd=WEB, env=env,
                                    capture_output=True, text=True, timeout=300)
        finally:
            second.stop()
    assert result.returncode == 0, (result.stdout[-6000:] + result.stderr[-2000:]
                                    + "\n--- the stack (A) ---\n" + _notable(stack.log)
                                    + "\n--- room B ---\n" + _notable(tmp_path / "room-b.out"))
    assert "# fail 0" in result.stdout and "# pass 1" in result.stdout, result.stdout[-3000:]
