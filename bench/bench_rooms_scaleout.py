"""Room service scale-out: N room instances at the same load and at 2× one instance's capacity.

Services as processes (bench/roomload/fleet.py): Tansu, N × ``python -m hand_room``
in one consumer group over 32 partitions, one shared store (SQLite, or ``--store
postgres``: a throwaway server). The load runs in K client processes
(bench/roomload/loadproc.py, asyncio), apart from the services: 2-seat rooms, one
action per room every ``--pace`` s on average (draw then discard on a seat's turn);
each seat's calls and Watch start on one instance picked at random (as behind an L4
balancer) and follow ``RoomInfo.owner`` / ``ROOM_MOVED`` like a real client;
``OVERLOADED`` is retried after ``retry_after_ms`` with the same action id. act→seen:
from the start of the accepted Act to the move's last seq on the *other* seat's stream.
Per level: act/s, act→seen p50/p99, room CPU per action (total and per instance),
share of ``hand.room-events`` read then skipped, broker CPU, refusals by code.

    .venv/bin/python bench/bench_rooms_scaleout.py [--instances 1 2 3] [--levels 300]
        [--clients 2] [--capacity-x2 [--capacity ACT_S]] [--store sqlite|postgres]
        [--window 10] [--warmup 5] [--room-cpus 0] [--json PATH] [--md PATH] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from roomload.fleet import PARTITIONS, Fleet  # noqa: E402
from roomload.loadprocs import Clients  # noqa: E402
from roomload.measure import cpu_s, progress  # noqa: E402
from roomload.scaleout_report import aggregate, markdown  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _cpu(pids: dict[str, int]) -> dict[str, float]:
    out = {}
    for name, pid in pids.items():
        with contextlib.suppress(OSError):
            out[name] = cpu_s(pid)
    return out


async def run_level(n: int, rooms: int, a: argparse.Namespace, phase: str) -> dict:
    """One level: a fresh fleet of ``n`` instances, ``rooms`` rooms, warm-up, one window."""
    fleet = Fleet(n, a.store, room_cpus=a.room_cpus)
    clients = None
    t_start = time.perf_counter()
    try:
        await fleet.start(a.settle)
        progress(f"  {n} instance(s) up in {time.perf_counter() - t_start:.1f} s (settle {a.settle} s)")
        clients = Clients(a.clients, rooms, fleet.targets, fleet.dir, pace=a.pace, warmup=a.warmup,
                          window=a.window, timeout=a.act_timeout, create_concurrency=a.create_concurrency,
                          use_owner=not a.ignore_owner)
        ready = await clients.start()
        setup_s = time.perf_counter() - t_start
        progress(f"  {sum(ready)} rooms ready, both seats watching, at {setup_s:.1f} s")
        pids = {**fleet.pids(), **{f"client{i}": p.pid for i, p in enumerate(clients.procs)}}
        go = time.time() + 0.5
        clients.go(go)
        await asyncio.sleep(max(0.0, go + a.warmup - time.time()))
        cpu0, m0 = _cpu(pids), fleet.scrape()
        await asyncio.sleep(max(0.0, go + a.warmup + a.window - time.time()))
        cpu1, m1 = _cpu(pids), fleet.scrape()
        results = await clients.results(a.act_timeout + 30)
    finally:
        if clients is not None:
            clients.kill()
        t_stop = time.perf_counter()
        await fleet.stop()
        progress(f"  stopped in {time.perf_counter() - t_stop:.1f} s")
    bus = ({k: {x: m1[k][x] - m0[k][x] for x in ("received", "decoded")} for k in m1 if k in m0}
           or fleet.bus_stats())
    res = aggregate(phase=phase, instances=n, rooms=rooms, pace=a.pace, window=a.window, results=results,
                    cpu0=cpu0, cpu1=cpu1, addresses=dict(zip(fleet.targets, [s.name for s in fleet.rooms])),
                    bus=bus, bus_source="metrics" if m1 else ("log" if bus else "n/a"))
    res.update(rooms_ready=sum(ready), setup_s=round(setup_s, 1), warnings=fleet.log_counts(),
               store=a.store, partitions=PARTITIONS, clients=a.clients)
    if not a.keep:
        fleet.cleanup()
    return res


def _save(a: argparse.Namespace, doc: dict) -> None:
    if a.json:
        a.json.parent.mkdir(parents=True, exist_ok=True)
        a.json.write_text(json.dumps(doc, indent=1) + "\n")
    if a.md:
        a.md.parent.mkdir(parents=True, exist_ok=True)
        a.md.write_text(markdown(doc) + "\n")


async def bench(a: argparse.Namespace) -> dict:
    doc: dict = {"config": {k: (str(v) if isinstance(v, Path) else sorted(v) if isinstance(v, frozenset) else v)
                            for k, v in vars(a).items()},
                 "cpus": os.cpu_count(), "runs": []}
    if a.room_cpus:  # the bench, its clients and the broker keep off the room instances' CPUs
        os.sched_setaffinity(0, set(os.sched_getaffinity(0)) - a.room_cpus)

    async def level(n: int, rooms: int, phase: str) -> dict:
        progress(f"scale-out [{phase}]: {n} instance(s), {rooms} rooms ({rooms / a.pace:.0f} act/s target)")
        r = await run_level(n, rooms, a, phase)
        progress(f"  {r['actions_per_s']:.0f} act/s, act→seen p50 {r['seen_p50_ms']} / p99 {r['seen_p99_ms']} ms, "
                 f"{r['room_cpu_ms_per_action']} ms/action, refusals {r['refusals']}, errors {r['errors']}")
        doc["runs"].append(r)
        _save(a, doc)
        return r

    for rooms in a.levels:
        for n in a.instances:
            await level(n, rooms, "same load")
    if a.capacity_x2:
        cap = a.capacity
        if cap is None:
            ones = [r for r in doc["runs"] if r["instances"] == 1]
            probe = max(a.levels) if a.levels else a.probe_rooms
            for _ in range(a.probe_steps):
                if ones and any(r["actions_per_s"] < 0.95 * r["rooms_ready"] / a.pace for r in ones):
                    break  # one instance saturated: its best act/s is its capacity
                probe = probe * 2 if ones else probe
                ones.append(await level(1, probe, "capacity probe"))
            cap = max(r["actions_per_s"] for r in ones)
        doc["capacity_act_s"] = cap
        rooms2x = max(2, round(2 * cap * a.pace))
        for n in a.instances:
            r = await level(n, rooms2x, "2x capacity")
            r["accepted_share_of_capacity"] = round(r["actions_per_s"] / cap, 3) if cap else None
            _save(a, doc)
    return doc


def _cpu_set(text: str) -> frozenset[int]:
    cpus = frozenset(int(c) for c in text.split(",") if c.strip())
    if not cpus or not cpus < os.sched_getaffinity(0):
        raise argparse.ArgumentTypeError(f"{text!r}: a non-empty proper subset of CPUs {sorted(os.sched_getaffinity(0))}")
    return cpus


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--instances", type=int, nargs="+", default=[1, 2, 3])
    p.add_argument("--rooms", type=int, default=None, help="one level (same as --levels ROOMS)")
    p.add_argument("--levels", type=int, nargs="*", default=None, help="room counts at the same load for every N")
    p.add_argument("--clients", type=int, default=2, help="client processes")
    p.add_argument("--capacity-x2", action="store_true", help="then every N at 2x one instance's capacity")
    p.add_argument("--capacity", type=float, default=None, help="one instance's capacity, act/s (else measured)")
    p.add_argument("--probe-rooms", type=int, default=1000)
    p.add_argument("--probe-steps", type=int, default=2)
    p.add_argument("--store", choices=["sqlite", "postgres"], default="sqlite")
    p.add_argument("--pace", type=float, default=2.0)
    p.add_argument("--window", type=float, default=10.0)
    p.add_argument("--warmup", type=float, default=5.0)
    p.add_argument("--settle", type=float, default=8.0, help="seconds for the group to settle")
    p.add_argument("--act-timeout", type=float, default=20.0)
    p.add_argument("--create-concurrency", type=int, default=16)
    p.add_argument("--json", type=Path, default=ROOT / "bench" / "results" / "rooms-scaleout.json")
    p.add_argument("--md", type=Path, default=None)
    p.add_argument("--ignore-owner", action="store_true",
                   help="clients ignore RoomInfo.owner: every seat reaches the owner through ROOM_MOVED")
    p.add_argument("--room-cpus", type=_cpu_set, default=None, metavar="0,1",
                   help="run the room instances on these CPUs only, and everything else (clients, broker, "
                        "store server) on the others: one instance's figures without the clients' CPU in them")
    p.add_argument("--keep", action="store_true", help="keep the logs' temp dirs")
    p.add_argument("--quick", action="store_true", help="smoke test: 8 rooms, 1 and 2 instances, short windows")
    a = p.parse_args(argv)
    if a.quick:
        a.levels = a.levels or [a.rooms or 8]
        a.instances = a.instances if "--instances" in (sys.argv if argv is None else argv) else [1, 2]
        a.window, a.warmup, a.settle, a.probe_steps = 3.0, 1.0, 4.0, 1
        a.probe_rooms = min(a.probe_rooms, 16)
    elif a.levels is None:
        a.levels = [a.rooms or 300]
    return a


def main(argv: list[str] | None = None) -> None:
    from hand_common.config import LogConfig
    from hand_common.logging import configure_logging
    import signal

    configure_logging(LogConfig(format="console", level="warning"), stream=sys.stderr)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    a = parse(argv)
    doc = asyncio.run(bench(a))
    print(markdown(doc))


if __name__ == "__main__":
    main()
