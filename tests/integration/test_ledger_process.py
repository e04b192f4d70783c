"""``python -m hand_ledger`` as a process: it serves health once it has joined the
broker and opened its store, stops cleanly on SIGTERM, and refuses a bad setting
with exit status 2 before binding anything."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from hand_common.healthcheck import check

ROOT = Path(__file__).resolve().parents[2]


def test_the_ledger_process_serves_health_and_stops_on_sigterm(broker, tmp_path: Path, unique: str) -> None:
    out = tmp_path / "ledger.out"
    env = {**os.environ, "KAFKA_BOOTSTRAP_SERVERS": broker.bootstrap_servers, "HAND_LEDGER_PORT": "0",
           "HAND_LEDGER_URL": f"sqlite:///{tmp_path / 'ledger.db'}", "HAND_LEDGER_GROUP": f"g-{unique}",
           "HAND_LOG_FORMAT": "json", "HAND_SHUTDOWN_GRACE_S": "0"}
    with out.open("w") as stdout:
        proc = subprocess.Popen([sys.executable, "-m", "hand_ledger"], env=env, cwd=ROOT,
                                stdout=stdout, stderr=subprocess.STDOUT)
    try:
        target = None
        deadline = time.monotonic() + 60
        while target is None and time.monotonic() < deadline:
            for line in out.read_text().splitlines():
                if line.startswith("ledger service listening on "):
                    target = line.removeprefix("ledger service listening on ")
            assert proc.poll() is None, out.read_text()
            time.sleep(0.05)
        assert target is not None, out.read_text()
        assert check(target) == "SERVING"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_an_invalid_setting_exits_with_status_2() -> None:
    env = {**os.environ, "HAND_LEDGER_PORT": "seventy"}
    done = subprocess.run([sys.executable, "-m", "hand_ledger"], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and "HAND_LEDGER_PORT" in done.stderr
