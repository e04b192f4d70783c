"""One client process of the scale-out bench: its share of the rooms, with asyncio.

    python -m roomload.loadproc CONFIG.json      (PYTHONPATH=bench)

CONFIG: {"seeds": [host:port, ...], "rooms": [i, ...], "pace": 2.0, "warmup": 5, "window": 10,
"timeout": 30, "out": RESULT.json, "use_owner": true, "steps": false}. The process creates its rooms (host and joiner each on a
random instance), opens both seats' Watch streams, prints ``ready N``, waits for ``go EPOCH``
on stdin, plays every room at ``pace`` from EPOCH (wall clock, shared by every process)
for warmup + window seconds, writes RESULT.json (the window's samples and counts) and
prints ``done``.
"""

from __future__ import annotations

import asyncio
import collections
import json
import random
import sys
import time
import traceback
from pathlib import Path

import grpc

from hand_common import event_loop

from .owners import Counts, Endpoints, Room, Seat, create_room, rule_error


async def _create(cfg: dict, eps: Endpoints, counts: Counts) -> list[Room]:
    sem = asyncio.Semaphore(cfg.get("create_concurrency", 16))

    async def one(i: int) -> Room | None:
        async with sem:
            rng = random.Random(f"{cfg.get('seed', 0)}-{i}")
            try:
                room = await create_room(eps, i, rng, counts)
                await room.watch()
                return room
            except (grpc.aio.AioRpcError, TimeoutError, ConnectionError) as exc:
                what = (f"setup {exc.code().name}/{rule_error(exc)[0] or '-'}"
                        if isinstance(exc, grpc.aio.AioRpcError) else f"setup {type(exc).__name__}")
                counts.errors[what] += 1
                return None

    return [r for r in await asyncio.gather(*(one(i) for i in cfg["rooms"])) if r is not None]


def _snapshot(counts: Counts) -> dict[str, collections.Counter]:
    return {k: collections.Counter(getattr(counts, k)) for k in ("refusals", "redirects", "errors", "acts_at")}


async def main(cfg: dict) -> None:
    Seat.use_owner = cfg.get("use_owner", True)
    eps = Endpoints(cfg["seeds"])
    counts = Counts()
    t_setup = time.perf_counter()
    rooms = await _create(cfg, eps, counts)
    setup_s = time.perf_counter() - t_setup
    print(f"ready {len(rooms)}", flush=True)
    line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    go = float(line.split()[1])
    t_go = time.perf_counter() + (go - time.time())
    measure_from = t_go + cfg["warmup"]
    stop_at = measure_from + cfg["window"]
    pace = cfg["pace"]

    async def human(room: Room, seed: str) -> None:
        rng = random.Random(seed)
        await asyncio.sleep(max(0.0, t_go - time.perf_counter()) + rng.uniform(0, pace))
        try:
            while time.perf_counter() < stop_at:
                if not await room.step(counts, stop_at, cfg.get("timeout", 30.0)):
                    return
                await asyncio.sleep(rng.uniform(0.5 * pace, 1.5 * pace))
        except Exception as exc:  # a bug of the client: counted, the first one printed
            counts.errors[f"client {type(exc).__name__}"] += 1
            if counts.errors[f"client {type(exc).__name__}"] == 1:
                traceback.print_exc()

    async def snap_at(t: float) -> dict:
        await asyncio.sleep(max(0.0, t - time.perf_counter()))
        return _snapshot(counts)

    before = asyncio.create_task(snap_at(measure_from))
    after = asyncio.create_task(snap_at(stop_at))
    tasks = [asyncio.create_task(human(r, r.room_id)) for r in rooms]
    b, a = await before, await after
    # steps still waiting for their events past the window get a short grace, then are dropped
    _, late = await asyncio.wait(tasks, timeout=cfg.get("drain", 5.0)) if tasks else (None, set())
    for t in late:
        t.cancel()
    samples = [s for s in counts.samples if measure_from <= s.t0 < stop_at]
    result = {
        "rooms": len(rooms), "setup_s": round(setup_s, 2), "window_s": cfg["window"],
        "seen": [round(s.seen, 5) for s in samples], "act": [round(s.act, 5) for s in samples],
        **{k: dict(a[k] - b[k]) for k in a},
        "errors_total": dict(counts.errors), "unfinished_steps": len(late), "finished": counts.finished,
        "details": counts.details, "redirects": dict(counts.redirects),  # whole run: most are at setup
    }
    if cfg.get("steps"):  # every accepted move of the run: [first try, accepted, room], seconds from go
        result["steps"] = [[round(s.first - t_go, 4), round(s.t0 + s.act - t_go, 4), s.room]
                           for s in counts.samples if s.first is not None]
    for r in rooms:
        for s in r.seats:
            await s.close()
    await eps.close()
    Path(cfg["out"]).write_text(json.dumps(result))
    print("done", flush=True)


if __name__ == "__main__":
    # the load generator's own collector pauses are not the server's latency
    event_loop.run(main(json.loads(Path(sys.argv[1]).read_text())), "asyncio", gc_sweep_s=600)
