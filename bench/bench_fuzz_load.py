"""A normal player's act→seen while someone else floods the room service with bad requests.

The stack as deployed: Tansu, the room service as a process with its default door
and load shedding (the ``HAND_RATE_*`` defaults; 64 streams per peer, as the players'
one address stands for many), listening on
``::`` so that the players (over 127.0.0.1) and the flooder (over ::1) are different
peers, as they would be on a network. ``--rooms`` 2-seat rooms act at human pace
(one action every ``--pace`` s, uniform ±50 %) the whole time; act→seen is the Act
call to the move reaching the other seat's Watch stream.

The flooder is another process (``nice 19``: an attacker's own CPU is not the
service's on a real network, but here they share two cores) sending requests from
tests/integration/fuzz_support.py's generators — garbage bytes, mutated and random
messages, oversized fields, garbage metadata — round-robin over every RoomService
RPC, with hints (a real room id, a seat token of a room of its own). Phases of
``--window`` s each: ``--cycles`` pairs of quiet / fuzz at ``--rate`` requests/s
(the issue's "30 such requests per second"), interleaved so the machine's drift
falls on both; then fuzz flat out (``--concurrency`` in flight) and quiet again.
Per phase and pooled by kind: act→seen p50/p99, the flooder's calls/s and
statuses, CPU per process; ratios to the pooled quiet phases (goal: p99 ≤ 1.5×
under the fuzz load).

    .venv/bin/python bench/bench_fuzz_load.py [--rooms 30] [--window 45] [--rate 30]
        [--concurrency 16] [--cycles 3] [--quick] [--json PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import grpc

sys.path.insert(0, str(Path(__file__).resolve().parent))

from roomload import ROOT  # noqa: E402
from roomload.clients import Tally, create_room
from roomload.measure import cpu_s, machine_busy_s, pct, run_and_report
from roomload.processes import Service, Tansu

from hand.v1 import room_service_pb2 as pb
from hand.v1 import room_service_pb2_grpc as pb_grpc
from hand_infra.settings import KafkaSettings
from hand_infra.topics import ensure_topics

PARTITIONS = 8
TIME_LIMIT_S = 900  # bench/run_all.py: five 60 s phases and the set-up


def say(text: str) -> None:
    print(f"bench_fuzz_load: {text}", file=sys.stderr, flush=True)


# ----------------------------------------------------------------- the flooder (its own process)
async def flood(target: str, hints: dict, rate: float, concurrency: int, seconds: float, seed: int) -> dict:
    sys.path.insert(0, str(ROOT))
    from tests.integration.fuzz_support import KINDS, _metadata, fuzz_body

    service = pb.DESCRIPTOR.services_by_name["RoomService"]
    methods = list(service.methods)
    rng = random.Random(seed)
    statuses: collections.Counter = collections.Counter()
    async with grpc.aio.insecure_channel(target) as channel:
        calls = {}
        for m in methods:
            path = f"/{service.full_name}/{m.name}"
            calls[m.name] = channel.unary_stream(path) if m.server_streaming else channel.unary_unary(path)

        def plan(i: int):
            m = methods[i % len(methods)]
            kind = KINDS[(i // len(methods)) % len(KINDS)]
            return m, fuzz_body(m, kind, rng, hints), _metadata(rng, hints)

        async def one(m, body, metadata) -> None:
            try:
                if m.server_streaming:
                    call = calls[m.name](body, metadata=metadata, timeout=10)
                    try:
                        await asyncio.wait_for(call.read(), 1.0)
                    except asyncio.TimeoutError:
                        pass
                    finally:
                        call.cancel()
                else:
                    await calls[m.name](body, metadata=metadata, timeout=10)
                statuses["OK"] += 1
            except grpc.aio.AioRpcError as exc:
                statuses[exc.code().name] += 1

        gate = asyncio.Semaphore(concurrency)
        end = time.perf_counter() + seconds
        i = 0
        pending: set[asyncio.Task] = set()

        async def gated(args) -> None:
            async with gate:
                await one(*args)

        while time.perf_counter() < end:
            if rate:
                t = asyncio.create_task(gated(plan(i)))
                pending.add(t)
                t.add_done_callback(pending.discard)
                await asyncio.sleep(1 / rate)
            else:
                await gate.acquire()
                gate.release()
                t = asyncio.create_task(gated(plan(i)))
                pending.add(t)
                t.add_done_callback(pending.discard)
                await asyncio.sleep(0)
            i += 1
        await asyncio.gather(*pending, return_exceptions=True)
    return {"sent": i, "statuses": dict(statuses)}


# ----------------------------------------------------------------- the bench
class Bench:
    def __init__(self, a: argparse.Namespace) -> None:
        self.a = a
        self.tmp = tempfile.TemporaryDirectory(prefix="bench-fuzz-")
        self.dir = Path(self.tmp.name)
        self.broker = Tansu()
        self.room: Service | None = None
        self.tally = Tally()
        self.going = True

    async def start(self) -> None:
        await self.broker.start()
        await ensure_topics(KafkaSettings(bootstrap_servers=self.broker.bootstrap_servers, partitions=PARTITIONS))
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "services"), str(ROOT / "gen")]),
               "HAND_LOG_FORMAT": "json", "HAND_LOG_LEVEL": "warning", "HAND_SHUTDOWN_GRACE_S": "1",
               "KAFKA_BOOTSTRAP_SERVERS": self.broker.bootstrap_servers, "HAND_KAFKA_PARTITIONS": str(PARTITIONS),
               "HAND_EVENTSTORE_URL": f"sqlite:///{self.dir / 'events.db'}", "HAND_ROOM_GROUP": f"f-{uuid.uuid4().hex[:8]}",
               "HAND_AUTH_DEV_KEY_FILE": str(self.dir / "dev.key"), "HAND_ROOM_HOST": "::", "HAND_ROOM_PORT": "0",
               # the players' one address stands for many players' (their streams); rates stay default
               "HAND_STREAMS_PER_PEER": "64"}
        self.room = Service("room", [sys.executable, "-m", "hand_room"], {**env, "HAND_LOG_LEVEL": "info"},
                            self.dir, r"room service listening on (\S+)")
        await self.room.ready()
        self.port = int(self.room.target.rsplit(":", 1)[1])

    async def stop(self) -> None:
        if self.room is not None:
            with contextlib.suppress(Exception):
                await self.room.stop()
        with contextlib.suppress(Exception):
            await self.broker.stop()
        self.tmp.cleanup()

    async def drive(self, room, rng: random.Random) -> None:
        pace = self.a.pace
        next_t = time.perf_counter() + rng.uniform(0, pace)
        while self.going:
            delay = next_t - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            next_t = max(next_t + pace * rng.uniform(0.5, 1.5), time.perf_counter() - pace)
            if not await room.step(self.tally):
                break

    def flooder(self, hints: dict, rate: float, concurrency: int, seconds: float) -> subprocess.Popen:
        out = self.dir / f"flood-{time.monotonic_ns()}.json"
        code = ("import asyncio,json,sys;sys.path.insert(0,%r);import bench_fuzz_load as b;"
                "r=asyncio.run(b.flood(%r,%r,%r,%r,%r,%r));open(%r,'w').write(json.dumps(r))"
                % (str(ROOT / "bench"), f"[::1]:{self.port}", hints, rate, concurrency, seconds, 11, str(out)))
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "services"), str(ROOT / "gen"), str(ROOT)])}
        proc = subprocess.Popen(["nice", "-n", "19", sys.executable, "-c", code], env=env)
        proc.out = out  # type: ignore[attr-defined]
        return proc

    async def run(self) -> dict[str, Any]:
        a = self.a
        opts = [("grpc.use_local_subchannel_pool", 1)]
        channels = [grpc.aio.insecure_channel(f"127.0.0.1:{self.port}", options=opts) for _ in range(4)]
        stubs = [pb_grpc.RoomServiceStub(c) for c in channels]
        rooms = [await create_room(stubs, i) for i in range(a.rooms)]
        for r in rooms:
            await r.watch()
        # the flooder's own room (hints: an id, a seat token), not one the players use
        target_room = await create_room(stubs, 10_000)
        hints = {"room_id": [target_room.room_id, rooms[0].room_id],
                 "seat_token": [target_room.seats[0].token], "action_id": ["a1"], "from_seq": [0, 3, 10**6]}
        rng = random.Random(3)
        tasks = [asyncio.create_task(self.drive(r, rng)) for r in rooms]
        await asyncio.sleep(5)  # warm up
        # quiet and fuzzed phases interleaved, so the machine's own drift falls on both alike
        phases = [(f"fuzz {a.rate:g}/s", (a.rate, 10_000)) if i % 2 else ("quiet", None)
                  for i in range(2 * a.cycles)]
        phases += [(f"fuzz flat out ({a.concurrency} in flight)", (0.0, a.concurrency)), ("quiet", None)]
        out = []
        try:
            for name, flood_args in phases:
                say(f"{name} for {a.window:g} s")
                proc = self.flooder(hints, flood_args[0], flood_args[1], a.window) if flood_args else None
                await asyncio.sleep(1.5 if proc else 0)  # the flooder's interpreter start
                pids = {"room": self.room.pid, "tansu": self.broker.pid, "players": os.getpid()}
                if proc:
                    pids["flooder"] = proc.pid
                cpu0 = {k: cpu_s(p) for k, p in pids.items()}
                m0, t0 = machine_busy_s(), time.perf_counter()
                await asyncio.sleep(a.window - (1.5 if proc else 0))
                t1 = time.perf_counter()
                cpu = {k: round((cpu_s(p) - cpu0[k]) / (t1 - t0), 3) for k, p in pids.items() if _alive(p)}
                cpu["others"] = round((machine_busy_s() - m0) / (t1 - t0) - sum(cpu.values()), 3)
                flood_res = None
                if proc:
                    proc.wait(timeout=60)
                    with contextlib.suppress(OSError, ValueError):
                        flood_res = json.loads(proc.out.read_text())
                inside = [s.seen for s in self.tally.samples if t0 <= s.t0 < t1]
                res = {"phase": name, "actions": len(inside), "seen_p50_ms": _r(pct(inside, 50)),
                       "seen_p99_ms": _r(pct(inside, 99)), "samples": inside, "cpu_share": cpu,
                       "errors": sum(1 for t, _ in self.tally.errors if t0 <= t < t1), "flood": flood_res}
                if flood_res:
                    res["flood_per_s"] = round(flood_res["sent"] / a.window, 1)
                out.append(res)
                say(f"  act→seen p50 {res['seen_p50_ms']} p99 {res['seen_p99_ms']} ms, cpu {cpu}, "
                    f"flood {res.get('flood_per_s')}/s {flood_res and flood_res['statuses']}")
        finally:
            self.going = False
            await asyncio.wait(tasks, timeout=a.pace + 35)
            for r in rooms + [target_room]:
                await asyncio.gather(*(s.close() for s in r.seats), return_exceptions=True)
            for c in channels:
                await c.close()
        pooled: dict[str, dict[str, Any]] = {}
        for name in dict.fromkeys(p["phase"] for p in out):
            xs = [x for p in out if p["phase"] == name for x in p["samples"]]
            pooled[name] = {"actions": len(xs), "seen_p50_ms": _r(pct(xs, 50)), "seen_p99_ms": _r(pct(xs, 99)),
                            "flood_per_s": _r(sum(p.get("flood_per_s", 0) for p in out if p["phase"] == name)
                                              / sum(1 for p in out if p["phase"] == name))}
        q50, q99 = pooled["quiet"]["seen_p50_ms"], pooled["quiet"]["seen_p99_ms"]
        for p in [*out, *pooled.values()]:
            p["p99_over_quiet"] = round(p["seen_p99_ms"] / q99, 2) if q99 and p["seen_p99_ms"] else None
            p["p50_over_quiet"] = round(p["seen_p50_ms"] / q50, 2) if q50 and p["seen_p50_ms"] else None
            p.pop("samples", None)
        return {"rooms": a.rooms, "pace_s": a.pace, "window_s": a.window, "cycles": a.cycles,
                "quiet_p50_ms": q50, "quiet_p99_ms": q99, "pooled": pooled, "phases": out}


def _alive(pid: int) -> bool:
    return Path(f"/proc/{pid}").exists()


def _r(v: float | None) -> float | None:
    return None if v is None else round(v, 1)


def markdown(res: dict[str, Any]) -> str:
    lines = [f"### A player's act→seen beside a flooder ({res['rooms']} rooms at one action per {res['pace_s']:g} s, "
             f"{res['window_s']:g} s per phase)", "",
             "| phase | actions | act→seen p50 | p99 | p99 / quiet | flood calls/s | flood statuses | room CPU | flooder CPU |",
             "|---|---|---|---|---|---|---|---|---|"]
    for p in res["phases"]:
        st = ", ".join(f"{k} {v}" for k, v in sorted((p["flood"] or {}).get("statuses", {}).items()))
        lines.append(f"| {p['phase']} | {p['actions']} | {p['seen_p50_ms']} ms | {p['seen_p99_ms']} ms | "
                     f"{p['p99_over_quiet']}× | {p.get('flood_per_s', '–')} | {st or '–'} | "
                     f"{p['cpu_share'].get('room')} | {p['cpu_share'].get('flooder', '–')} |")
    lines += ["", "Pooled by kind of phase:", "", "| phases | actions | act→seen p50 | p99 | p50 / quiet | p99 / quiet | flood calls/s |",
              "|---|---|---|---|---|---|---|"]
    for name, p in res["pooled"].items():
        lines.append(f"| {name} | {p['actions']} | {p['seen_p50_ms']} ms | {p['seen_p99_ms']} ms | "
                     f"{p['p50_over_quiet']}× | {p['p99_over_quiet']}× | {p['flood_per_s'] or '–'} |")
    return "\n".join(lines)


async def bench(a: argparse.Namespace) -> dict[str, Any]:
    b = Bench(a)
    try:
        await b.start()
        return await b.run()
    finally:
        await b.stop()


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rooms", type=int, default=30)
    p.add_argument("--pace", type=float, default=2.0)
    p.add_argument("--window", type=float, default=45.0)
    p.add_argument("--rate", type=float, default=30.0)
    p.add_argument("--concurrency", type=int, default=16)
    p.add_argument("--cycles", type=int, default=3, help="quiet + fuzzed phase pairs before the flat-out one")
    p.add_argument("--quick", action="store_true", help="6 rooms, 20 s phases")
    p.add_argument("--json", type=Path, default=ROOT / "bench" / "results" / "fuzz_load.json")
    a = p.parse_args(argv)
    if a.quick:
        a.rooms, a.window, a.cycles = min(a.rooms, 6), min(a.window, 20.0), 1
    return run_and_report(bench(a), a.json, markdown)


if __name__ == "__main__":
    main()
