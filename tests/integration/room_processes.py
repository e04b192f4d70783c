"""Room-service instances as processes (``python -m hand_room``), for tests that kill or
freeze one (SIGKILL, SIGSTOP): the address it listens on, the partitions it owns."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PARTITIONS = 8


class Instance:
    def __init__(self, name: str, bootstrap: str, store_url: str, log_dir: Path, **extra_env: str) -> None:
        self.name = name
        self.log = log_dir / f"{name}.log"
        env = {**os.environ, "KAFKA_BOOTSTRAP_SERVERS": bootstrap, "HAND_EVENTSTORE_URL": store_url,
               "HAND_ROOM_PORT": "0", "HAND_LOG_FORMAT": "json", "HAND_ROOM_PRESENCE_GRACE_S": "30",
               "HAND_ROOM_COMMAND_TIMEOUT_S": "4", "HAND_KAFKA_PARTITIONS": str(PARTITIONS), **extra_env}
        self.out = self.log.open("w")
        self.proc = subprocess.Popen([sys.executable, "-m", "hand_room"], env=env, cwd=ROOT,
                                     stdout=self.out, stderr=subprocess.STDOUT)
        self.target = ""

    def lines(self) -> list[str]:
        return self.log.read_text().splitlines()

    async def ready(self) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            for line in self.lines():
                if line.startswith("room service listening on "):
                    self.target = line.removeprefix("room service listening on ")
                    return
            assert self.proc.poll() is None, self.log.read_text()[-3000:]
            await asyncio.sleep(0.05)
        raise AssertionError(f"{self.name} did not start")

    def owned(self) -> set[int]:
        parts: set[int] = set()
        for line in self.lines():
            if line.startswith("{"):
                rec = json.loads(line)
                if rec.get("event") == "partitions_assigned":
                    parts |= set(rec["partitions"])
                elif rec.get("event") == "partitions_revoked":
                    parts -= set(rec["partitions"])
        return parts

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """Stop the process (a frozen one is continued first, so it can exit)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.out.close()
