"""Room service under load: scripted 2-seat rooms through the full path (gRPC Act → owner → store → feeds → Watch).

Starts the embedded stack as separate processes — Tansu (memory storage),
``python -m hand_rules`` and ``python -m hand_room`` (SQLite event store in a
temporary directory, rules over gRPC) — and drives it from this process with
cheap stdlib-asyncio clients. Each room has two human seats; each seat holds
its own Watch stream and, on its turn, draws from the stock and discards the
drawn card (or its highest card): rounds end exhausted and the next is dealt.

For each load level (default 10, 100, 500 and 2,000 rooms) every room acts at
human pace — one action every 2 s on average (uniform 1–3 s) — for a warm-up
and then a measuring window; then a few rooms act flat out (each room's next
action as soon as both seats have seen the previous one). Per level: achieved
actions/s; p50/p99 from the start of the Act call to the event (the move's
last seq) reaching the *other* seat's Watch stream ("act→seen"); the Act RPC
latency; CPU seconds of every process (``/proc/<pid>/stat``: room, rules,
tansu, this bench); and room-service RSS. Memory per idle room: RSS growth of
the room service after creating N rooms with their matches started (no
streams), ÷ N. Baselines from the same run, same machine: a bare aiokafka
produce→consume round trip (the services' ``KafkaSettings``) and a bare gRPC
Echo round trip to the rules service, before and after the load. With py-spy
installed (``pip install py-spy``; not a project dependency) the room and rules
services are sampled under the 500-room load and the hot spots reported;
without it, the room service runs under a cProfile hook (SIGUSR1/SIGUSR2).

    .venv/bin/python bench/bench_rooms.py [--quick] [--levels 10 100 500 2000]
        [--window 20] [--warmup 5] [--flat-rooms 20] [--flat 20] [--profile-level 500]
        [--json PATH]
    .venv/bin/python bench/bench_rooms.py --observability-cost [--cost-rooms 300] [--rounds 4]
        [--window 20] [--warmup 5]

``--observability-cost``: what metrics and traces cost the room service (issue 25), in one
run: rounds of three fresh stacks — both off, metrics on, metrics on + traces exported to an
OTLP/HTTP sink — interleaved A B C A B C …, room CPU per action at a fixed human-pace load,
ratios to the both-off phase of the same round (``roomload/cost.py``; rooms-cost.json).

Markdown on stdout, progress on stderr, results also in bench/results/rooms.json
(``--quick``: 10 and 100 rooms, 8 s windows, no profile; rooms-quick.json).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import dataclasses
import json
import os
import random
import signal
import sys
import time
from pathlib import Path
from typing import Any

import grpc

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/roomload, however this file is loaded

from roomload import ROOT  # noqa: E402
from roomload.baselines import grpc_echoes, kafka_round_trips
from roomload.clients import BenchRoom, Seat, Tally, bounded, create_room
from roomload.measure import main_thread_sched, pct, progress, rss_bytes
from roomload.profiling import profile
from roomload.stack import Stack

from hand.v1 import room_service_pb2 as pb
from hand.v1 import room_service_pb2_grpc as pb_grpc

TIME_LIMIT_S = 1_200  # bench/run_all.py: a full run takes ~7 min here, longer on a busier machine


# ----------------------------------------------------------------- settings
@dataclasses.dataclass
class Config:
    levels: list[int] = dataclasses.field(default_factory=lambda: [10, 100, 500, 2000])
    pace_s: float = 2.0  # mean seconds between two actions of one room (uniform ±50 %)
    warmup_s: float = 5.0
    window_s: float = 20.0
    flat_rooms: int = 20
    flat_warmup_s: float = 3.0
    flat_s: float = 20.0
    create_concurrency: int = 32
    channels: int = 8  # client connections (a room's two seats use two of them)
    profile_level: int | None = 500
    profile_s: float = 10.0
    idle_s: float = 5.0  # CPU of the idle stack (2 watched rooms, no actions)
    kafka_rt: int = 300  # round trips per baseline pass (two passes: before and after the load)
    echo_calls: int = 1000
    log_level: str = "info"
    rules_in_process: bool = True  # the default owner: the engine in-process (--rules-over-grpc: the rules service)
    quick: bool = False
    cost_rooms: int = 300  # --observability-cost: rooms per phase (human pace: 150 act/s)
    cost_rounds: int = 4  # --observability-cost: rounds of A B C

    @classmethod
    def quick_config(cls) -> Config:
        return cls(levels=[10, 100], warmup_s=3.0, window_s=8.0, flat_s=8.0, flat_warmup_s=2.0, idle_s=3.0,
                   profile_level=None, kafka_rt=100, echo_calls=300, quick=True)


# ----------------------------------------------------------------- the run
class Run:
    def __init__(self, cfg: Config, room_env: dict[str, str] | None = None) -> None:
        self.cfg = cfg
        self.stack = Stack(cfg, room_env)
        self.channels: list[grpc.aio.Channel] = []
        self.stubs: list[pb_grpc.RoomServiceStub] = []
        self.rooms: list[BenchRoom] = []
        self.going = False

    async def __aenter__(self) -> Run:
        try:
            await self.stack.start()
        except BaseException:
            await self.stack.stop()
            raise
        assert self.stack.room is not None
        opts = [("grpc.use_local_subchannel_pool", 1)]  # one TCP connection per channel
        self.channels = [grpc.aio.insecure_channel(self.stack.room.target, options=opts)
                         for _ in range(self.cfg.channels)]
        self.stubs = [pb_grpc.RoomServiceStub(c) for c in self.channels]
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.going = False
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.gather(*(s.close() for r in self.rooms for s in r.seats)), 20)
        for channel in self.channels:
            with contextlib.suppress(Exception):
                await channel.close()
        await self.stack.stop()

    # ------------------------------------------------------------- phases
    async def baselines(self) -> dict[str, Any]:
        assert self.stack.kafka is not None and self.stack.rules is not None
        # the fastest bare hop (fetch wait 10 ms, as round 1 measured it), not the services' 100 ms
        k = await kafka_round_trips(dataclasses.replace(self.stack.kafka, fetch_max_wait_ms=10), self.cfg.kafka_rt)
        e = await grpc_echoes(self.stack.rules.target, self.cfg.echo_calls)
        return {"kafka": k, "echo": e}

    async def unary_floor(self, calls: int = 2000, clients: int = 8) -> dict[str, Any]:
        """The room service's own CPU per unary call, same run: a bare ``grpc.health.v1`` Check
        (grpcio's asyncio server alone: health is exempt from the shared edge) and ``GetRoom``
        of a cached room (the whole edge: rate limit, door, metrics, access log; the room
        rendered). What one ``Act`` costs at the least before any game work."""
        from grpc_health.v1 import health_pb2, health_pb2_grpc

        room_id = self.rooms[0].room_id
        health = [health_pb2_grpc.HealthStub(c) for c in self.channels]
        out: dict[str, Any] = {}
        for name, call in (
                ("health_check", lambda i: health[i % len(health)].Check(health_pb2.HealthCheckRequest())),
                ("get_room", lambda i: self.stubs[i % len(self.stubs)].GetRoom(pb.GetRoomRequest(room_id=room_id)))):
            for i in range(50):
                await call(i)
            cpu0, t0 = self.stack.cpu()["room"], time.perf_counter()

            async def client(k: int) -> None:
                for i in range(k, calls, clients):
                    await call(i)

            await asyncio.gather(*(client(k) for k in range(clients)))
            cpu1, t1 = self.stack.cpu()["room"], time.perf_counter()
            out[name] = {"calls": calls, "room_cpu_ms_per_call": round((cpu1 - cpu0) / calls * 1000, 3),
                         "calls_per_s": round(calls / (t1 - t0), 1)}
        return out

    async def add_rooms(self, n: int) -> float:
        """Create rooms (2 seats, match started, no streams) up to ``n``; return rooms/s."""
        have = len(self.rooms)
        if n <= have:
            return 0.0
        t0 = time.perf_counter()
        done = [0]

        async def one(i: int) -> BenchRoom:
            room = await create_room(self.stubs, have + i)
            done[0] += 1
            if done[0] % 500 == 0:
                progress(f"  {have + done[0]} rooms")
            return room

        self.rooms += await bounded(n - have, self.cfg.create_concurrency, one)
        return (n - have) / (time.perf_counter() - t0)

    async def watch_rooms(self, n: int) -> None:
        todo = [r for r in self.rooms[:n] if not r.watched]

        async def one(i: int) -> None:
            await todo[i].watch()

        await bounded(len(todo), self.cfg.create_concurrency, one)
        # each stream sends the owner a presence command: let that backlog drain before measuring
        await asyncio.gather(*(r.connected(300) for r in todo))

    async def drive(self, room: BenchRoom, tally: Tally, pace: float, rng: random.Random) -> None:
        next_t = time.perf_counter() + (rng.uniform(0, pace) if pace else 0.0)
        while self.going:
            if pace:
                delay = next_t - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
                if not self.going:
                    break
                # human pace: the next action 1–3 s after this one was due (never queue up a backlog)
                next_t = max(next_t + pace * rng.uniform(0.5, 1.5), time.perf_counter() - pace)
            if not await room.step(tally):
                break

    async def level(self, n: int, pace: float, warmup: float, window: float,
                    profile_s: float = 0.0) -> dict[str, Any]:
        rooms = self.rooms[:n]
        tally = Tally()
        rng = random.Random(n)
        self.going = True
        tasks = [asyncio.create_task(self.drive(r, tally, pace, rng)) for r in rooms]
        await asyncio.sleep(warmup)
        room_pid = self.stack.pids()["room"]
        cpu0, sched0, w0 = self.stack.cpu(), main_thread_sched(room_pid), time.perf_counter()
        await asyncio.sleep(window)
        cpu1, sched1, w1 = self.stack.cpu(), main_thread_sched(room_pid), time.perf_counter()
        rss = rss_bytes(self.stack.pids()["room"])
        prof = None
        if profile_s:
            progress(f"  profiling the room and rules services for {profile_s:g} s")
            prof = await profile(self.stack, profile_s)
        self.going = False
        _, pending = await asyncio.wait(tasks, timeout=pace + 35)
        for t in pending:
            t.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        settle = await self.settle()
        inside = [s for s in tally.samples if w0 <= s.t0 < w1]
        span = w1 - w0
        cpu = {k: cpu1[k] - cpu0[k] for k in cpu0}
        acts = len(inside)
        out = {
            "rooms": n, "pace_s": pace, "window_s": round(span, 2),
            "target_actions_per_s": round(n / pace, 1) if pace else None,
            "actions": acts, "actions_per_s": round(acts / span, 1),
            "seen_p50_ms": pct([s.seen for s in inside], 50), "seen_p99_ms": pct([s.seen for s in inside], 99),
            "act_p50_ms": pct([s.act for s in inside], 50), "act_p99_ms": pct([s.act for s in inside], 99),
            "seen_max_ms": pct([s.seen for s in inside], 100),
            "cpu_s": {k: round(v, 2) for k, v in cpu.items()},
            "cpu_share": {k: round(v / span, 3) for k, v in cpu.items()},
            "cpu_ms_per_action": {k: round(v / acts * 1000, 3) if acts else None for k, v in cpu.items()},
            # the room service's event-loop thread: share of the window on a CPU / runnable but waiting
            "room_loop_running": round((sched1[0] - sched0[0]) / span, 3),
            "room_loop_waiting_for_cpu": round((sched1[1] - sched0[1]) / span, 3),
            "room_rss_mb": round(rss / 2**20, 1),
            "refused": tally.refused, "rooms_finished": tally.finished,
            # failed steps that started in the window (those of the stop at the end are not counted)
            "errors": dict(collections.Counter(what for t, what in tally.errors if w0 <= t < w1)),
            "error_details": tally.details,
            "settle_s": settle,
        }
        if prof is not None:
            out["profile"] = prof
        return out

    async def settle(self, quiet: float = 2.0, limit: float = 120.0) -> float:
        """After a level: wait until no event has reached any stream for ``quiet`` s (commands
        that timed out in the gateway may still be queued for the owner, and get applied)."""
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < limit and time.perf_counter() - Seat.last_event[0] < quiet:
            await asyncio.sleep(0.2)
        return round(time.perf_counter() - t0, 1)

    async def run(self) -> dict[str, Any]:
        cfg = self.cfg
        started = time.perf_counter()
        pids = self.stack.pids()
        progress("warming up (first rooms wait for the owner's consumer group)")
        await self.add_rooms(2)
        await self.watch_rooms(2)
        await self.level(2, 0.0, 0.0, 1.0)
        progress(f"idle stack for {cfg.idle_s:g} s")
        cpu0, t0 = self.stack.cpu(), time.perf_counter()
        await asyncio.sleep(cfg.idle_s)
        cpu1, t1 = self.stack.cpu(), time.perf_counter()
        idle = {k: round((cpu1[k] - cpu0[k]) / (t1 - t0), 3) for k in cpu0}
        progress("baselines: aiokafka produce→consume, gRPC Echo")
        base_before = await self.baselines()
        most = max([*cfg.levels, cfg.flat_rooms])
        rss0 = rss_bytes(pids["room"])
        progress(f"creating {most - len(self.rooms)} rooms ({cfg.create_concurrency} at a time)")
        rate = await self.add_rooms(most)
        await asyncio.sleep(1.0)
        rss1 = rss_bytes(pids["room"])
        progress("the room service's CPU per bare unary call (health Check, GetRoom)")
        floor = await self.unary_floor()
        created = most - 2
        memory = {"rooms": created, "rss_before_mb": round(rss0 / 2**20, 1), "rss_after_mb": round(rss1 / 2**20, 1),
                  "kb_per_idle_room": round((rss1 - rss0) / created / 1024, 1) if created else None,
                  "rooms_created_per_s": round(rate, 1), "streams": []}
        levels = []
        for n in cfg.levels:
            before = rss_bytes(pids["room"])
            newly = sum(1 for r in self.rooms[:n] if not r.watched)
            progress(f"{n} rooms: opening {2 * newly} Watch streams")
            await self.watch_rooms(n)
            await asyncio.sleep(1.0)
            after = rss_bytes(pids["room"])
            if newly:
                memory["streams"].append({"rooms": newly, "kb_per_room_with_2_streams":
                                          round((after - before) / newly / 1024, 1)})
            prof_s = cfg.profile_s if n == cfg.profile_level else 0.0
            progress(f"{n} rooms at human pace: {cfg.warmup_s:g} s warm-up, {cfg.window_s:g} s measured")
            res = await self.level(n, cfg.pace_s, cfg.warmup_s, cfg.window_s, prof_s)
            levels.append(res)
            progress(f"  {res['actions_per_s']} actions/s, act→seen p50 {_ms(res['seen_p50_ms'])} "
                     f"p99 {_ms(res['seen_p99_ms'])} ms, CPU {res['cpu_share']}")
        progress(f"{cfg.flat_rooms} rooms flat out: {cfg.flat_warmup_s:g} s warm-up, {cfg.flat_s:g} s measured")
        await self.watch_rooms(cfg.flat_rooms)
        flat = await self.level(cfg.flat_rooms, 0.0, cfg.flat_warmup_s, cfg.flat_s)
        progress(f"  {flat['actions_per_s']} actions/s, act→seen p50 {_ms(flat['seen_p50_ms'])} "
                 f"p99 {_ms(flat['seen_p99_ms'])} ms, CPU {flat['cpu_share']}")
        progress("baselines again")
        base_after = await self.baselines()
        res = assemble(cfg, base_before, base_after, memory, levels, flat, time.perf_counter() - started)
        res["idle_cpu_share"] = idle
        res["unary_floor"] = floor
        return res


def _ms(v: float | None) -> str:
    return "–" if v is None else f"{v:.1f}"


def _base(before: dict, after: dict) -> dict[str, Any]:
    k = before["kafka"]["samples"] + after["kafka"]["samples"]
    kp = before["kafka"]["produce"] + after["kafka"]["produce"]
    e = before["echo"]["samples"] + after["echo"]["samples"]
    return {
        "kafka_rt": {"n": len(k), "p50_ms": pct(k, 50), "p99_ms": pct(k, 99),
                     "before_p50_ms": pct(before["kafka"]["samples"], 50),
                     "after_p50_ms": pct(after["kafka"]["samples"], 50)},
        "kafka_produce": {"n": len(kp), "p50_ms": pct(kp, 50), "p99_ms": pct(kp, 99)},
        "grpc_echo": {"n": len(e), "p50_ms": pct(e, 50), "p99_ms": pct(e, 99),
                      "before_p50_ms": pct(before["echo"]["samples"], 50),
                      "after_p50_ms": pct(after["echo"]["samples"], 50)},
    }


def assemble(cfg: Config, before: dict, after: dict, memory: dict, levels: list[dict], flat: dict,
             elapsed: float) -> dict[str, Any]:
    base = _base(before, after)
    for res in [*levels, flat]:
        for p in ("p50", "p99"):
            seen = res[f"seen_{p}_ms"]
            res[f"seen_{p}_over_kafka_rt"] = round(seen / base["kafka_rt"][f"{p}_ms"], 2) if seen else None
            res[f"seen_{p}_over_echo"] = round(seen / base["grpc_echo"][f"{p}_ms"], 2) if seen else None
    cfg_d = dataclasses.asdict(cfg)
    return {"config": cfg_d, "cpus": os.cpu_count(), "loadavg_at_end": list(os.getloadavg()),
            "baselines": base, "memory": memory, "levels": levels, "flat_out": flat,
            "elapsed_s": round(elapsed, 1)}


# ----------------------------------------------------------------- output
def markdown(res: dict[str, Any]) -> str:
    cfg, base, mem = res["config"], res["baselines"], res["memory"]
    k, e = base["kafka_rt"], base["grpc_echo"]
    lines = [
        f"Path per action (one instance owns every room): gRPC Act → the gateway hands the command to its "
        f"owner in-process → decide ({'engine in-process' if cfg['rules_in_process'] else 'rules service over gRPC'}) → "
        f"SQLite append + outbox (group commit) → the instance's feed folds it once and renders it once per "
        f"seat → both seats' Watch streams; the outbox relay publishes to `hand.room-events` and "
        f"`hand.room-events-public` beside it. Stack: Tansu (memory), `python -m hand_rules`, "
        f"`python -m hand_room` (SQLite, log level {cfg['log_level']}), and this bench (stdlib asyncio, "
        f"{cfg['channels']} client connections) — four processes on {res['cpus']} CPUs. 2-seat rooms of "
        f"scripted humans (draw from stock, discard); human pace = one action per room every "
        f"{cfg['pace_s']:g} s on average (uniform ±50 %); {cfg['warmup_s']:g} s warm-up, "
        f"{cfg['window_s']:g} s measured per level. **act→seen**: Act call start → the move's last seq in "
        f"the *other* seat's stream. Ratios are to this run's bare baselines (p50 to p50, p99 to p99). "
        f"CPU = process CPU seconds ÷ window seconds (1.00 = one core); *other processes*: the rest of the machine (other users' jobs) in the same window; *room loop thread*: share of the window the room service's event-loop thread ran on a CPU / was runnable but waiting for one (`/proc/<pid>/task/<pid>/schedstat`): the two adding up to ~100 % means that thread never idled. Goal: 2,000 rooms "
        f"(1,000 actions/s) with act→seen p99 ≤ 100 ms; ≤ 50 KB per idle room.",
        "",
        "| baseline (same run, idle stack; before + after the load) | n | p50 ms | p99 ms |",
        "|---|---:|---:|---:|",
        f"| aiokafka produce→consume round trip (512 B, fetch wait 10 ms) | {k['n']} | {_ms(k['p50_ms'])} | "
        f"{_ms(k['p99_ms'])} |",
        f"| — of which `send_and_wait` (acks=all) | {base['kafka_produce']['n']} | "
        f"{_ms(base['kafka_produce']['p50_ms'])} | {_ms(base['kafka_produce']['p99_ms'])} |",
        f"| gRPC unary Echo to the rules service (128 B) | {e['n']} | {_ms(e['p50_ms'])} | {_ms(e['p99_ms'])} |",
        "",
        *_floor_lines(res.get("unary_floor")),
        "| rooms | pace | target act/s | achieved act/s | act→seen p50 ms | p99 ms | p50 × Kafka RT | "
        "p99 × Kafka RT | p50 × echo | Act RPC p50 ms | p99 ms | CPU room | rules | tansu | bench | "
        "other processes | room loop thread on CPU / waiting for CPU | room CPU ms/action | room RSS MB | errors |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in [*res["levels"], res["flat_out"]]:
        c = r["cpu_share"]
        errs = ", ".join(f"{k2} {v}" for k2, v in r["errors"].items()) or "–"
        lines.append(
            f"| {r['rooms']:,} | {'human' if r['pace_s'] else '**flat out**'} | "
            f"{_n(r['target_actions_per_s'])} | "
            f"**{r['actions_per_s']:,.0f}** | {_ms(r['seen_p50_ms'])} | **{_ms(r['seen_p99_ms'])}** | "
            f"{_x(r['seen_p50_over_kafka_rt'])} | {_x(r['seen_p99_over_kafka_rt'])} | {_x(r['seen_p50_over_echo'])} | "
            f"{_ms(r['act_p50_ms'])} | {_ms(r['act_p99_ms'])} | {c['room']:.2f} | {c['rules']:.2f} | "
            f"{c['tansu']:.2f} | {c['bench']:.2f} | {c['others']:.2f} | "
            f"{r['room_loop_running']:.0%} / {r['room_loop_waiting_for_cpu']:.0%} | {_ms(r['cpu_ms_per_action']['room'])} | "
            f"{r['room_rss_mb']:.0f} | {errs} |")
    idle = res["idle_cpu_share"]
    lines.append(f"| idle | – | 0 | 0 | | | | | | | | {idle['room']:.2f} | {idle['rules']:.2f} | "
                 f"{idle['tansu']:.2f} | {idle['bench']:.2f} | {idle['others']:.2f} | | | | – |")
    streams = "; ".join(f"{s['rooms']:,} rooms: {s['kb_per_room_with_2_streams']:.1f} KB" for s in mem["streams"])
    lines += [
        "",
        f"Memory: {mem['rooms']:,} idle rooms (match started, no streams) grew the room service's RSS from "
        f"{mem['rss_before_mb']:.0f} MB to {mem['rss_after_mb']:.0f} MB = **{_ms(mem['kb_per_idle_room'])} KB "
        f"per idle room** (created at {mem['rooms_created_per_s']:.0f} rooms/s, 3 commands each, "
        f"{cfg['create_concurrency']} at a time). Opening both seats' Watch streams added, per room: "
        f"{streams or '–'}.",
    ]
    prof = next((r.get("profile") for r in res["levels"] if r.get("profile")), None)
    if prof:
        lines += ["", f"Profile under {cfg['profile_level']:,} rooms ({cfg['profile_s']:g} s, after the window):", ""]
        for name, p in prof.items():
            if "error" in p:
                lines.append(f"- {name}: profiler failed: {p['error']}")
                continue
            if "by_thread" in p:
                thr = ", ".join(f"{k2} {v:.0%}" for k2, v in p["by_thread"][:4])
                comp = ", ".join(f"{k2} {v:.0%}" for k2, v in p["main_thread_by_component"][:8])
                lines.append(f"- **{name}** ({p['profiler']}; {p['busy_cores']:.2f} threads busy on average, "
                             f"the event-loop thread {p['main_thread_busy']:.0%} of the time). Samples by "
                             f"thread: {thr}. Event-loop thread by component (leaf frame): {comp}.")
            else:
                lines.append(f"- **{name}** ({p['profiler']}, {p['profiled_s']} s profiled)")
            if "main_thread_by_activity" in p:
                act = ", ".join(f"`{k2}` {v:.0%}" for k2, v in p["main_thread_by_activity"][:10])
                lines.append(f"  - {name}, event-loop thread by innermost project function: {act}.")
            top = ", ".join(f"`{k2}` {v:.0%}" for k2, v in p["top_project_inclusive"][:8])
            lines.append(f"  - {name}, project frames on the stack (inclusive): {top}.")
            leaf = ", ".join(f"`{k2}` {v:.0%}" for k2, v in p["top_self"][:6])
            lines.append(f"  - {name}, self time: {leaf}.")
    return "\n".join(lines)


def _floor_lines(floor: dict | None) -> list[str]:
    if not floor:
        return []
    h, g = floor["health_check"], floor["get_room"]
    return [f"The room service's own CPU per unary call, same run ({h['calls']:,} calls from 8 clients, rooms "
            f"idle): bare `grpc.health.v1` Check (grpcio's asyncio server alone) **{h['room_cpu_ms_per_call']:.2f} ms**; "
            f"`GetRoom` of a cached room (the shared edge and the room rendered) **{g['room_cpu_ms_per_call']:.2f} ms**. "
            f"An action is one such call plus its decision, its commit and two Watch messages.", ""]


def _n(v: float | None) -> str:
    return "–" if v is None else f"{v:,.0f}"


def _x(v: float | None) -> str:
    return "–" if v is None else f"{v:.1f}×"


# ----------------------------------------------------------------- entry points
async def bench(cfg: Config) -> dict[str, Any]:
    """Start the stack, run every phase, stop every process (also on error or cancellation)."""
    async with Run(cfg) as run:
        return await run.run()


def _quiet_logs() -> None:
    from hand_common.config import LogConfig
    from hand_common.logging import configure_logging

    configure_logging(LogConfig(format="console", level="warning"), stream=sys.stderr)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="10 and 100 rooms, 8 s windows, no profile")
    p.add_argument("--levels", type=int, nargs="+")
    p.add_argument("--window", type=float, help="measured seconds per level")
    p.add_argument("--warmup", type=float, help="seconds of load before each window")
    p.add_argument("--flat-rooms", type=int)
    p.add_argument("--flat", type=float, help="measured seconds flat out")
    p.add_argument("--profile-level", type=int, help="profile under this level (0: never)")
    p.add_argument("--profile-s", type=float, help="profiling seconds")
    p.add_argument("--rules-over-grpc", action="store_true",
                   help="the room owner calls the rules service instead of the engine in-process")
    p.add_argument("--create-concurrency", type=int, help="room-creating clients at a time")
    p.add_argument("--log-level", choices=["debug", "info", "warning", "error"])
    p.add_argument("--json", type=Path, help="results file (default bench/results/rooms[-quick].json)")
    p.add_argument("--observability-cost", action="store_true",
                   help="metrics and traces on/off, interleaved rounds of fresh stacks (issue 25's cost)")
    p.add_argument("--cost-rooms", type=int, help="rooms per phase of --observability-cost (default 300)")
    p.add_argument("--rounds", type=int, help="rounds of --observability-cost (default 4)")
    a = p.parse_args(argv)
    cfg = Config.quick_config() if a.quick else Config()
    for arg, attr in (("levels", "levels"), ("window", "window_s"), ("warmup", "warmup_s"),
                      ("flat_rooms", "flat_rooms"), ("flat", "flat_s"), ("log_level", "log_level"),
                      ("create_concurrency", "create_concurrency"), ("profile_s", "profile_s")):
        if getattr(a, arg) is not None:
            setattr(cfg, attr, getattr(a, arg))
    cfg.rules_in_process = not a.rules_over_grpc
    if a.profile_level is not None:
        cfg.profile_level = a.profile_level or None
    if a.observability_cost:
        return _cost_main(cfg, a)
    _quiet_logs()
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # SIGTERM stops like Ctrl-C: processes cleaned up
    try:
        res = asyncio.run(bench(cfg))
    except KeyboardInterrupt:
        progress("interrupted; every process stopped")
        raise SystemExit(130) from None
    path = a.json or ROOT / "bench" / "results" / ("rooms-quick.json" if cfg.quick else "rooms.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(res, indent=1) + "\n")
    print(markdown(res))
    progress(f"results in {path} ({res['elapsed_s']:.0f} s)")
    return res


def _cost_main(cfg: Config, a: argparse.Namespace) -> dict[str, Any]:
    from roomload import cost

    cfg.profile_level = None  # no profiler in these phases (it would be measured)
    if a.window is None:
        cfg.window_s = 20.0
    cfg.cost_rooms = a.cost_rooms or cfg.cost_rooms
    cfg.cost_rounds = a.rounds or cfg.cost_rounds
    _quiet_logs()
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        res = asyncio.run(cost.observability_cost(Run, cfg))
    except KeyboardInterrupt:
        progress("interrupted; every process stopped")
        raise SystemExit(130) from None
    res["cpus"], res["loadavg_at_end"] = os.cpu_count(), list(os.getloadavg())
    path = a.json or ROOT / "bench" / "results" / "rooms-cost.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(res, indent=1) + "\n")
    print(cost.markdown(res, res["cpus"], res["loadavg_at_end"]))
    progress(f"results in {path} ({res['elapsed_s']:.0f} s)")
    return res


if __name__ == "__main__":
    main()
