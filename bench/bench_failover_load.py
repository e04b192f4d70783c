"""Fail-over under load: an owner killed (SIGKILL) while N instances serve rooms at human pace.

bench_failover.py times one room's fail-over; this one kills a room instance while it and
the others serve R rooms (2 seats, one move per room every 2 s, client load in separate
processes that follow the owner and fall back as docs/clients.md asks) and reports, per
backlog setting (``HAND_GRPC_MAX_PENDING_CALLS``, every setting a fresh fleet, same run):

- **kill → move**: for every move in flight at the kill or started in the next seconds,
  from the later of its first try and the kill to its acceptance — p50 / p99 / max, and
  how many took over 3 s (the fail-over goal: next move ≤ 3 s);
- the moves accepted per second around the kill, the rooms that never moved again;
- every accepted move seen on both seats' streams, once and in order (``stream gap`` /
  ``stream duplicate`` / ``not seen`` errors otherwise), refusals by code, fallbacks.

``--event join``: an instance added instead (a scale-out while rooms play: the group
rebalances and the newcomer takes its share of the rooms); ``--event stop``: instance 0
stopped with SIGTERM (a scale-in or a rolling deploy: it drains and leaves the group);
the same figures.

    .venv/bin/python bench/bench_failover_load.py [--instances 2] [--rooms 600]
        [--backlogs 100 25] [--event kill|stop|join] [--kill-at 5] [--window 15] [--json PATH] [--quick]

(``--quick``: 2 instances, 20 rooms, the default backlog only, 8 s: a smoke run.)
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from roomload.fleet import Fleet  # noqa: E402  (roomload puts services/ and gen/ on the path)
from roomload.loadprocs import Clients  # noqa: E402
from roomload.measure import pct, progress  # noqa: E402

from hand_common.config import GRPC_MAX_PENDING_CALLS  # noqa: E402

DEFAULT_BACKLOG = int(GRPC_MAX_PENDING_CALLS.default)
AFTER_S = 3.0  # moves started this long after the kill count as hit by it


def _summary(results: list[dict], kill_at: float, window_end: float) -> dict:
    steps = [s for r in results for s in r.get("steps", [])]
    hit = [accepted - max(first, kill_at) for first, accepted, _ in steps
           if accepted >= kill_at and first <= kill_at + AFTER_S]
    before = [accepted - first for first, accepted, _ in steps if accepted < kill_at]
    per_s = collections.Counter(int(accepted - kill_at + 100) - 100 for _, accepted, _ in steps)
    moved_before = {room for _, accepted, room in steps if accepted < kill_at}
    moved_after = {room for _, accepted, room in steps if accepted >= kill_at}
    sums: dict[str, collections.Counter] = {k: collections.Counter() for k in ("errors_total", "refusals",
                                                                                "redirects")}
    for r in results:
        for k in sums:
            sums[k].update(r.get(k, {}))
    slow = sorted((round(first - kill_at, 2), round(accepted - kill_at, 2)) for first, accepted, _ in steps
                  if accepted >= kill_at and first <= kill_at + AFTER_S and accepted - max(first, kill_at) > 3.0)
    return {
        "moves": len(steps), "moves_hit": len(hit),
        "kill_to_move_p50_s": round(pct(hit, 50) / 1000, 3) if hit else None,
        "kill_to_move_p99_s": round(pct(hit, 99) / 1000, 3) if hit else None,
        "kill_to_move_max_s": round(max(hit), 3) if hit else None,
        "over_3s": sum(1 for h in hit if h > 3.0),
        "before_kill_p99_ms": round(pct(before, 99), 1) if before else None,
        "accepted_per_s": {t: per_s.get(t, 0) for t in range(-3, int(window_end - kill_at) + 1)},
        "errors": dict(sums["errors_total"]), "redirects": dict(sums["redirects"]),
        "refusals": dict(sums["refusals"]), "slow_moves": slow[:50],  # [first try, accepted], s after the kill
        "details": {k: v for r in results for k, v in r.get("details", {}).items()},  # a message per refusal kind
        "rooms_moved_before": len(moved_before), "rooms_stalled": len(moved_before - moved_after),
    }


async def run_one(backlog: int, a: argparse.Namespace) -> dict:
    fleet = Fleet(a.instances, a.store, extra_env={"HAND_GRPC_MAX_PENDING_CALLS": str(backlog)})
    clients = None
    try:
        await fleet.start(a.settle)
        clients = Clients(a.clients, a.rooms, fleet.targets, fleet.dir, pace=a.pace, warmup=0, window=a.window,
                          timeout=30.0, create_concurrency=16, use_owner=True, steps=True, drain=10.0)
        ready = await clients.start()
        progress(f"  backlog {backlog}: {sum(ready)} rooms ready on {a.instances} instances")
        go = time.time() + 0.5
        clients.go(go)
        await asyncio.sleep(max(0.0, go + a.kill_at - time.time()))
        if a.event in ("kill", "stop"):
            victim = fleet.rooms[0]
            if a.event == "kill":
                victim.proc.kill()  # SIGKILL: no goodbye to the group, the store or the clients
            else:
                victim.proc.terminate()  # SIGTERM: the instance's own shutdown (drain, leave the group)
            killed = time.time() - go
            progress(f"  {a.event} {victim.name} at {killed:.2f} s (go at {go:.3f}; logs in {fleet.dir})")
        else:  # the event is the newcomer's first heartbeat in the group: from its start, to be safe
            killed = time.time() - go
            joined = await fleet.add()
            progress(f"  {joined.name} started at {killed:.2f} s, serving at {time.time() - go:.2f} s "
                     f"(logs in {fleet.dir})")
        results = await clients.results(a.window + 60)
    finally:
        if clients is not None:
            clients.kill()
        await fleet.stop()
        if not a.keep:
            fleet.cleanup()
    out = _summary(results, killed, a.window)
    out.update(backlog=backlog, rooms_ready=sum(ready), killed_at_s=round(killed, 2),
               client_processes_failed=sum(1 for r in results if r.get("failed")))
    progress(f"  kill→move p50 {out['kill_to_move_p50_s']} s, p99 {out['kill_to_move_p99_s']} s, "
             f"max {out['kill_to_move_max_s']} s, {out['over_3s']} of {out['moves_hit']} over 3 s; "
             f"{out['rooms_stalled']} of {out['rooms_moved_before']} rooms stalled; errors {out['errors']}")
    return out


def markdown(doc: dict) -> str:
    what = {"kill": "SIGKILL of one", "stop": "SIGTERM of one", "join": "one more instance started"}[
        doc["config"]["event"]]
    lines = [f"Fail-over under load: {doc['config']['instances']} instances, {doc['config']['rooms']} rooms, "
             f"{what} at {doc['config']['kill_at']} s ({doc['cpus']} CPUs).", "",
             "| backlog | moves hit | event → move p50 / p99 / max s | over 3 s | accepted/s from 1 s before, by second "
             "| rooms stalled | errors | fallbacks |", "|---:|---:|---|---:|---|---:|---|---:|"]
    for r in doc["runs"]:
        per_s = ", ".join(str(v) for t, v in r["accepted_per_s"].items() if -1 <= int(t) <= 6)
        lines.append(f"| {r['backlog']} | {r['moves_hit']} | {r['kill_to_move_p50_s']} / {r['kill_to_move_p99_s']} / "
                     f"{r['kill_to_move_max_s']} | {r['over_3s']} | {per_s} | {r['rooms_stalled']} | {r['errors'] or 0} | "
                     f"{r['redirects'].get('fallback', 0)} |")
    return "\n".join(lines)


async def main(a: argparse.Namespace) -> dict:
    doc: dict = {"config": {k: str(v) if isinstance(v, Path) else v for k, v in vars(a).items()},
                 "cpus": os.cpu_count(), "runs": []}
    for backlog in a.backlogs:
        progress(f"fail-over under load: backlog {backlog}")
        doc["runs"].append(await run_one(backlog, a))
        if a.json:
            a.json.write_text(json.dumps(doc, indent=1) + "\n")
    print(markdown(doc))
    return doc


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--instances", type=int, default=2)
    p.add_argument("--rooms", type=int, default=600)
    p.add_argument("--backlogs", type=int, nargs="+", default=[100, DEFAULT_BACKLOG],
                   help="HAND_GRPC_MAX_PENDING_CALLS of each run (100: the default before 2026-12-06)")
    p.add_argument("--kill-at", type=float, default=5.0, help="seconds after go (the event's time)")
    p.add_argument("--event", choices=["kill", "stop", "join"], default="kill",
                   help="kill: SIGKILL instance 0; stop: SIGTERM it; join: start one more instance")
    p.add_argument("--window", type=float, default=15.0, help="seconds of play in all")
    p.add_argument("--pace", type=float, default=2.0)
    p.add_argument("--clients", type=int, default=2)
    p.add_argument("--settle", type=float, default=8.0)
    p.add_argument("--store", choices=["sqlite", "postgres"], default="sqlite")
    p.add_argument("--json", type=Path)
    p.add_argument("--keep", action="store_true", help="keep the services' logs (their folder is printed)")
    p.add_argument("--quick", action="store_true", help="smoke run: 20 rooms, the default backlog, 8 s")
    a = p.parse_args(argv)
    if a.quick:
        a.instances, a.rooms, a.backlogs, a.kill_at, a.window, a.settle = 2, 20, [DEFAULT_BACKLOG], 3.0, 8.0, 3.0
    return a


if __name__ == "__main__":
    from hand_common.config import LogConfig
    from hand_common.logging import configure_logging

    configure_logging(LogConfig(format="console", level="warning"), stream=sys.stderr)  # stdout: the table
    asyncio.run(main(parse()))
