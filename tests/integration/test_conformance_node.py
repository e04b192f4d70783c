"""The Node.js conformance client (clients/conformance, written from proto/ only)
against the real stack: ``python -m hand_run`` (embedded broker, rules, room,
bots, ledger) on free ports, a second room instance (``python -m hand_room``:
the same broker, store and consumer group), then ``node --test
clients/conformance`` with the addresses in the environment (the second
instance's as ``HAND_ROOM_ADDR_B``: owner.test.js plays a room created on one
instance with a player who joined through the other; tournament.test.js plays a
duplicate tournament through the ledger's TournamentService, whose tables
hand_run makes on its room instance). Fails on a non-zero exit, showing node's
output."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hand_run.process import RoomInstance, interrupt

ROOT = Path(__file__).resolve().parents[2]
NAMES = {"broker": "KAFKA_BOOTSTRAP_SERVERS", "rules": "HAND_RULES_ADDR", "room": "HAND_ROOM_ADDR",
         "ledger": "HAND_LEDGER_ADDR", "auth": "HAND_AUTH_ADDR"}
REQUIRED = {"KAFKA_BOOTSTRAP_SERVERS", "HAND_RULES_ADDR", "HAND_ROOM_ADDR", "HAND_LEDGER_ADDR"}


def _node_ready() -> None:
    if shutil.which("node") is None:
        pytest.fail("node is not installed (the conformance client needs Node.js 20)")
    # make's stamp: npm install only when package.json / package-lock.json changed.
    subprocess.run(["make", "-s", "node_modules/.stamp"], cwd=ROOT, check=True, timeout=300)


def _addresses(proc: subprocess.Popen, out: Path, timeout: float) -> dict[str, str]:
    deadline = time.monotonic() + timeout
    found: dict[str, str] = {}
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"hand_run exited:\n{out.read_text()}"
        for line in out.read_text().splitlines():
            name, sep, rest = line.partition(": listening on ")
            if sep and name in NAMES:
                found[NAMES[name]] = rest.strip()
            if line.startswith("hand: running"):
                return found
        time.sleep(0.1)
    raise AssertionError(f"hand_run did not start in {timeout} s:\n{out.read_text()}")


def test_the_node_conformance_client_passes_against_the_real_stack(tmp_path: Path) -> None:
    _node_ready()
    out = tmp_path / "run.out"
    env = {k: v for k, v in os.environ.items() if k != "KAFKA_BOOTSTRAP_SERVERS"}
    env |= {"HAND_BROKER_PORT": "0", "HAND_WEB_PORT": "0", "HAND_RULES_PORT": "0", "HAND_ROOM_PORT": "0", "HAND_LEDGER_PORT": "0",
            "HAND_BOT_PORT": "0",
            "HAND_LOG_FORMAT": "json",
            "HAND_EVENTSTORE_URL": f"sqlite:///{tmp_path / 'events.db'}",
            "HAND_LEDGER_URL": f"sqlite:///{tmp_path / 'ledger.db'}",
            "HAND_AUTH_PORT": "0", "HAND_AUTH_URL": f"sqlite:///{tmp_path / 'auth.db'}",
            "HAND_AUTH_DEV_KEY_FILE": str(tmp_path / "auth-dev.key")}
    with out.open("w") as stdout:
        proc = subprocess.Popen([sys.executable, "-m", "hand_run"], env=env, cwd=ROOT,
                                stdout=stdout, stderr=subprocess.STDOUT)
    second = None
    try:
        addresses = _addresses(proc, out, timeout=60)
        assert REQUIRED <= set(addresses), out.read_text()
        second = RoomInstance({**env, "KAFKA_BOOTSTRAP_SERVERS": addresses["KAFKA_BOOTSTRAP_SERVERS"],
                               "HAND_ROOM_PORT": "0"}, tmp_path / "room-b.out")
        room_b = second.start()  # a second room instance: the same broker, store and group
        node_env = {**os.environ, **addresses, "HAND_ROOM_ADDR_B": room_b, "HAND_CONFORMANCE_REQUIRED": "1"}
        done = subprocess.run(["node", "--test", "--test-reporter=spec", "clients/conformance"], cwd=ROOT,
                              env=node_env, capture_output=True, text=True, timeout=240)
        assert done.returncode == 0, (f"node --test clients/conformance exited {done.returncode}\n"
                                      f"{done.stdout}\n{done.stderr}\n--- hand_run ---\n{out.read_text()[-6000:]}"
                                      f"\n--- room B ---\n{(tmp_path / 'room-b.out').read_text()[-4000:]}")
        assert "# fail 0" in done.stdout or "fail 0" in done.stdout, done.stdout
        assert "# skipped 0" in done.stdout or "skipped 0" in done.stdout, done.stdout
    finally:
        if second is not None:
            second.stop()
        interrupt(proc)
