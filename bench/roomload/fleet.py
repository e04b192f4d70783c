"""The services of the scale-out bench, each its own process: Tansu, an event store shared
by N room instances in one consumer group, and what they cost (CPU from /proc, the bus's
events read then skipped from each instance's ``bus_stats`` log line or metrics port)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import sys
import tempfile
import urllib.request
import uuid
from pathlib import Path

from hand_common.grpc_core import child_env
from hand_infra import _proc
from hand_infra.settings import KafkaSettings
from hand_infra.topics import ensure_topics

from . import ROOT
from .measure import cpu_s
from .processes import Service, Tansu

PARTITIONS = 32


class Fleet:
    """Tansu + store + N × ``python -m hand_room`` (one group, ``PARTITIONS`` partitions)."""

    def __init__(self, instances: int, store: str = "sqlite", metrics: bool = True,
                 extra_env: dict[str, str] | None = None, room_cpus: frozenset[int] | None = None) -> None:
        self.n, self.store, self.metrics, self.extra_env = instances, store, metrics, extra_env or {}
        self.room_cpus = room_cpus  # the room instances run only on these CPUs (None: anywhere)
        self.dir = Path(tempfile.mkdtemp(prefix="bench-scaleout-"))
        self.broker = Tansu()
        self.pg = None
        self.rooms: list[Service] = []
        self.metrics_ports: dict[str, int] = {}

    def _store_url(self) -> str:
        if self.store == "postgres":
            from hand_infra.postgres import TempPostgres

            self.pg = TempPostgres()
            self.pg.start()
            return self.pg.url
        return f"sqlite:///{self.dir / 'events.db'}"

    async def start(self, settle_s: float) -> None:
        await self.broker.start()
        kafka = KafkaSettings(bootstrap_servers=self.broker.bootstrap_servers, partitions=PARTITIONS)
        await ensure_topics(kafka)
        env = {**child_env(), "PYTHONPATH": os.pathsep.join([str(ROOT / "services"), str(ROOT / "gen")]),
               "HAND_LOG_FORMAT": "json", "HAND_LOG_LEVEL": "info", "HAND_SHUTDOWN_GRACE_S": "1",
               # every simulated player comes from this one address: per-peer limits off
               "HAND_RATE_PEER_PER_S": "0", "HAND_STREAMS_PER_PEER": "0", "HAND_RATE_PLAYER_PER_S": "0",
               "HAND_STREAMS_PER_PLAYER": "0", "HAND_AUTH_DEV_KEY_FILE": str(self.dir / "dev.key"),
               "HAND_ROOM_CREATE_PER_PEER_PER_MIN": "0", "HAND_ROOM_CREATE_PER_PLAYER_PER_MIN": "0",
               "KAFKA_BOOTSTRAP_SERVERS": self.broker.bootstrap_servers,
               "HAND_KAFKA_PARTITIONS": str(PARTITIONS), "HAND_EVENTSTORE_URL": self._store_url(),
               "HAND_ROOM_GROUP": f"so-{uuid.uuid4().hex[:8]}", "HAND_ROOM_HOST": "127.0.0.1",
               **self.extra_env}
        self._env = env
        for _ in range(self.n):
            self._spawn()
        await asyncio.gather(*(s.ready() for s in self.rooms))
        await asyncio.sleep(settle_s)  # the group settles: every instance holds its partitions

    def _spawn(self) -> Service:
        i = len(self.rooms)
        port = _proc.free_port()
        inst = {"HAND_ROOM_PORT": str(port), "HAND_ROOM_ADVERTISED_ADDRESS": f"127.0.0.1:{port}"}
        if self.metrics:
            self.metrics_ports[f"room{i}"] = _proc.free_port()
            inst["HAND_ROOM_METRICS_PORT"] = str(self.metrics_ports[f"room{i}"])
        service = Service(f"room{i}", [sys.executable, "-m", "hand_room"], {**self._env, **inst},
                          self.dir, r"room service listening on (\S+)", cpus=self.room_cpus)
        self.rooms.append(service)
        return service

    async def add(self) -> Service:
        """One more instance in the same group (a scale-out while rooms play), once it serves."""
        service = self._spawn()
        await service.ready()
        return service

    @property
    def targets(self) -> list[str]:
        return [s.target for s in self.rooms]

    def pids(self) -> dict[str, int]:
        return {**{s.name: s.pid for s in self.rooms}, "tansu": self.broker.pid}

    def cpu(self) -> dict[str, float]:
        out = {}
        for name, pid in self.pids().items():
            with contextlib.suppress(OSError):
                out[name] = cpu_s(pid)
        return out

    def scrape(self) -> dict[str, dict[str, int]]:
        """events received / decoded per instance from its metrics port, where it has one."""
        out = {}
        for name, port in self.metrics_ports.items():
            with contextlib.suppress(Exception):
                text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2).read().decode()
                got = {}
                for key in ("received", "decoded"):
                    m = re.search(rf"^\S*events_{key}\S*\s+([0-9.e+]+)$", text, re.M)
                    if m:
                        got[key] = int(float(m.group(1)))
                if len(got) == 2:
                    out[name] = got
        return out

    def bus_stats(self) -> dict[str, dict[str, int]]:
        """events received / decoded per instance from its ``bus_stats`` line (logged at stop)."""
        out = {}
        for s in self.rooms:
            for path in (s.out_path, s.err_path):
                for line in path.read_text(errors="replace").splitlines():
                    if '"bus_stats"' not in line:
                        continue
                    with contextlib.suppress(ValueError, KeyError):
                        rec = json.loads(line[line.index("{"):])
                        out[s.name] = {"received": int(rec["events_received"]), "decoded": int(rec["events_decoded"])}
        return out

    def log_counts(self, pattern: str = r'"level":\s*"(warning|error)"') -> dict[str, int]:
        """Warnings and errors logged by the room instances, by event name."""
        counts: dict[str, int] = {}
        rx = re.compile(pattern)
        for s in self.rooms:
            for path in (s.out_path, s.err_path):
                for line in path.read_text(errors="replace").splitlines():
                    if rx.search(line):
                        m = re.search(r'"event":\s*"([^"]+)"', line)
                        key = m.group(1) if m else "?"
                        counts[key] = counts.get(key, 0) + 1
        return counts

    async def stop(self) -> None:
        for s in self.rooms:
            with contextlib.suppress(Exception):
                await s.stop()
        with contextlib.suppress(Exception):
            await self.broker.stop()
        if self.pg is not None:
            with contextlib.suppress(Exception):
                self.pg.stop()

    def cleanup(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)
