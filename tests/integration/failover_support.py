"""Room instances as separate processes (``python -m hand_room``) for the failover and
chaos tests, and an Act retried with one action id across them as clients do."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import grpc

from .room_support import Player, moved_to, rule_error_of

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


async def act_retrying(player: Player, stubs: list, action, action_id: str, deadline: float,
                       refused: list | None = None, at: dict | None = None):
    """Act with one action id, retrying (same id) on UNAVAILABLE or a dead instance,
    and following ROOM_MOVED to the owner's stub in ``at`` (address → stub); each
    refusal is appended to ``refused`` as ``(status code, seconds it took, the
    RuleError detail or None)``."""
    while True:
        for stub in stubs:
            player.stub = stub
            began = time.monotonic()
            try:
                try:
                    return await player.act(action, action_id=action_id)
                except grpc.aio.AioRpcError as exc:
                    owner = moved_to(exc)
                    if owner is None or at is None or owner not in at:
                        raise
                    player.stub = at[owner]  # the room's owner: one redirect, then cached
                    return await player.act(action, action_id=action_id)
            except grpc.aio.AioRpcError as exc:
                if moved_to(exc) is not None:
                    continue
                if exc.code() not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
                    raise
                if refused is not None:
                    refused.append((exc.code(), time.monotonic() - began, rule_error_of(exc)))
            if time.monotonic() > deadline:
                raise AssertionError("no instance accepted the action in time")
            await asyncio.sleep(0.2)
