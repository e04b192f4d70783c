"""The floor under the room service's CPU per action: what grpcio's asyncio server alone
costs for an action's calls, with no game, no store and no broker (issue 24's ≤ 1 ms goal).

An action of the room bench is one unary ``Act`` plus one message on each of the room's
two Watch streams. Here a server process (uvloop, as the services run) has exactly that
and nothing else: ``Act`` puts its request on the two streams of its "room" and answers;
``Watch`` yields what it is given. A client process (its own CPU time not counted) opens
two streams per room and calls ``Act`` at human pace — each room every 2 s on average —
then flat out. Per level: the server process's CPU per action, and the same for a bare
unary call alone (no stream message). ``--interceptors`` puts the services' edge chain
(metrics, in-flight bound, rate limit, door) in front, as the room service has.
``--play`` adds the same action carried over a bidirectional stream per seat instead
(``Play``: the acting seat's message in on its own stream, the room's message out on both
seats' streams — the shape of a game socket), to show what the unary call itself costs.

    .venv/bin/python bench/grpc_floor.py [--rooms 100 300 600] [--window 10] [--interceptors] [--play]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import grpc

ROOT = Path(__file__).resolve().parents[1]
SERVICE = "bench.Floor"
PAYLOAD = bytes(300)  # about a Watch message of the room bench


def _cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        parts = f.read().rsplit(")", 1)[1].split()
    return (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")


async def serve(port_file: str, interceptors: bool) -> None:
    streams: dict[bytes, list[asyncio.Queue]] = {}

    async def act(request: bytes, context) -> bytes:
        for queue in streams.get(request[:8], ()):
            queue.put_nowait(PAYLOAD)
        return b"ok"

    async def bare(request: bytes, context) -> bytes:
        return b"ok"

    async def watch(request: bytes, context):
        queue: asyncio.Queue = asyncio.Queue()
        streams.setdefault(request[:8], []).append(queue)
        yield b"open"
        while True:
            yield await queue.get()

    async def play(requests, context):
        first = await anext(aiter(requests))
        queue: asyncio.Queue = asyncio.Queue()
        streams.setdefault(first[:8], []).append(queue)

        async def acts() -> None:
            async for request in requests:
                for q in streams.get(request[:8], ()):
                    q.put_nowait(PAYLOAD)
        reader = asyncio.ensure_future(acts())
        try:
            yield b"open"
            while True:
                yield await queue.get()
        finally:
            reader.cancel()

    chain = []
    if interceptors:
        sys.path[:0] = [str(ROOT / "services"), str(ROOT / "gen")]
        import dataclasses

        from hand_common.config import RateLimitConfig
        from hand_common.serving import edge_interceptors
        limits = dataclasses.replace(RateLimitConfig.from_env({}), peer_per_s=1e6, peer_burst=10**6,
                                     streams_per_peer=0)  # every client here is one peer
        chain = edge_interceptors(limits, None, max_in_flight=256)
    server = grpc.aio.server(interceptors=chain)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, {
        "Act": grpc.unary_unary_rpc_method_handler(act),
        "Bare": grpc.unary_unary_rpc_method_handler(bare),
        "Watch": grpc.unary_stream_rpc_method_handler(watch),
        "Play": grpc.stream_stream_rpc_method_handler(play)}),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    Path(port_file).write_text(str(port))
    await server.wait_for_termination()


async def drive(port: int, pid: int, levels: list[int], window: float, channels: int,
                play: bool = False) -> list[dict]:
    chans = [grpc.aio.insecure_channel(f"127.0.0.1:{port}") for _ in range(channels)]
    out = []
    try:
        for rooms in levels:
            ids = [i.to_bytes(8, "big") for i in range(rooms)]
            opened = []
            for n, rid in enumerate(ids):
                for seat in range(2):
                    call = chans[(2 * n + seat) % channels].unary_stream(f"/{SERVICE}/Watch")(rid)
                    opened.append(call)
            for call in opened:
                assert await call.read() == b"open"
            readers = [asyncio.ensure_future(_drain(c)) for c in opened]
            for method, pace in (("Act", 2.0), ("Bare", 2.0), ("Act", 0.0)):
                if pace == 0.0 and rooms != levels[-1]:
                    continue  # flat out once, at the last level
                out.append(await _level(chans, pid, ids, method, pace, window))
                print(json.dumps(out[-1]), flush=True)
            await _close(readers, opened)
            if play:
                out += await _play_level(chans, pid, ids, window)
    finally:
        for c in chans:
            await c.close()
    return out


async def _drain(call) -> None:
    try:
        while await call.read() is not grpc.aio.EOF:
            pass
    except (asyncio.CancelledError, grpc.aio.AioRpcError):
        pass


async def _level(chans, pid: int, ids: list[bytes], method: str, pace: float, window: float,
                 play: list | None = None) -> dict:
    done = 0
    stop = asyncio.Event()

    async def room(n: int, rid: bytes) -> None:
        nonlocal done
        stub = play[n].write if play else chans[n % len(chans)].unary_unary(f"/{SERVICE}/{method}")
        if pace:
            await asyncio.sleep(random.uniform(0, pace))
        while not stop.is_set():
            await stub(rid)
            done += 1
            if pace:
                await asyncio.sleep(random.uniform(0.5 * pace, 1.5 * pace))

    tasks = [asyncio.ensure_future(room(n, rid)) for n, rid in enumerate(ids if pace else ids[:20])]
    await asyncio.sleep(2.0)  # warm-up
    c0, d0, t0 = _cpu(pid), done, time.monotonic()
    await asyncio.sleep(window)
    c1, d1, t1 = _cpu(pid), done, time.monotonic()
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    calls = d1 - d0
    return {"rooms": len(ids), "method": method, "pace": "flat out (20 rooms)" if not pace else f"{pace:g} s",
            "calls_per_s": round(calls / (t1 - t0), 1), "server_cpu": round((c1 - c0) / (t1 - t0), 3),
            "cpu_ms_per_call": round(1000 * (c1 - c0) / max(1, calls), 3)}


async def _play_level(chans, pid: int, ids: list[bytes], window: float) -> list[dict]:
    """The same actions at human pace over one bidirectional ``Play`` stream per seat: seat
    0 of a room writes its action on its own stream; both seats read the room's message.
    (No flat-out run: a writer that need not wait for an answer is not the same load.)"""
    calls = []
    for n, rid in enumerate(ids):
        for seat in range(2):
            call = chans[(2 * n + seat) % len(chans)].stream_stream(f"/{SERVICE}/Play")()
            await call.write(rid)
            calls.append(call)
    for call in calls:
        assert await call.read() == b"open"
    readers = [asyncio.ensure_future(_drain(c)) for c in calls]
    out = [await _level(chans, pid, ids, "Play", 2.0, window, play=calls[0::2])]
    print(json.dumps(out[-1]), flush=True)
    await _close(readers, calls)
    return out


async def _close(readers: list, calls: list) -> None:
    """Stop reading, cancel the streams, and let the server see them end."""
    for task in readers + calls:
        task.cancel()
    await asyncio.sleep(0.5)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rooms", type=int, nargs="+", default=[100, 300, 600])
    p.add_argument("--window", type=float, default=10.0)
    p.add_argument("--channels", type=int, default=8)
    p.add_argument("--interceptors", action="store_true")
    p.add_argument("--play", action="store_true", help="also the action over a bidirectional stream per seat")
    p.add_argument("--serve", help=argparse.SUPPRESS)
    a = p.parse_args()
    import uvloop
    if a.serve:
        uvloop.run(serve(a.serve, a.interceptors))
        return
    port_file = Path(f"/tmp/grpc-floor-{os.getpid()}.port")
    port_file.unlink(missing_ok=True)
    server = subprocess.Popen([sys.executable, __file__, "--serve", str(port_file),
                               *(["--interceptors"] if a.interceptors else [])])
    try:
        for _ in range(100):
            if port_file.exists() and port_file.read_text():
                break
            time.sleep(0.1)
        rows = uvloop.run(drive(int(port_file.read_text()), server.pid, a.rooms, a.window, a.channels,
                                a.play))
    finally:
        server.terminate()
        server.wait()
        port_file.unlink(missing_ok=True)
    print("| rooms | call | pace | calls/s | server CPU | CPU ms per call |")
    print("|---:|---|---|---:|---:|---:|")
    for r in rows:
        print(f"| {r['rooms']} | {r['method']} | {r['pace']} | {r['calls_per_s']} | {r['server_cpu']} | "
              f"{r['cpu_ms_per_call']} |")


if __name__ == "__main__":
    main()
