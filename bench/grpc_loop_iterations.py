"""How many event-loop iterations one unary call costs grpcio's asyncio server, and so
how a busy loop stretches every call (docs/room-service.md, "Admission by the loop's lag").

A server process answers health ``Check`` while a filler task keeps its loop busy:
each iteration runs ``--callbacks`` callbacks of ``--work-us`` µs. A client process
calls it, one call at a time and then ``--concurrency`` at a time. Iterations per
call = call latency ÷ iteration time; the same with no filler is the baseline.

    .venv/bin/python bench/grpc_loop_iterations.py [--callbacks 0 50 200] [--work-us 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc


async def serve(port: int, callbacks: int, work_s: float, seconds: float) -> None:
    server = grpc.aio.server()
    health_pb2_grpc.add_HealthServicer_to_server(health.aio.HealthServicer(), server)
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    loop = asyncio.get_running_loop()
    iterations = 0

    def work() -> None:
        t = time.perf_counter()
        while time.perf_counter() - t < work_s:
            pass

    async def filler() -> None:
        nonlocal iterations
        while True:
            iterations += 1
            for _ in range(callbacks):
                loop.call_soon(work)
            await asyncio.sleep(0)

    task = asyncio.ensure_future(filler())
    started = time.monotonic()
    print("ready", flush=True)
    await asyncio.sleep(seconds)
    task.cancel()
    print(json.dumps({"iteration_ms": 1000 * (time.monotonic() - started) / max(1, iterations)}), flush=True)
    await server.stop(None)


async def call(port: int, concurrency: int, seconds: float) -> dict:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        await stub.Check(health_pb2.HealthCheckRequest())
        latencies: list[float] = []
        end = time.monotonic() + seconds

        async def one() -> None:
            while time.monotonic() < end:
                t = time.monotonic()
                await stub.Check(health_pb2.HealthCheckRequest(), timeout=30)
                latencies.append(time.monotonic() - t)

        await asyncio.gather(*(one() for _ in range(concurrency)))
    latencies.sort()
    return {"calls_per_s": round(len(latencies) / seconds, 1),
            "p50_ms": round(1000 * latencies[len(latencies) // 2], 2)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--callbacks", type=int, nargs="+", default=[0, 50, 200])
    p.add_argument("--work-us", type=float, default=20.0)
    p.add_argument("--concurrency", type=int, default=16)
    p.add_argument("--seconds", type=float, default=4.0)
    p.add_argument("--port", type=int, default=50981)
    p.add_argument("--serve", nargs=3, type=float, help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.serve:
        asyncio.run(serve(a.port, int(a.serve[0]), a.serve[1], a.serve[2]))
        return
    print("| filler callbacks per iteration | iteration ms | 1 at a time: p50 ms | iterations per call "
          f"| {a.concurrency} at a time: calls/s | p50 ms |\n|---:|---:|---:|---:|---:|---:|")
    for callbacks in a.callbacks:
        server = subprocess.Popen([sys.executable, __file__, "--port", str(a.port), "--serve", str(callbacks),
                                   str(a.work_us / 1e6), str(2 * a.seconds + 2)], stdout=subprocess.PIPE, text=True)
        assert server.stdout.readline().strip() == "ready"
        one = asyncio.run(call(a.port, 1, a.seconds))
        many = asyncio.run(call(a.port, a.concurrency, a.seconds))
        iteration_ms = json.loads(server.stdout.readline())["iteration_ms"]
        server.wait()
        per_call = one["p50_ms"] / iteration_ms if callbacks else float("nan")
        print(f"| {callbacks} | {iteration_ms:.2f} | {one['p50_ms']} | {per_call:.1f} | {many['calls_per_s']} "
              f"| {many['p50_ms']} |", flush=True)


if __name__ == "__main__":
    main()
