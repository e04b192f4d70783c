"""Tansu + rules service + room service, each its own process, for a room bench."""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

from hand_common.grpc_core import child_env
from hand_infra import _proc
from hand_infra.settings import KafkaSettings
from hand_infra.topics import ensure_topics

from . import ROOT
from .measure import cpu_s, machine_busy_s, progress
from .processes import Service, Tansu

if TYPE_CHECKING:  # the bench's settings (bench_rooms.Config): profile_level, log_level, rules_in_process
    from bench_rooms import Config

PARTITIONS = 8


ROOM_WITH_CPROFILE = """
import cProfile, os, signal
profile = cProfile.Profile()
def _on(*_): profile.enable()
def _off(*_):
    profile.disable(); profile.dump_stats(os.environ["BENCH_PROFILE_OUT"])
signal.signal(signal.SIGUSR1, _on)
signal.signal(signal.SIGUSR2, _off)
from hand_room.__main__ import main
main()
"""


def py_spy() -> str | None:
    local = Path(sys.executable).parent / "py-spy"
    return str(local) if local.exists() else shutil.which("py-spy")


class Stack:
    """Tansu + rules service + room service, each its own process."""

    def __init__(self, cfg: Config, room_env: dict[str, str] | None = None) -> None:
        self.cfg = cfg
        self.room_env = dict(room_env or {})  # more variables for the room service (--observability-cost)
        self.tmp = tempfile.TemporaryDirectory(prefix="bench-rooms-")
        self.dir = Path(self.tmp.name)
        self.broker = Tansu()
        self.rules: Service | None = None
        self.room: Service | None = None
        self.kafka: KafkaSettings | None = None
        self.cprofile = cfg.profile_level is not None and py_spy() is None

    async def start(self) -> None:
        t0 = time.perf_counter()
        await self.broker.start()
        self.kafka = KafkaSettings(bootstrap_servers=self.broker.bootstrap_servers, partitions=PARTITIONS)
        await ensure_topics(self.kafka)
        env = {**child_env(), "PYTHONPATH": os.pathsep.join([str(ROOT / "services"), str(ROOT / "gen")]),
               "HAND_LOG_FORMAT": "json", "HAND_LOG_LEVEL": self.cfg.log_level, "HAND_SHUTDOWN_GRACE_S": "1",
               # every simulated player comes from this one address: per-peer limits off
               "HAND_RATE_PEER_PER_S": "0", "HAND_STREAMS_PER_PEER": "0",
               "HAND_RATE_PLAYER_PER_S": "0", "HAND_STREAMS_PER_PLAYER": "0",
               "HAND_ROOM_CREATE_PER_PEER_PER_MIN": "0", "HAND_ROOM_CREATE_PER_PLAYER_PER_MIN": "0",
               "HAND_AUTH_DEV_KEY_FILE": str(self.dir / "dev.key")}
        port = _proc.free_port()  # (its "listening" log line is at info: gone at --log-level warning)
        self.rules = Service("rules", [sys.executable, "-m", "hand_rules"],
                             {**env, "HAND_RULES_HOST": "127.0.0.1", "HAND_RULES_PORT": str(port)},
                             self.dir, target=f"127.0.0.1:{port}")
        await self.rules.ready()
        room_env = {**env, "HAND_ROOM_HOST": "127.0.0.1", "HAND_ROOM_PORT": "0",
                    "HAND_RULES_ADDRESS": "" if self.cfg.rules_in_process else self.rules.target,
                    "KAFKA_BOOTSTRAP_SERVERS": self.broker.bootstrap_servers,
                    "HAND_KAFKA_PARTITIONS": str(PARTITIONS),
                    "HAND_EVENTSTORE_URL": f"sqlite:///{self.dir / 'events.db'}",
                    "HAND_ROOM_GROUP": f"bench-{uuid.uuid4().hex[:8]}",
                    "BENCH_PROFILE_OUT": str(self.dir / "room.pstats"), **self.room_env}
        argv = [sys.executable, "-c", ROOM_WITH_CPROFILE] if self.cprofile else [sys.executable, "-m", "hand_room"]
        self.room = Service("room", argv, room_env, self.dir, r"room service listening on (\S+)")
        await self.room.ready()
        progress(f"stack up in {time.perf_counter() - t0:.1f} s: tansu {self.broker.bootstrap_servers}, "
                 f"rules {self.rules.target}, room {self.room.target}")

    def pids(self) -> dict[str, int]:
        assert self.rules is not None and self.room is not None
        return {"room": self.room.pid, "rules": self.rules.pid, "tansu": self.broker.pid, "bench": os.getpid()}

    def cpu(self) -> dict[str, float]:
        """CPU seconds of each of our processes, and of everything else on the machine ("others")."""
        ours = {name: cpu_s(pid) for name, pid in self.pids().items()}
        ours["others"] = machine_busy_s() - sum(ours.values())
        return ours

    async def stop(self) -> None:
        for service in (self.room, self.rules):
            if service is not None:
                with contextlib.suppress(Exception):
                    await service.stop()
        with contextlib.suppress(Exception):
            await self.broker.stop()
        self.tmp.cleanup()
