"""One-hour soak at human pace: does the stack on the embedded broker stay flat?

The embedded default as ``make run`` keeps it: Tansu (memory storage, no retention)
kept by hand_run's keeper with its memory bound (``--max-rss-mb``, the keeper's
HAND_BROKER_MAX_RSS_MB), the room service as a process on a SQLite store and the
ledger as a process (archiving from hand.room-events, repairing from the store).
``--instances 2`` adds a second room instance on the same store: about half the
rooms are then owned by the instance the clients are not on, and their commands,
replies and events cross the broker. ``--rooms`` 2-seat
rooms act at human pace (one action every ``--pace`` s on average, uniform ±50 %);
a room whose match ends is replaced by a new one, so the load stays level. Every
client is on instance A.

Each minute: act→seen p50/p99 (Act call → the move reaching the other seat's
Watch stream), Act p99, errors, Tansu's RSS and CPU, the room instances' and the
ledger's CPU and RSS, everything else on the machine, and a same-run baseline:
50 bare aiokafka round trips on a second, empty Tansu (the machine's noise on
the Kafka path, which does not grow). At the end: the first ten minutes against
the last ten (goal: act→seen p99 ratio ≤ 1.3), also divided by the baseline's
ratio, the broker's rotations, and whether the ledger holds every stored event.

    .venv/bin/python bench/soak_broker.py [--duration 3600] [--rooms 40] [--pace 2]
        [--max-rss-mb 1024] [--window 600] [--json PATH]

Markdown on stdout, a line a minute on stderr, results in bench/results/soak.json.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import os
import random
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import grpc

sys.path.insert(0, str(Path(__file__).resolve().parent))

from roomload import ROOT  # noqa: E402
from roomload.baselines import kafka_round_trips
from roomload.clients import BenchRoom, Tally, create_room
from roomload.measure import cpu_s, machine_busy_s, pct, rss_bytes, run_and_report
from roomload.processes import Service, Tansu

from hand.v1 import room_service_pb2_grpc as pb_grpc
from hand_infra.eventstore import EventStore
from hand_infra.settings import KafkaSettings
from hand_run import Broker, Stack

PARTITIONS = 8


def say(text: str) -> None:
    print(f"soak_broker: {text}", file=sys.stderr, flush=True)


@dataclasses.dataclass
class Config:
    duration_s: float = 3600.0
    rooms: int = 40
    pace_s: float = 2.0
    max_rss_mb: int = 64
    window_s: float = 600.0  # the first and the last window compared
    bin_s: float = 60.0
    instances: int = 1  # room instances: 1 is make run's shape; 2 puts half the rooms across the broker


class Soak:
    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        self.tmp = tempfile.TemporaryDirectory(prefix="soak-broker-")
        self.dir = Path(self.tmp.name)
        self.stack = Stack()
        self.broker = Broker({"HAND_BROKER_PORT": "0", "HAND_KAFKA_PARTITIONS": str(PARTITIONS),
                              "HAND_BROKER_MAX_RSS_MB": str(cfg.max_rss_mb)}, self.stack)
        self.baseline = Tansu()
        self.services: dict[str, Service] = {}
        self.store_url = f"sqlite:///{self.dir / 'events.db'}"
        self.tally = Tally()
        self.rooms_made = 0
        self.going = True
        self.created: list[str] = []

    # ------------------------------------------------------------- the stack
    async def start(self) -> None:
        await self.broker.start()
        await self.baseline.start()
        bootstrap = self.stack.kafka.bootstrap_servers
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "services"), str(ROOT / "gen")]),
               "HAND_LOG_FORMAT": "json", "HAND_LOG_LEVEL": "warning", "HAND_SHUTDOWN_GRACE_S": "1",
               "KAFKA_BOOTSTRAP_SERVERS": bootstrap, "HAND_KAFKA_PARTITIONS": str(PARTITIONS),
               "HAND_RATE_PEER_PER_S": "0", "HAND_STREAMS_PER_PEER": "0",
               "HAND_RATE_PLAYER_PER_S": "0", "HAND_STREAMS_PER_PLAYER": "0",
               "HAND_AUTH_DEV_KEY_FILE": str(self.dir / "dev.key"), "HAND_EVENTSTORE_URL": self.store_url}
        group = f"soak-{uuid.uuid4().hex[:8]}"
        for name in ("a", "b")[:self.cfg.instances]:
            self.services[name] = Service(
                f"room-{name}", [sys.executable, "-m", "hand_room"],
                {**env, "HAND_ROOM_HOST": "127.0.0.1", "HAND_ROOM_PORT": "0", "HAND_ROOM_GROUP": group,
                 "HAND_LOG_LEVEL": "info"}, self.dir, r"room service listening on (\S+)")
        self.services["ledger"] = Service(
            "ledger", [sys.executable, "-m", "hand_ledger"],
            {**env, "HAND_LEDGER_HOST": "127.0.0.1", "HAND_LEDGER_PORT": "0", "HAND_LOG_LEVEL": "info",
             "HAND_LEDGER_URL": f"sqlite:///{self.dir / 'ledger.db'}", "HAND_LEDGER_GROUP": f"{group}-l",
             "HAND_LEDGER_EVENTSTORE_URL": self.store_url}, self.dir, r"ledger service listening on (\S+)")
        for s in self.services.values():
            await s.ready()
        await asyncio.sleep(5)  # both room instances in the owners' group before rooms are made

    async def stop(self) -> None:
        for s in self.services.values():
            with contextlib.suppress(Exception):
                await s.stop()
        for b in (self.broker, self.baseline):
            with contextlib.suppress(Exception):
                await b.stop()
        self.tmp.cleanup()

    def pids(self) -> dict[str, int]:
        pids = {name: s.pid for name, s in self.services.items()}
        keeper = self.broker.keeper
        if keeper is not None and keeper.tansu.running:
            pids["tansu"] = keeper.tansu._proc.pid  # noqa: SLF001 (the bench reads /proc of it)
        return pids

    # ------------------------------------------------------------- the load
    async def one_room(self, stubs: list[pb_grpc.RoomServiceStub], rng: random.Random) -> None:
        """Rooms one after another in this slot: each plays until its match ends."""
        while self.going:
            try:
                room: BenchRoom = await create_room(stubs, self.rooms_made)
                self.rooms_made += 1
                self.created.append(room.room_id)
                await room.watch()
            except (grpc.aio.AioRpcError, TimeoutError, ConnectionError) as exc:
                self.tally.error(f"create: {type(exc).__name__}")
                await asyncio.sleep(1)
                continue
            next_t = time.perf_counter() + rng.uniform(0, self.cfg.pace_s)
            try:
                while self.going:
                    delay = next_t - time.perf_counter()
                    if delay > 0:
                        await asyncio.sleep(delay)
                    next_t = max(next_t + self.cfg.pace_s * rng.uniform(0.5, 1.5),
                                 time.perf_counter() - self.cfg.pace_s)
                    if not await room.step(self.tally):
                        break
            finally:
                await asyncio.gather(*(s.close() for s in room.seats), return_exceptions=True)

    async def run(self) -> dict[str, Any]:
        cfg = self.cfg
        target = self.services["a"].target
        channels = [grpc.aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)])
                    for _ in range(4)]
        stubs = [pb_grpc.RoomServiceStub(c) for c in channels]
        rng = random.Random(7)
        base_settings = KafkaSettings(bootstrap_servers=self.baseline.bootstrap_servers, partitions=1,
                                      fetch_max_wait_ms=10)
        slots = [asyncio.create_task(self.one_room(stubs, rng)) for _ in range(cfg.rooms)]
        bins: list[dict[str, Any]] = []
        began = time.perf_counter()
        cpu0 = self._cpu()
        try:
            while time.perf_counter() - began < cfg.duration_s:
                t0 = time.perf_counter()
                await asyncio.sleep(max(0.0, cfg.bin_s - 3))
                base = await kafka_round_trips(base_settings, 50)
                await asyncio.sleep(max(0.0, t0 + cfg.bin_s - time.perf_counter()))
                t1 = time.perf_counter()
                cpu1 = self._cpu()
                bins.append(self._bin(t0 - began, t0, t1, cpu0, cpu1, base))
                cpu0 = cpu1
                b = bins[-1]
                say(f"{b['minute']:>3} min: {b['actions']} acts, act→seen p50 {b['seen_p50_ms']} "
                    f"p99 {b['seen_p99_ms']} ms, base p99 {b['base_p99_ms']} ms, tansu {b['rss_mb'].get('tansu')} MB "
                    f"{b['cpu_share'].get('tansu')} core, errors {b['errors']}")
        finally:
            self.going = False
            _, pending = await asyncio.wait(slots, timeout=cfg.pace_s + 35)
            for t in pending:
                t.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            for c in channels:
                await c.close()
        ledger = await self._ledger_agrees()
        return summarise(cfg, bins, self.broker.keeper, ledger, self.rooms_made)

    def _cpu(self) -> dict[str, float]:
        out = {}
        for name, pid in self.pids().items():
            with contextlib.suppress(OSError):
                out[name] = cpu_s(pid)
        out["machine"] = machine_busy_s()
        return out

    def _bin(self, at: float, t0: float, t1: float, cpu0: dict, cpu1: dict, base: dict) -> dict[str, Any]:
        inside = [s for s in self.tally.samples if t0 <= s.t0 < t1]
        errors = [what for t, what in self.tally.errors if t0 <= t < t1]
        span = t1 - t0
        cpu = {k: round((cpu1[k] - cpu0[k]) / span, 3) for k in cpu1 if k in cpu0 and cpu1[k] >= cpu0[k]}
        ours = sum(v for k, v in cpu.items() if k != "machine")
        cpu["others"] = round(cpu.pop("machine", 0.0) - ours, 3)
        rss = {}
        for name, pid in self.pids().items():
            with contextlib.suppress(OSError):
                rss[name] = round(rss_bytes(pid) / 2**20, 1)
        keeper = self.broker.keeper
        return {"minute": round(at / 60), "actions": len(inside),
                "seen_p50_ms": _r(pct([s.seen for s in inside], 50)), "seen_p99_ms": _r(pct([s.seen for s in inside], 99)),
                "act_p99_ms": _r(pct([s.act for s in inside], 99)), "errors": len(errors),
                "base_p50_ms": _r(pct(base["samples"], 50)), "base_p99_ms": _r(pct(base["samples"], 99)),
                "cpu_share": cpu, "rss_mb": rss, "rotations": keeper.rotations if keeper else 0,
                "samples": [s.seen for s in inside], "base_samples": base["samples"]}

    async def _ledger_agrees(self, wait_s: float = 60.0) -> dict[str, Any]:
        """Whether the ledger ends up with every stored event of every room (it repairs from the store)."""
        store = EventStore(self.store_url)
        await store.start()
        try:
            stored = {r: len(await store.load(r)) for r in self.created}
        finally:
            await store.close()
        import sqlite3

        deadline = time.monotonic() + wait_s
        missing = None
        while time.monotonic() < deadline:
            con = sqlite3.connect(self.dir / "ledger.db")
            try:
                have = dict(con.execute("SELECT room_id, COUNT(*) FROM ledger_events GROUP BY room_id").fetchall())
            except sqlite3.Error:
                have = {}
            finally:
                con.close()
            missing = sum(max(0, n - have.get(r, 0)) for r, n in stored.items())
            if missing == 0:
                break
            await asyncio.sleep(2)
        return {"rooms": len(stored), "stored_events": sum(stored.values()), "missing_in_ledger": missing}


def _r(v: float | None) -> float | None:
    return None if v is None else round(v, 1)


def summarise(cfg: Config, bins: list[dict], keeper, ledger: dict, rooms_made: int) -> dict[str, Any]:
    per = max(1, round(cfg.window_s / cfg.bin_s))
    first, last = bins[:per], bins[-per:]

    def window(part: list[dict]) -> dict[str, Any]:
        seen = [x for b in part for x in b["samples"]]
        base = [x for b in part for x in b["base_samples"]]
        return {"minutes": f"{part[0]['minute']}–{part[-1]['minute'] + 1}" if part else "",
                "actions": len(seen), "seen_p50_ms": _r(pct(seen, 50)), "seen_p99_ms": _r(pct(seen, 99)),
                "base_p99_ms": _r(pct(base, 99)),
                "tansu_rss_mb_max": max((b["rss_mb"].get("tansu", 0) for b in part), default=None),
                "tansu_cpu": _r(sum(b["cpu_share"].get("tansu", 0) for b in part) / len(part) * 1000) if part else None,
                "others_cpu": round(sum(b["cpu_share"].get("others", 0) for b in part) / len(part), 2) if part else None}

    f, la = window(first), window(last)
    ratio = la["seen_p99_ms"] / f["seen_p99_ms"] if f["seen_p99_ms"] and la["seen_p99_ms"] else None
    base_ratio = la["base_p99_ms"] / f["base_p99_ms"] if f["base_p99_ms"] and la["base_p99_ms"] else None
    for b in bins:
        b.pop("samples")
        b.pop("base_samples")
    return {"config": dataclasses.asdict(cfg), "bins": bins, "first": f, "last": la,
            "seen_p99_ratio": round(ratio, 2) if ratio else None,
            "base_p99_ratio": round(base_ratio, 2) if base_ratio else None,
            "seen_p99_ratio_over_base": round(ratio / base_ratio, 2) if ratio and base_ratio else None,
            "rotations": keeper.rotations if keeper else 0, "broker_restarts": keeper.restarts if keeper else 0,
            "rooms_played": rooms_made, "ledger": ledger}


def markdown(res: dict[str, Any]) -> str:
    c = res["config"]
    lines = [f"### Soak: {c['rooms']} rooms at one action per {c['pace_s']:g} s for {c['duration_s'] / 60:.0f} min, "
             f"{c['instances']} room instance(s) (broker bound {c['max_rss_mb']} MB)", "",
             "| window | actions | act→seen p50 | act→seen p99 | baseline Kafka RT p99 | Tansu RSS max | Tansu CPU (‰ core) | others' CPU |",
             "|---|---|---|---|---|---|---|---|"]
    for name in ("first", "last"):
        w = res[name]
        lines.append(f"| {name} ({w['minutes']} min) | {w['actions']} | {w['seen_p50_ms']} ms | {w['seen_p99_ms']} ms | "
                     f"{w['base_p99_ms']} ms | {w['tansu_rss_mb_max']} MB | {w['tansu_cpu']} | {w['others_cpu']} |")
    led = res["ledger"]
    lines += ["", f"act→seen p99 last/first: **{res['seen_p99_ratio']}×** (goal ≤ 1.3×); baseline last/first "
              f"{res['base_p99_ratio']}×; ratio over the baseline's {res['seen_p99_ratio_over_base']}×. "
              f"Broker rotations {res['rotations']} (restarts {res['broker_restarts']}); {res['rooms_played']} rooms "
              f"played; ledger: {led['stored_events']} stored events of {led['rooms']} rooms, "
              f"{led['missing_in_ledger']} missing."]
    return "\n".join(lines)


async def soak(cfg: Config) -> dict[str, Any]:
    s = Soak(cfg)
    try:
        await s.start()
        return await s.run()
    finally:
        await s.stop()


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--duration", type=float, default=3600.0, help="seconds of load")
    p.add_argument("--rooms", type=int, default=40)
    p.add_argument("--pace", type=float, default=2.0, help="mean seconds between two actions of a room")
    p.add_argument("--max-rss-mb", type=int, default=64, help="the keeper's bound on the broker (0: none)")
    p.add_argument("--window", type=float, default=600.0, help="seconds of the first and last windows")
    p.add_argument("--bin", type=float, default=60.0, help="seconds per reported bin")
    p.add_argument("--instances", type=int, default=1, choices=[1, 2],
                   help="room instances (2: half the rooms are owned by the one the clients are not on)")
    p.add_argument("--json", type=Path, default=ROOT / "bench" / "results" / "soak.json")
    a = p.parse_args(argv)
    cfg = Config(duration_s=a.duration, rooms=a.rooms, pace_s=a.pace, max_rss_mb=a.max_rss_mb,
                 window_s=a.window, bin_s=a.bin, instances=a.instances)
    return run_and_report(soak(cfg), a.json, markdown)


if __name__ == "__main__":
    main()
