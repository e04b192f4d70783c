"""Browser protocol (Connect, gRPC-Web) next to native gRPC, and the web client in a real browser.

Starts ``python -m hand_run`` (the whole stack as ``make run`` does, every port 0, SQLite in a
temporary folder) as a subprocess, then measures from this process, in the same run:

* **unary round trip**: ``RulesService.Echo`` (16-byte payload) and ``RoomService.GetRoom`` (reads
  the event store) over native gRPC (grpc.aio, the service's own port) and over Connect and
  gRPC-Web (``connectrpc`` client, the web server's port; the same servicer object answers),
  interleaved in rounds so drift hits every transport alike;
* **Watch event delivery**: one spectator stream per transport on one room; a native ``JoinRoom`` /
  ``LeaveRoom`` alternately produces one event each; the time from the call's start to the event's
  arrival on each stream;
* **browser**: ``web/e2e/bench_click.mjs`` plays one-round matches against bots in Debian's
  chromium and measures, in the page, each click (Draw, Discard) to the player's own move shown
  (the hand's card count changes);
* **first screen on a phone-class CPU**: ``web/e2e/bench_first_screen.mjs`` opens the lobby on a
  390×844 page, cold cache, with Chromium's CPU throttled ×4 (CDP ``Emulation.setCPUThrottlingRate``)
  and, as its baseline in the same run, unthrottled (×1): the page served → the lobby's form on screen,
  and → the first ``ListRooms`` answer (issue 26: ≤ 1.5 s at ×4);
* **bundle**: the compressed size of ``web/dist/app.js``.

Markdown on stdout (progress on stderr); ``--quick`` is the CI smoke size.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import grpc
from connectrpc.client import ConnectClient
from connectrpc.compat import google_protobuf_binary_codec
from connectrpc.errors import ConnectError
from connectrpc.protocol import ProtocolType

from hand.v1 import room_service_pb2 as room_pb
from hand.v1 import room_service_pb2_grpc as room_grpc
from hand.v1 import rules_service_pb2 as rules_pb
from hand.v1 import rules_service_pb2_grpc as rules_grpc
from hand_run.process import LocalStack
from hand_web.adapter import method_info

ROOT = Path(__file__).resolve().parents[1]
WEB = ROOT / "web"
RULES = rules_pb.DESCRIPTOR.services_by_name["RulesService"]
ROOM = room_pb.DESCRIPTOR.services_by_name["RoomService"]
TRANSPORTS = ("native gRPC", "Connect", "gRPC-Web")
RAW = ("Connect, raw HTTP/1.1 client", "gRPC-Web, raw HTTP/1.1 client")


def progress(text: str) -> None:
    print(f"[bench_web] {text}", file=sys.stderr, flush=True)


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))] if ordered else float("nan")


class RawHTTP:
    """A minimal keep-alive HTTP/1.1 client (one request in one write, chunked replies): the server's
    share of a browser-protocol call without the cost of a particular client library."""

    def __init__(self, url: str) -> None:
        self.host, port = url.split("//", 1)[1].rstrip("/").rsplit(":", 1)
        self.port = int(port)
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self, path: str, content_type: str, body: bytes) -> bytes:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        head = (f"POST {path} HTTP/1.1\r\nHost: {self.host}\r\nContent-Type: {content_type}\r\n"
                f"Content-Length: {len(body)}\r\nConnect-Protocol-Version: 1\r\nX-Grpc-Web: 1\r\n\r\n")
        self.writer.write(head.encode() + body)
        headers = (await self.reader.readuntil(b"\r\n\r\n")).decode("latin-1").lower()
        if "transfer-encoding: chunked" not in headers:
            length = int(headers.split("content-length:", 1)[1].split("\r\n", 1)[0])
            return await self.reader.readexactly(length)
        out = b""
        while size := int((await self.reader.readuntil(b"\r\n")).strip(), 16):
            out += await self.reader.readexactly(size + 2)
        await self.reader.readuntil(b"\r\n")
        return out

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


def _client(url: str, protocol: ProtocolType) -> ConnectClient:
    return ConnectClient(url.rstrip("/"), protocol=protocol, codec=google_protobuf_binary_codec(),
                         send_compression=None, accept_compression=())


async def unary(found: dict[str, str], rounds: int, per_round: int) -> dict[str, dict[str, list[float]]]:
    names = (*TRANSPORTS, *RAW)
    times: dict[str, dict[str, list[float]]] = {"Echo": {t: [] for t in names},
                                                "GetRoom": {t: [] for t in names}}
    async with grpc.aio.insecure_channel(found["rules"]) as rch, grpc.aio.insecure_channel(found["room"]) as mch:
        rules, room = rules_grpc.RulesServiceStub(rch), room_grpc.RoomServiceStub(mch)
        created = await room.CreateRoom(room_pb.CreateRoomRequest(player_name="bench", seat_count=4))
        get = room_pb.GetRoomRequest(room_id=created.room.room_id)
        echo = rules_pb.EchoRequest(payload=b"0123456789abcdef")
        connect, grpc_web = _client(found["url"], ProtocolType.CONNECT), _client(found["url"], ProtocolType.GRPC_WEB)
        raw = RawHTTP(found["url"])
        framed = lambda m: b"\x00" + len(m.SerializeToString()).to_bytes(4, "big") + m.SerializeToString()  # noqa: E731
        calls = {
            RAW[0]: {"Echo": lambda: raw.post("/hand.v1.RulesService/Echo", "application/proto", echo.SerializeToString()),
                     "GetRoom": lambda: raw.post("/hand.v1.RoomService/GetRoom", "application/proto",
                                                 get.SerializeToString())},
            RAW[1]: {"Echo": lambda: raw.post("/hand.v1.RulesService/Echo", "application/grpc-web+proto", framed(echo)),
                     "GetRoom": lambda: raw.post("/hand.v1.RoomService/GetRoom", "application/grpc-web+proto",
                                                 framed(get))},
            "native gRPC": {"Echo": lambda: rules.Echo(echo), "GetRoom": lambda: room.GetRoom(get)},
            **{name: {"Echo": (lambda c=c: c.execute_unary(request=echo, method=method_info(RULES, "Echo"))),
                      "GetRoom": (lambda c=c: c.execute_unary(request=get, method=method_info(ROOM, "GetRoom")))}
               for name, c in (("Connect", connect), ("gRPC-Web", grpc_web))},
        }
        for name in names:  # warm-up: connections, first calls
            for method in times:
                for _ in range(20):
                    await calls[name][method]()
        for _ in range(rounds):
            for name in names:
                for method in times:
                    for _ in range(per_round):
                        started = time.perf_counter()
                        await calls[name][method]()
                        times[method][name].append((time.perf_counter() - started) * 1000)
        await connect.close()
        await grpc_web.close()
        await raw.close()
    return times


def _seq(message) -> int | None:
    """The event seq of a Watch message, None for the snapshot."""
    return message.event.seq if message.WhichOneof("message") == "event" else None


async def watch(found: dict[str, str], events: int) -> dict[str, list[float]]:
    arrivals: dict[str, dict[int, float]] = {t: {} for t in TRANSPORTS}
    async with grpc.aio.insecure_channel(found["room"]) as channel:
        room = room_grpc.RoomServiceStub(channel)
        created = await room.CreateRoom(room_pb.CreateRoomRequest(player_name="bench", seat_count=4))
        room_id = created.room.room_id
        request = room_pb.WatchRequest(room_id=room_id)
        connect, grpc_web = _client(found["url"], ProtocolType.CONNECT), _client(found["url"], ProtocolType.GRPC_WEB)
        streams = {
            "native gRPC": room.Watch(request),
            "Connect": connect.execute_server_stream(request=request, method=method_info(ROOM, "Watch")),
            "gRPC-Web": grpc_web.execute_server_stream(request=request, method=method_info(ROOM, "Watch")),
        }
        first = {t: asyncio.Event() for t in TRANSPORTS}

        async def follow(name: str) -> None:
            try:
                async for message in streams[name]:
                    seq = _seq(message)
                    if seq is not None:
                        arrivals[name].setdefault(seq, time.perf_counter())
                    first[name].set()
            except (ConnectError, grpc.aio.AioRpcError):  # cancelled at the end of the measurement
                pass

        tasks = [asyncio.create_task(follow(name)) for name in TRANSPORTS]
        for name in TRANSPORTS:
            await asyncio.wait_for(first[name].wait(), 30)
        sent: dict[int, float] = {}
        token = ""
        for i in range(events):
            started = time.perf_counter()
            if i % 2 == 0:
                joined = await room.JoinRoom(room_pb.JoinRoomRequest(join_code=created.room.join_code,
                                                                     player_name=f"p{i}"))
                token, seq = joined.seat_token, joined.room.next_seq - 1
            else:
                left = await room.LeaveRoom(room_pb.LeaveRoomRequest(room_id=room_id, seat_token=token))
                seq = left.room.next_seq - 1
            sent[seq] = started
            deadline = time.monotonic() + 10
            while any(seq not in arrivals[t] for t in TRANSPORTS) and time.monotonic() < deadline:
                await asyncio.sleep(0.001)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await connect.close()
        await grpc_web.close()
    return {t: [(arrivals[t][s] - sent[s]) * 1000 for s in sent if s in arrivals[t]] for t in TRANSPORTS}


def browser(url: str, matches: int) -> dict:
    result = subprocess.run(["node", "e2e/bench_click.mjs", str(matches)], cwd=WEB, capture_output=True,
                            text=True, timeout=600, env={**os.environ, "HAND_WEB_URL": url})
    if result.returncode != 0:
        raise RuntimeError(result.stdout[-2000:] + result.stderr[-2000:])
    return json.loads(result.stdout.strip().splitlines()[-1])


def first_screen(url: str, runs: int) -> dict:
    """``bench_first_screen.mjs`` at CPU throttling ×4 and its ×1 baseline: {"4": {...}, "1": {...}}."""
    out = {}
    for rate in (4, 1):
        result = subprocess.run(["node", "e2e/bench_first_screen.mjs", str(runs)], cwd=WEB, capture_output=True,
                                text=True, timeout=600, env={**os.environ, "HAND_WEB_URL": url, "CPU_THROTTLE": str(rate)})
        if result.returncode != 0:
            raise RuntimeError(result.stdout[-2000:] + result.stderr[-2000:])
        out[str(rate)] = json.loads(result.stdout.strip().splitlines()[-1])
    return out


FIRST_SCREEN_GOAL_MS = 1500


def row(name: str, values: list[float], base: list[float]) -> str:
    p50, p99 = pct(values, 50), pct(values, 99)
    return (f"| {name} | {len(values)} | {p50:.2f} ms | {p99:.2f} ms | "
            f"{p50 / pct(base, 50):.2f}× | {p99 / pct(base, 99):.2f}× |")


def markdown(res: dict) -> str:
    out = ["`python -m hand_run` as a subprocess (every component in one process and event loop); the client "
           "runs in the bench process (grpc.aio for native gRPC, the `connectrpc` client over HTTP/1.1 for "
           "Connect and gRPC-Web, binary protobuf, no compression; rate limits off, the rest of the edge on; the *raw* rows send the same requests with "
           "a minimal HTTP/1.1 client, so they show the server's share without the client library's). "
           "Ratios are to native gRPC in the same run.",
           ""]
    for method, label in (("Echo", "`RulesService.Echo` (16 bytes)"), ("GetRoom", "`RoomService.GetRoom` (reads the store)")):
        out += [f"**Unary round trip, {label}**", "",
                "| transport | calls | p50 | p99 | p50 ÷ native | p99 ÷ native |", "|---|---:|---:|---:|---:|---:|"]
        base = res["unary"][method]["native gRPC"]
        out += [row(t, res["unary"][method][t], base) for t in (*TRANSPORTS, *RAW)] + [""]
    base = res["watch"]["native gRPC"]
    out += ["**Watch event delivery** (JoinRoom/LeaveRoom call start → the event on each transport's stream; "
            "the Kafka path dominates)", "",
            "| transport | events | p50 | p99 | p50 ÷ native | p99 ÷ native |", "|---|---:|---:|---:|---:|---:|"]
    out += [row(t, res["watch"][t], base) for t in TRANSPORTS] + [""]
    b = res["browser"]
    out += ["**Browser** (Debian chromium, headless, via playwright-core; one-round matches against three "
            "beginner bots; Draw and Discard clicks, measured in the page: *shown* = the click to the hand's "
            "card count changing on screen (the client draws the move at once), *confirmed* = the click to the "
            "server's view from the Watch stream showing it: Act to the room's owner (in process when this "
            "instance owns the room), the store, the outbox, Kafka, the Watch fan-out)", "",
            "| | clicks | p50 | p99 | max | goal |", "|---|---:|---:|---:|---:|---|"]
    out += [f"| {k} | {b[k]['n']} | {b[k]['p50']:.1f} ms | {b[k]['p99']:.1f} ms | {b[k]['max']:.1f} ms | "
            "p99 ≤ 100 ms |" for k in ("shown", "confirmed")] + [""]
    f = res["first_screen"]
    slow, base = f["4"], f["1"]
    met = "**met**" if slow["shown"]["max"] <= FIRST_SCREEN_GOAL_MS else "**not met**"
    out += [f"**First screen on a phone-class CPU** (`web/e2e/bench_first_screen.mjs`: a 390×844 page, a fresh "
            "context each run (cold cache), Chromium's CPU throttled via CDP `Emulation.setCPUThrottlingRate`; "
            "from the document's `responseEnd` (the page served) to the lobby's form on screen, and to the first "
            f"`ListRooms` answer; {slow['runs']} runs each; ratios to ×1 in the same run)", "",
            "| CPU | to | p50 | max | p50 ÷ ×1 | goal |", "|---|---|---:|---:|---:|---|"]
    for key, label in (("shown", "the lobby's form on screen"), ("listed", "the first `ListRooms` answer")):
        goal = f"max ≤ {FIRST_SCREEN_GOAL_MS:,} ms: {met}" if key == "shown" else "—"
        out += [f"| ×4 | {label} | {slow[key]['p50']:,} ms | {slow[key]['max']:,} ms | "
                f"{slow[key]['p50'] / max(base[key]['p50'], 1):.2f}× | {goal} |",
                f"| ×1 | {label} | {base[key]['p50']:,} ms | {base[key]['max']:,} ms | 1.00× | — |"]
    out += [""]
    out += [f"**Bundle**: `web/dist/app.js` {res['bundle']['raw'] / 1024:.1f} KB, "
            f"**{res['bundle']['gzip'] / 1024:.1f} KB gzip** (goal ≤ 150 KB compressed); CSS "
            f"{res['bundle']['css_gzip'] / 1024:.1f} KB gzip.", ""]
    return "\n".join(out)


async def measure(args: argparse.Namespace) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-web-") as tmp:
        # rate limits off: the bench is one peer calling flat out (the edge's other checks stay on)
        stack = LocalStack(Path(tmp), {"HAND_RATE_PEER_PER_S": "0", "HAND_RATE_PLAYER_PER_S": "0"}).start()
        found = {**stack.targets, "url": stack.url}
        try:
            progress(f"stack up at {found['url']}; unary")
            res = {"unary": await unary(found, args.rounds, args.per_round)}
            progress("watch")
            res["watch"] = await watch(found, args.events)
            progress("browser")
            res["browser"] = browser(found["url"], args.matches)
            progress("first screen (CPU ×4, then ×1)")
            res["first_screen"] = first_screen(found["url"], args.first_screens)
        finally:
            stack.stop()
    js, css = (WEB / "dist" / "app.js").read_bytes(), (WEB / "dist" / "app.css").read_bytes()
    res["bundle"] = {"raw": len(js), "gzip": len(gzip.compress(js, 9)), "css_gzip": len(gzip.compress(css, 9))}
    return res


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="CI smoke size")
    args = parser.parse_args(argv)
    args.rounds, args.per_round, args.events, args.matches, args.first_screens = \
        (2, 20, 10, 1, 1) if args.quick else (10, 100, 200, 3, 10)
    if not (WEB / "dist" / "app.js").exists():
        subprocess.run(["node", "build.mjs"], cwd=WEB, check=True)
    res = asyncio.run(measure(args))
    results = ROOT / "bench" / "results"
    results.mkdir(parents=True, exist_ok=True)
    (results / "bench_web.json").write_text(json.dumps(res))
    print(markdown(res))
    return res


if __name__ == "__main__":
    main()
