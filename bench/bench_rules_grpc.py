"""Rules service over loopback: ApplyAction against Echo of the same payload size.

Starts ``python -m hand_rules`` (port 0) as a subprocess, then, for each
number of concurrent clients, drives Echo and ApplyAction on that same
server in turns and prints a markdown table: calls/s, p50/p99 latency, the
server's CPU time per call (from /proc), and Apply's throughput as a share
of Echo's (goal: ≥ 60 %). Apply requests are real mid-game positions with a
legal move; each Echo request is padded to the byte size of one of them.
Clients send pre-serialized bytes, so client-side cost is the same for both.

    .venv/bin/python bench/bench_rules_grpc.py [--quick] [--clients 1 8 32] [--seconds 4]
        [--threads N] [--json PATH]

Markdown on stdout, progress on stderr, results also in
bench/results/rules-grpc.json (``--quick``: rules-grpc-quick.json).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "services"), str(ROOT / "gen")]

import grpc  # noqa: E402

from hand.v1 import rules_service_pb2 as pb  # noqa: E402
from hand_engine import random_step, resolve, start_round  # noqa: E402
from hand_wire import action_to_proto, state_to_proto  # noqa: E402

METHODS = {"Echo": "/hand.v1.RulesService/Echo", "ApplyAction": "/hand.v1.RulesService/ApplyAction"}


THREADED = """
import asyncio, concurrent.futures
from hand_common.logging import configure_logging
from hand_rules.__main__ import serve
from hand_rules.settings import RulesConfig
config = RulesConfig.from_env()
configure_logging(config.log)
asyncio.run(serve(config, concurrent.futures.ThreadPoolExecutor({threads})))
"""


def workload(count: int = 32, seed: int = 1) -> dict[str, list[bytes]]:
    """``count`` ApplyAction requests from random games, and Echo requests of equal sizes."""
    rng = random.Random(seed)
    applies: list[bytes] = []
    while len(applies) < count:
        state, _ = start_round(resolve("hand"), 4, seed=rng.randrange(2**32))
        while state.result is None and len(applies) < count:
            before = state
            state, _, action = random_step(state, rng)
            if rng.random() < 0.3:
                applies.append(pb.ApplyActionRequest(
                    state=state_to_proto(before), seat=before.turn.seat, action=action_to_proto(action),
                ).SerializeToString())
    echoes = []
    for body in applies:
        pad = len(body) - 2  # minus the field tag and (at least) one byte of length
        while len(echo := pb.EchoRequest(payload=b"x" * pad).SerializeToString()) > len(body):
            pad -= 1
        assert len(echo) == len(body), (len(echo), len(body))
        echoes.append(echo)
    return {"ApplyAction": applies, "Echo": echoes}


class Server:
    """``python -m hand_rules`` on a free port, logging JSON at info to a temp file."""

    def __init__(self, threads: int = 0) -> None:
        self.log = tempfile.NamedTemporaryFile(prefix="bench-rules-", suffix=".log")
        env = {**os.environ, "HAND_RULES_PORT": "0", "HAND_LOG_FORMAT": "json", "HAND_LOG_LEVEL": "info"}
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "services"), str(ROOT / "gen")])
        command = [sys.executable, "-m", "hand_rules"]
        if threads:  # engine calls in a thread pool instead of inline on the event loop
            command[1:] = ["-c", THREADED.format(threads=threads)]
        self.proc = subprocess.Popen(command, env=env, stderr=self.log, stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            for line in Path(self.log.name).read_text().splitlines():
                if '"listening"' in line:
                    self.target = line.split('"address": "')[1].split('"')[0]
                    return
            time.sleep(0.05)
        self.proc.kill()
        raise RuntimeError("the rules service did not start")

    def cpu_s(self) -> float:
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=15)
        self.log.close()


async def drive(target: str, method: str, payloads: list[bytes], clients: int, seconds: float
                ) -> tuple[int, list[float], float]:
    """Calls made, their latencies (s) and the elapsed time, with ``clients`` concurrent callers."""
    async with grpc.aio.insecure_channel(target) as channel:
        call = channel.unary_unary(METHODS[method])  # bytes in, bytes out
        await call(payloads[0])
        latencies: list[float] = []
        deadline = time.perf_counter() + seconds

        async def client(k: int) -> None:
            i = k
            while time.perf_counter() < deadline:
                t0 = time.perf_counter()
                await call(payloads[i % len(payloads)])
                latencies.append(time.perf_counter() - t0)
                i += 1

        start = time.perf_counter()
        await asyncio.gather(*(client(k) for k in range(clients)))
        return len(latencies), latencies, time.perf_counter() - start


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] * 1000


async def measure(args: argparse.Namespace) -> dict:
    loads = workload()
    size = sum(map(len, loads["ApplyAction"])) // len(loads["ApplyAction"])
    server = Server(args.threads)
    cells = []
    try:
        for clients in args.clients:
            progress(f"bench_rules_grpc: {clients} client(s)")
            totals = {m: [0, [], 0.0, 0.0] for m in METHODS}  # calls, latencies, seconds, CPU s
            for _ in range(args.rounds):  # alternate, so load from elsewhere hits both alike
                for method in METHODS:
                    cpu0 = server.cpu_s()
                    n, lat, elapsed = await drive(
                        server.target, method, loads[method], clients, args.seconds / args.rounds
                    )
                    t = totals[method]
                    t[0] += n
                    t[1] += lat
                    t[2] += elapsed
                    t[3] += server.cpu_s() - cpu0
            cell = {"clients": clients}
            for method, (n, lat, secs, cpu) in totals.items():
                cell[method] = {
                    "calls": n, "calls_per_s": n / secs, "p50_ms": pct(lat, 50), "p99_ms": pct(lat, 99),
                    "server_cpu_us_per_call": cpu / n * 1e6,
                }
            echo, apply = cell["Echo"], cell["ApplyAction"]
            cell["apply_over_echo"] = apply["calls_per_s"] / echo["calls_per_s"]
            # what the throughput ratio would be with the server saturated: less sensitive to noise
            cell["apply_over_echo_cpu"] = echo["server_cpu_us_per_call"] / apply["server_cpu_us_per_call"]
            cells.append(cell)
    finally:
        server.stop()
    return {
        "config": {"clients": args.clients, "seconds": args.seconds, "rounds": args.rounds,
                   "threads": args.threads, "quick": args.quick},
        "mean_request_bytes": size, "cpus": os.cpu_count(), "cells": cells,
    }


def markdown(res: dict) -> str:
    cfg = res["config"]
    mode = f"{cfg['threads']} engine threads" if cfg["threads"] else "engine calls inline"
    lines = [
        f"Rules service over loopback ({mode}), `python -m hand_rules` in its own process; "
        f"mean request {res['mean_request_bytes']} B; {cfg['seconds']:g} s per cell in "
        f"{cfg['rounds']} alternating Echo/Apply rounds. Goal: Apply ≥ 60 % of Echo's calls/s. "
        "*by CPU*: Echo's server CPU per call ÷ Apply's, the throughput ratio of a saturated "
        "server (steadier than calls/s on a shared machine).",
        "",
        "| clients | method | calls/s | p50 ms | p99 ms | server CPU µs/call | Apply / Echo | by CPU |",
        "|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for cell in res["cells"]:
        for method in METHODS:
            r = cell[method]
            share = cpu = ""
            if method == "ApplyAction":
                share, cpu = f"**{cell['apply_over_echo']:.0%}**", f"{cell['apply_over_echo_cpu']:.0%}"
            lines.append(
                f"| {cell['clients']} | {method} | {r['calls_per_s']:,.0f} | {r['p50_ms']:.2f} | "
                f"{r['p99_ms']:.2f} | {r['server_cpu_us_per_call']:,.0f} | {share} | {cpu} |"
            )
    return "\n".join(lines)


def progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--seconds", type=float, default=4.0, help="per method and client count")
    parser.add_argument("--rounds", type=int, default=4, help="Echo/Apply alternations per cell")
    parser.add_argument("--threads", type=int, default=0, help="run engine calls in N threads")
    parser.add_argument("--quick", action="store_true", help="a tiny configuration (CI smoke)")
    parser.add_argument("--json", type=Path, help="results file (default bench/results/rules-grpc[-quick].json)")
    args = parser.parse_args(argv)
    if args.quick:
        args.clients, args.seconds, args.rounds = [1, 8], 0.5, 1
    res = asyncio.run(measure(args))
    path = args.json or ROOT / "bench" / "results" / ("rules-grpc-quick.json" if args.quick else "rules-grpc.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(res, indent=1) + "\n")
    print(markdown(res))
    progress(f"bench_rules_grpc: results in {path}")
    return res


if __name__ == "__main__":
    main()
