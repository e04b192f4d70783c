"""Room service scale-out: 1, 2 and 3 instances at the same total load.

The stack of bench_rooms.py (Tansu, room services as processes, one SQLite
event store shared by the instances, the engine in-process) with N room
instances in one consumer group. Each room's two seats are clients of
different instances (seat a of instance 2i mod N, seat b of 2i+1 mod N), so
with N > 1 half the Acts reach an instance that does not own the room (the
command crosses Kafka) and half the streams follow a room owned elsewhere
(its events arrive through hand.room-events). Per N: achieved actions/s,
act→seen p50/p99, total room CPU per action, each instance's CPU, and how
many of the hand.room-events messages an instance read it then skipped
without decoding (rooms it neither streams nor holds).

    .venv/bin/python bench/bench_rooms_scaleout.py [--rooms 500] [--instances 1 2 3]
        [--window 20] [--warmup 5] [--json PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import grpc  # noqa: E402

from roomload.clients import BenchRoom, Tally, create_room  # noqa: E402
from roomload.measure import cpu_s, progress  # noqa: E402
from roomload.processes import Service, Tansu  # noqa: E402
from roomload.stack import PARTITIONS  # noqa: E402
from hand.v1 import room_service_pb2_grpc as pb_grpc  # noqa: E402
from hand_infra.settings import KafkaSettings  # noqa: E402
from hand_infra.topics import ensure_topics  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


async def run(instances: int, rooms: int, warmup: float, window: float, pace: float) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="bench-scaleout-"))
    broker = Tansu()
    await broker.start()
    kafka = KafkaSettings(bootstrap_servers=broker.bootstrap_servers, partitions=PARTITIONS)
    await ensure_topics(kafka)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "services"), str(ROOT / "gen")]),
           "HAND_LOG_FORMAT": "json", "HAND_LOG_LEVEL": "info", "HAND_SHUTDOWN_GRACE_S": "1",
           "HAND_RATE_PEER_PER_S": "0", "HAND_STREAMS_PER_PEER": "0", "HAND_RATE_PLAYER_PER_S": "0",
           "HAND_STREAMS_PER_PLAYER": "0", "HAND_AUTH_DEV_KEY_FILE": str(tmp / "dev.key"),
           "KAFKA_BOOTSTRAP_SERVERS": broker.bootstrap_servers, "HAND_KAFKA_PARTITIONS": str(PARTITIONS),
           "HAND_EVENTSTORE_URL": f"sqlite:///{tmp / 'events.db'}", "HAND_ROOM_GROUP": f"so-{uuid.uuid4().hex[:8]}",
           "HAND_ROOM_HOST": "127.0.0.1", "HAND_ROOM_PORT": "0"}
    services = []
    for i in range(instances):
        services.append(Service(f"room{i}", [sys.executable, "-m", "hand_room"], env, tmp,
                                   r"room service listening on (\S+)"))
        await services[-1].ready()
    await asyncio.sleep(8)  # the group settles: every instance holds its partitions
    channels = [grpc.aio.insecure_channel(s.target) for s in services]
    stubs = [pb_grpc.RoomServiceStub(c) for c in channels]
    sem = asyncio.Semaphore(16)

    async def make(i: int) -> BenchRoom:
        async with sem:
            return await create_room(stubs, i)

    bench_rooms = await asyncio.gather(*(make(i) for i in range(rooms)))
    for r in bench_rooms:  # each seat watches through its own instance
        await r.watch()
    tally = Tally()
    stop_at = time.perf_counter() + warmup + window
    measure_from = time.perf_counter() + warmup

    async def human(room: BenchRoom) -> None:
        rng = random.Random(room.room_id)
        await asyncio.sleep(rng.uniform(0, pace))
        while time.perf_counter() < stop_at:
            if not await room.step(tally):
                return
            await asyncio.sleep(rng.uniform(0.5 * pace, 1.5 * pace))

    cpu0 = {s.name: cpu_s(s.pid) for s in services}
    t_cpu = None
    runners = [asyncio.create_task(human(r)) for r in bench_rooms]
    await asyncio.sleep(max(0.0, measure_from - time.perf_counter()))
    cpu0 = {s.name: cpu_s(s.pid) for s in services}
    t_cpu = time.perf_counter()
    await asyncio.gather(*runners)
    cpu1 = {s.name: cpu_s(s.pid) for s in services}
    span = time.perf_counter() - t_cpu
    samples = [s for s in tally.samples if s.t0 >= measure_from]
    for r in bench_rooms:
        for seat in r.seats:
            await seat.close()
    for c in channels:
        await c.close()
    for s in services:
        await s.stop()
    stats = []
    for s in services:
        for line in (s.out_path.read_text(errors="replace") + s.err_path.read_text(errors="replace")).splitlines():
            if '"bus_stats"' in line:
                with_stats = json.loads(line)
                stats.append({"instance": s.name, "received": with_stats["events_received"],
                              "decoded": with_stats["events_decoded"]})
    await broker.stop()
    actions = len(samples)
    room_cpu = {name: (cpu1[name] - cpu0[name]) / span for name in cpu1}
    return {"instances": instances, "rooms": rooms, "actions_per_s": actions / span,
            "seen_p50_ms": percentile([s.seen for s in samples], 0.5) * 1000,
            "seen_p99_ms": percentile([s.seen for s in samples], 0.99) * 1000,
            "errors": len(tally.errors), "room_cpu": room_cpu,
            "room_cpu_ms_per_action": sum(cpu1[n] - cpu0[n] for n in cpu1) * 1000 / max(1, actions),
            "bus": stats}


def markdown(results: list[dict]) -> str:
    lines = ["| instances | rooms | act/s | act→seen p50 ms | p99 ms | room CPU ms/action (all instances) | "
             "CPU per instance | events read then skipped, per instance | errors |",
             "|---:|---:|---:|---:|---:|---:|---|---|---:|"]
    for r in results:
        cpu = ", ".join(f"{v:.2f}" for v in r["room_cpu"].values())
        skipped = ", ".join(f"{(b['received'] - b['decoded']) / max(1, b['received']):.0%} of {b['received']}"
                            for b in r["bus"]) or "–"
        lines.append(f"| {r['instances']} | {r['rooms']} | {r['actions_per_s']:.0f} | {r['seen_p50_ms']:.1f} | "
                     f"{r['seen_p99_ms']:.1f} | {r['room_cpu_ms_per_action']:.2f} | {cpu} | {skipped} | "
                     f"{r['errors']} |")
    return "\n".join(lines)


async def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rooms", type=int, default=500)
    p.add_argument("--instances", type=int, nargs="+", default=[1, 2, 3])
    p.add_argument("--window", type=float, default=20)
    p.add_argument("--warmup", type=float, default=5)
    p.add_argument("--pace", type=float, default=2.0)
    p.add_argument("--json", type=Path, default=ROOT / "bench" / "results" / "rooms-scaleout.json")
    a = p.parse_args(argv)
    results = []
    for n in a.instances:
        progress(f"scale-out: {n} instance(s), {a.rooms} rooms")
        results.append(await run(n, a.rooms, a.warmup, a.window, a.pace))
        progress(f"  {results[-1]['actions_per_s']:.0f} act/s, p99 {results[-1]['seen_p99_ms']:.0f} ms")
    a.json.parent.mkdir(parents=True, exist_ok=True)
    a.json.write_text(json.dumps(results, indent=2))
    print(markdown(results))


if __name__ == "__main__":
    asyncio.run(main())
