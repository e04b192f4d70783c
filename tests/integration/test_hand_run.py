"""``python -m hand_run`` (``make run``) serves the rules service and stops cleanly on Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from hand_common.healthcheck import check

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_make_run_serves_the_rules_service_and_ctrl_c_stops_it(tmp_path: Path) -> None:
    """Also: HAND_BROKER_PORT fixes the embedded broker's port, and make run prints how
    a client connects to every part."""
    out = tmp_path / "run.out"
    broker_port = _free_port()
    env = {**os.environ, "HAND_RULES_PORT": "0", "HAND_ROOM_PORT": "0", "HAND_BROKER_PORT": str(broker_port),
           "HAND_LOG_FORMAT": "json",
           "HAND_EVENTSTORE_URL": f"sqlite:///{tmp_path / 'events.db'}",
           "HAND_LEDGER_PORT": "0", "HAND_WEB_PORT": "0", "HAND_LEDGER_URL": f"sqlite:///{tmp_path / 'ledger.db'}",
           "HAND_AUTH_PORT": "0", "HAND_AUTH_URL": f"sqlite:///{tmp_path / 'auth.db'}",
           "HAND_AUTH_DEV_KEY_FILE": str(tmp_path / "auth-dev.key"), "HAND_BOT_PORT": "0"}
    with out.open("w") as stdout:
        proc = subprocess.Popen([sys.executable, "-m", "hand_run"], env=env, cwd=ROOT,
                                stdout=stdout, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        target = ledger = auth = None
        while (target is None or ledger is None or auth is None) and time.monotonic() < deadline:
            for line in out.read_text().splitlines():
                if line.startswith("rules: listening on "):
                    target = line.removeprefix("rules: listening on ")
                if line.startswith("ledger: listening on "):
                    ledger = line.removeprefix("ledger: listening on ")
                if line.startswith("auth: listening on "):
                    auth = line.removeprefix("auth: listening on ")
            assert proc.poll() is None, out.read_text()
            time.sleep(0.05)
        assert target is not None, "no 'rules: listening on' line"
        assert check(target) == "SERVING"
        assert ledger is not None and check(ledger) == "SERVING"
        while "hand: running; Ctrl-C stops" not in out.read_text() and time.monotonic() < deadline:
            time.sleep(0.05)
        lines = out.read_text().splitlines()
        assert f"broker: listening on 127.0.0.1:{broker_port}" in lines
        hint = next(line for line in lines if line.startswith("hand: clients connect with "))
        assert f"KAFKA_BOOTSTRAP_SERVERS=127.0.0.1:{broker_port}" in hint and f"HAND_RULES_ADDR={target}" in hint
        assert "HAND_ROOM_ADDR=" in hint and f"HAND_LEDGER_ADDR={ledger}" in hint
        assert auth is not None and check(auth) == "SERVING"
        assert f"HAND_AUTH_ADDR={auth}" in hint  # bug: the auth address was missing
        bot = next(line for line in lines if line.startswith("bot: listening on "))
        bot_health = bot.removeprefix("bot: listening on ").split(" ")[0]  # bug: no health port
        assert check(bot_health) in ("SERVING", "NOT_SERVING")
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert out.read_text().splitlines()[-1] == "hand: stopped"


def test_make_run_exits_non_zero_at_once_when_a_port_is_taken(tmp_path: Path) -> None:
    """``make run`` whose rules port is taken says so, stops what it started and exits 1 at once."""
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {**os.environ, "HAND_RULES_PORT": str(port), "HAND_ROOM_PORT": "0", "HAND_BROKER_PORT": "0",
               "HAND_LEDGER_PORT": "0", "HAND_WEB_PORT": "0", "HAND_AUTH_PORT": "0", "HAND_BOT_PORT": "0",
               "HAND_LOG_LEVEL": "warning", "HAND_EVENTSTORE_URL": f"sqlite:///{tmp_path / 'events.db'}",
               "HAND_LEDGER_URL": f"sqlite:///{tmp_path / 'ledger.db'}",
               "HAND_AUTH_URL": f"sqlite:///{tmp_path / 'auth.db'}",
               "HAND_AUTH_DEV_KEY_FILE": str(tmp_path / "auth-dev.key")}
        began = time.monotonic()
        proc = subprocess.run([sys.executable, "-m", "hand_run"], env=env, cwd=ROOT, capture_output=True,
                              text=True, timeout=60)
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert f"hand: cannot listen on 127.0.0.1:{port}" in proc.stderr
    assert proc.stdout.splitlines()[-1] == "hand: stopped"
    assert time.monotonic() - began < 30
