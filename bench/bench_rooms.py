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

Markdown on stdout, progress on stderr, results also in bench/results/rooms.json
(``--quick``: 10 and 100 rooms, 8 s windows, no profile; rooms-quick.json).
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import collections
import contextlib
import ctypes
import dataclasses
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "services"), str(ROOT / "gen")]

import grpc  # noqa: E402
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition  # noqa: E402

from hand.v1 import actions_pb2, options_pb2, room_pb2, state_pb2  # noqa: E402
from hand.v1 import room_service_pb2 as pb  # noqa: E402
from hand.v1 import room_service_pb2_grpc as pb_grpc  # noqa: E402
from hand.v1 import rules_service_pb2 as rpb  # noqa: E402
from hand.v1 import rules_service_pb2_grpc as rpb_grpc  # noqa: E402
from hand_engine.cards import hand_value  # noqa: E402
from hand_infra.broker import TansuBroker, tansu_binary  # noqa: E402
from hand_infra.settings import KafkaSettings  # noqa: E402
from hand_infra.topics import ensure_topics  # noqa: E402

CLK_TCK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")
DRAW = actions_pb2.Action(draw_stock=actions_pb2.DrawStock())
PLAYING = room_pb2.ROOM_STATUS_PLAYING
PHASE_DRAW = state_pb2.TURN_PHASE_DRAW
PARTITIONS = 8
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

    @classmethod
    def quick_config(cls) -> Config:
        return cls(levels=[10, 100], warmup_s=3.0, window_s=8.0, flat_s=8.0, flat_warmup_s=2.0, idle_s=3.0,
                   profile_level=None, kafka_rt=100, echo_calls=300, quick=True)


def progress(text: str) -> None:
    print(f"bench_rooms: {text}", file=sys.stderr, flush=True)


def pct(values: list[float], p: float) -> float | None:
    """The p-th percentile of ``values`` (seconds) in ms, None if empty."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] * 1000


# ----------------------------------------------------------------- processes
def cpu_s(pid: int) -> float:
    """utime + stime of every thread of ``pid``, in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def main_thread_sched(pid: int) -> tuple[float, float]:
    """Seconds the process's main (event-loop) thread has run on a CPU, and waited runnable for one."""
    run_ns, wait_ns, _ = Path(f"/proc/{pid}/task/{pid}/schedstat").read_text().split()
    return int(run_ns) / 1e9, int(wait_ns) / 1e9


def machine_busy_s() -> float:
    """CPU seconds used by everything on the machine (all CPUs) since boot, from /proc/stat."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / CLK_TCK  # minus idle and iowait


def rss_bytes(pid: int) -> int:
    return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def accepts_connections(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.2):
            return True
    except OSError:
        return False


def _die_with_parent() -> None:
    """In the child: get SIGTERM if the bench dies (even by SIGKILL)."""
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


_CHILDREN: list[subprocess.Popen] = []


@atexit.register
def _reap_children() -> None:
    """Last resort (an exception before the orderly stop): never leave a process behind."""
    for proc in _CHILDREN:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


class Service:
    """``python -m MODULE`` with its stdout and stderr in files; ready when ``pattern`` shows up."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], logdir: Path, pattern: str = "",
                 target: str = "") -> None:
        self.name, self.pattern = name, re.compile(pattern) if pattern else None
        self.out_path, self.err_path = logdir / f"{name}.out", logdir / f"{name}.log"
        with open(self.out_path, "wb") as out, open(self.err_path, "wb") as err:
            self.proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                         preexec_fn=_die_with_parent)
        _CHILDREN.append(self.proc)
        self.target = target  # known up front, or read from the output with ``pattern``

    @property
    def pid(self) -> int:
        return self.proc.pid

    async def ready(self, timeout: float = 60.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.pattern is None:
                host, port = self.target.rsplit(":", 1)
                if accepts_connections(host, int(port)):
                    return self.target
            for path in (self.out_path, self.err_path) if self.pattern is not None else ():
                m = self.pattern.search(path.read_text(errors="replace"))
                if m:
                    self.target = m.group(1)
                    return self.target
            if self.proc.poll() is not None:
                break
            await asyncio.sleep(0.05)
        tail = self.err_path.read_text(errors="replace")[-3000:]
        raise RuntimeError(f"{self.name} did not start (exit {self.proc.poll()}):\n{tail}")

    async def stop(self, timeout: float = 15.0) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            deadline = time.monotonic() + timeout
            while self.proc.poll() is None and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            if self.proc.poll() is None:
                progress(f"{self.name} did not stop in {timeout:g} s: SIGKILL")
                self.proc.kill()
        self.proc.wait()


class Tansu(TansuBroker):
    """The project's embedded broker, made to die with the bench if the bench is killed."""

    def _spawn(self, port: int) -> subprocess.Popen:
        url = f"tcp://{self.host}:{port}"
        fd, name = tempfile.mkstemp(prefix="bench-tansu-", suffix=".log")
        self._log_path = Path(name)
        try:
            proc = subprocess.Popen(
                [str(tansu_binary()), "broker", "--listener-url", url, "--advertised-listener-url", url,
                 "--storage-engine", "memory://tansu/"],
                stdin=subprocess.DEVNULL, stdout=fd, stderr=subprocess.STDOUT, preexec_fn=_die_with_parent)
        finally:
            os.close(fd)
        _CHILDREN.append(proc)
        return proc

    @property
    def pid(self) -> int:
        assert self._proc is not None
        return self._proc.pid


ROOM_WITH_CPROFILE = """
import cProfile, os, signal
profile = cProfile.Profile()
def _on(*_): profile.enable()
def _off(*_):
    profile.disable(); profile.dump_stats(os.environ["BENCH_PROFILE_OUT"])
signal.signal(signal.SIGUSR1, _on)
signal.signal(signal.SIGUSR2, _off)
from hand_room.__main__ import main
main()
"""


def py_spy() -> str | None:
    local = Path(sys.executable).parent / "py-spy"
    return str(local) if local.exists() else shutil.which("py-spy")


class Stack:
    """Tansu + rules service + room service, each its own process."""

    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        self.tmp = tempfile.TemporaryDirectory(prefix="bench-rooms-")
        self.dir = Path(self.tmp.name)
        self.broker = Tansu()
        self.rules: Service | None = None
        self.room: Service | None = None
        self.kafka: KafkaSettings | None = None
        self.cprofile = cfg.profile_level is not None and py_spy() is None

    async def start(self) -> None:
        t0 = time.perf_counter()
        await self.broker.start()
        self.kafka = KafkaSettings(bootstrap_servers=self.broker.bootstrap_servers, partitions=PARTITIONS)
        await ensure_topics(self.kafka)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "services"), str(ROOT / "gen")]),
               "HAND_LOG_FORMAT": "json", "HAND_LOG_LEVEL": self.cfg.log_level, "HAND_SHUTDOWN_GRACE_S": "1",
               # every simulated player comes from this one address: per-peer limits off
               "HAND_RATE_PEER_PER_S": "0", "HAND_STREAMS_PER_PEER": "0",
               "HAND_RATE_PLAYER_PER_S": "0", "HAND_STREAMS_PER_PLAYER": "0",
               "HAND_AUTH_DEV_KEY_FILE": str(self.dir / "dev.key")}
        port = free_port()  # (its "listening" log line is at info: gone at --log-level warning)
        self.rules = Service("rules", [sys.executable, "-m", "hand_rules"],
                             {**env, "HAND_RULES_HOST": "127.0.0.1", "HAND_RULES_PORT": str(port)},
                             self.dir, target=f"127.0.0.1:{port}")
        await self.rules.ready()
        room_env = {**env, "HAND_ROOM_HOST": "127.0.0.1", "HAND_ROOM_PORT": "0",
                    "HAND_RULES_ADDRESS": "" if self.cfg.rules_in_process else self.rules.target,
                    "KAFKA_BOOTSTRAP_SERVERS": self.broker.bootstrap_servers,
                    "HAND_KAFKA_PARTITIONS": str(PARTITIONS),
                    "HAND_EVENTSTORE_URL": f"sqlite:///{self.dir / 'events.db'}",
                    "HAND_ROOM_GROUP": f"bench-{uuid.uuid4().hex[:8]}",
                    "BENCH_PROFILE_OUT": str(self.dir / "room.pstats")}
        argv = [sys.executable, "-c", ROOM_WITH_CPROFILE] if self.cprofile else [sys.executable, "-m", "hand_room"]
        self.room = Service("room", argv, room_env, self.dir, r"room service listening on (\S+)")
        await self.room.ready()
        progress(f"stack up in {time.perf_counter() - t0:.1f} s: tansu {self.broker.bootstrap_servers}, "
                 f"rules {self.rules.target}, room {self.room.target}")

    def pids(self) -> dict[str, int]:
        assert self.rules is not None and self.room is not None
        return {"room": self.room.pid, "rules": self.rules.pid, "tansu": self.broker.pid, "bench": os.getpid()}

    def cpu(self) -> dict[str, float]:
        """CPU seconds of each of our processes, and of everything else on the machine ("others")."""
        ours = {name: cpu_s(pid) for name, pid in self.pids().items()}
        ours["others"] = machine_busy_s() - sum(ours.values())
        return ours

    async def stop(self) -> None:
        for service in (self.room, self.rules):
            if service is not None:
                with contextlib.suppress(Exception):
                    await service.stop()
        with contextlib.suppress(Exception):
            await self.broker.stop()
        self.tmp.cleanup()


# ----------------------------------------------------------------- baselines
async def kafka_round_trips(settings: KafkaSettings, count: int, size: int = 512) -> dict[str, Any]:
    """Sequential produce (send_and_wait) → consume (getmany loop, as the services do) round trips."""
    topic = f"bench-rt-{uuid.uuid4().hex[:8]}"
    await ensure_topics(settings, [topic], partitions=1)
    producer = AIOKafkaProducer(**settings.producer_kwargs())
    consumer = AIOKafkaConsumer(**settings.consumer_kwargs(None))
    await producer.start()
    await consumer.start()
    waiting: dict[int, asyncio.Future] = {}

    async def consume() -> None:
        while True:
            batch = await consumer.getmany(timeout_ms=100, max_records=1000)
            now = time.perf_counter()
            for msgs in batch.values():
                for msg in msgs:
                    fut = waiting.pop(int.from_bytes(msg.value[:4], "big"), None)
                    if fut is not None and not fut.done():
                        fut.set_result(now)

    tp = TopicPartition(topic, 0)
    consumer.assign([tp])
    await consumer.seek_to_beginning(tp)
    task = asyncio.create_task(consume())
    rt, produce = [], []
    try:
        for i in range(count + 20):  # the first 20 warm up
            fut = asyncio.get_running_loop().create_future()
            waiting[i] = fut
            t0 = time.perf_counter()
            await producer.send_and_wait(topic, i.to_bytes(4, "big") + b"x" * (size - 4), key=b"k")
            t1 = time.perf_counter()
            seen = await asyncio.wait_for(fut, 10)
            if i >= 20:
                produce.append(t1 - t0)
                rt.append(seen - t0)
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await consumer.stop()
        await producer.stop()
    return {"samples": rt, "produce": produce}


async def grpc_echoes(target: str, count: int, size: int = 128) -> dict[str, Any]:
    """Sequential unary Echo calls to the rules service on a fresh channel."""
    async with grpc.aio.insecure_channel(target) as channel:
        stub = rpb_grpc.RulesServiceStub(channel)
        req = rpb.EchoRequest(payload=b"x" * size)
        out = []
        for i in range(count + 50):
            t0 = time.perf_counter()
            await stub.Echo(req)
            if i >= 50:
                out.append(time.perf_counter() - t0)
    return {"samples": out}


# ----------------------------------------------------------------- clients
class Seat:
    """One seat: its token and its own Watch stream (latest view, arrival time of each seq)."""

    __slots__ = ("stub", "room_id", "token", "seat", "applied", "view", "status", "arrivals",
                 "_want", "_fut", "_call", "_task", "error")
    last_event = [0.0]  # when any seat last received an event (to see the stack go quiet)

    def __init__(self, stub: pb_grpc.RoomServiceStub, room_id: str, token: str, seat: int) -> None:
        self.stub, self.room_id, self.token, self.seat = stub, room_id, token, seat
        self.applied = -1  # every event up to this seq is in ``view``
        self.view: Any = None
        self.status = 0
        self.arrivals: dict[int, float] = {}
        self._want = -1
        self._fut: asyncio.Future | None = None
        self._call: Any = None
        self._task: asyncio.Task | None = None
        self.error: BaseException | None = None

    def open(self, from_seq: int) -> None:
        self._call = self.stub.Watch(pb.WatchRequest(room_id=self.room_id, seat_token=self.token,
                                                     from_seq=from_seq))
        self._task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        try:
            async for msg in self._call:
                now = time.perf_counter()
                if msg.HasField("event"):
                    self.arrivals[msg.event.seq] = now
                    Seat.last_event[0] = now
                    self.applied = msg.event.seq
                else:  # the snapshot: the state before from_seq
                    self.applied = msg.snapshot.next_seq - 1
                if msg.HasField("view"):
                    self.view = msg.view
                self.status = msg.room.status
                fut = self._fut
                if fut is not None and self.applied >= self._want and not fut.done():
                    fut.set_result(None)
        except grpc.aio.AioRpcError as exc:
            if exc.code() != grpc.StatusCode.CANCELLED:
                self.error = exc
        except asyncio.CancelledError:
            pass
        finally:
            if self._fut is not None and not self._fut.done():
                self._fut.set_exception(ConnectionError(f"watch ended: {self.error}"))

    async def wait(self, seq: int, timeout: float) -> None:
        """Until every event up to ``seq`` is in this seat's stream."""
        if self.applied >= seq:
            return
        if self._task is None or self._task.done():
            raise ConnectionError(f"watch not running: {self.error}")
        self._want, self._fut = seq, asyncio.get_running_loop().create_future()
        try:
            await asyncio.wait_for(self._fut, timeout)
        finally:
            self._fut = None

    async def close(self) -> None:
        if self._call is not None:
            self._call.cancel()
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
                await self._task


def moves(view: Any) -> list[actions_pb2.Action]:
    """This seat's candidate moves: draw from the stock, else discard the drawn card or the highest."""
    t = view.turn
    if t.phase == PHASE_DRAW and not t.opening_discard:
        return [DRAW]
    drawn = t.drawn if t.HasField("drawn") else None
    cards = [drawn] if drawn is not None else []
    # wire card ids are engine ids + 1
    cards += sorted((c for c in view.hand if c != drawn), key=lambda c: hand_value(c - 1), reverse=True)[:2]
    return [actions_pb2.Action(discard=actions_pb2.Discard(card=c)) for c in cards]


@dataclasses.dataclass
class Sample:
    t0: float  # perf_counter at the start of the Act call
    act: float  # Act RPC seconds
    seen: float  # seconds from t0 until the move's last seq reached the other seat's stream


class Tally:
    def __init__(self) -> None:
        self.samples: list[Sample] = []
        self.refused = 0  # FAILED_PRECONDITION (then the next candidate move is tried)
        self.errors: list[tuple[float, str]] = []  # (when the failed step started, what)
        self.finished = 0  # rooms whose match ended
        self.details: dict[str, str] = {}  # the first message of each kind of error

    def error(self, what: str, t0: float | None = None) -> None:
        self.errors.append((time.perf_counter() if t0 is None else t0, what))


class BenchRoom:
    def __init__(self, room_id: str, seats: list[Seat], next_seq: int, stub: pb_grpc.RoomServiceStub) -> None:
        self.room_id, self.seats, self.next_seq, self.stub = room_id, seats, next_seq, stub
        self.watched = False

    async def watch(self, timeout: float = 60.0) -> None:
        for s in self.seats:
            s.open(self.next_seq)
        for s in self.seats:
            await s.wait(self.next_seq - 1, timeout)
        self.watched = True

    async def connected(self, timeout: float) -> None:
        """Until both seats have seen both "seat connected" events their streams caused."""
        for s in self.seats:
            await s.wait(self.next_seq + 1, timeout)

    async def step(self, tally: Tally, timeout: float = 30.0) -> bool:
        """One action by the seat to move; False when the room cannot go on."""
        ref = max(self.seats, key=lambda s: s.applied)
        if ref.status != PLAYING or ref.view is None:
            tally.finished += 1
            return False
        me = self.seats[ref.view.turn.seat]
        other = self.seats[1 - me.seat]
        try:
            await me.wait(ref.applied, timeout)
        except (TimeoutError, ConnectionError) as exc:
            tally.error(type(exc).__name__)
            return False
        for action in moves(me.view):
            other.arrivals.clear()
            t0 = time.perf_counter()
            try:
                resp = await me.stub.Act(pb.ActRequest(room_id=self.room_id, seat_token=me.token,
                                                       action_id=uuid.uuid4().hex, action=action),
                                         timeout=timeout)
            except grpc.aio.AioRpcError as exc:
                if exc.code() == grpc.StatusCode.FAILED_PRECONDITION:
                    tally.refused += 1
                    continue
                # e.g. UNAVAILABLE: no answer from the owner within the command timeout. The
                # command may still be applied later: wait for the stream to move, then go on
                # from the fresh view (retrying at once would only add to the backlog).
                tally.error(exc.code().name, t0)
                tally.details.setdefault(exc.code().name,
                                         f"{str(exc.details())[:200]} (after {time.perf_counter() - t0:.1f} s)")
                with contextlib.suppress(TimeoutError, ConnectionError):
                    await me.wait(ref.applied + 1, 10)
                return True
            t1 = time.perf_counter()
            try:
                await other.wait(resp.last_seq, timeout)
                await me.wait(resp.last_seq, timeout)
            except (TimeoutError, ConnectionError) as exc:
                tally.error(f"not seen ({type(exc).__name__})", t0)
                return False
            tally.samples.append(Sample(t0, t1 - t0, other.arrivals.get(resp.last_seq, t1) - t0))
            return True
        tally.error("no legal move found")
        return False


async def create_room(stubs: list[pb_grpc.RoomServiceStub], i: int) -> BenchRoom:
    a, b = stubs[(2 * i) % len(stubs)], stubs[(2 * i + 1) % len(stubs)]
    created = await a.CreateRoom(pb.CreateRoomRequest(
        rules=options_pb2.RuleSelection(preset="hand"), rounds=9, seat_count=2, turn_seconds=600,
        player_name="a", player_id=f"a{i}", visibility=room_pb2.ROOM_VISIBILITY_PRIVATE), timeout=60)
    room_id = created.room.room_id
    joined = await b.JoinRoom(pb.JoinRoomRequest(join_code=created.room.join_code, player_name="b",
                                                 player_id=f"b{i}"), timeout=60)
    started = await a.StartMatch(pb.StartMatchRequest(room_id=room_id, seat_token=created.seat_token, seed=i),
                                 timeout=60)
    seats = [Seat(a, room_id, created.seat_token, created.seat), Seat(b, room_id, joined.seat_token, joined.seat)]
    seats.sort(key=lambda s: s.seat)
    return BenchRoom(room_id, seats, started.room.next_seq, a)


async def bounded(n: int, limit: int, fn) -> list:
    sem = asyncio.Semaphore(limit)

    async def one(i: int):
        async with sem:
            return await fn(i)

    return await asyncio.gather(*(one(i) for i in range(n)))


# ----------------------------------------------------------------- profiling
_CATEGORIES = [  # (label, substrings of the leaf frame's file), first match wins
    ("gRPC (Python/Cython layer)", ("grpc/", "grpc_")),
    ("Kafka client (aiokafka)", ("aiokafka/", "kafka/")),
    ("SQL toolkit + driver (SQLAlchemy, aiosqlite, sqlite3)", ("sqlalchemy/", "aiosqlite/", "sqlite3/")),
    ("protobuf ↔ engine conversion (hand_rules.convert)", ("hand_rules/convert",)),
    ("protobuf runtime", ("google/protobuf",)),
    ("rules engine (hand_engine)", ("hand_engine/",)),
    ("room service code (hand_room, hand_infra)", ("hand_room/", "hand_infra/")),
    ("logging (structlog, logging)", ("structlog/", "logging/")),
    ("JSON", ("json/",)),
    ("asyncio event loop", ("asyncio/", "selectors.py")),
    ("threads / queues (aiosqlite worker)", ("threading.py", "queue.py", "concurrent/")),
]


def _frame(text: str) -> tuple[str, str]:
    """``"fn (path:line)"`` → (fn, path)."""
    m = re.match(r"(.*) \((.*?)(?::\d+)?\)$", text)
    return (m.group(1), m.group(2)) if m else (text, "")


def _short(path: str) -> str:
    for key in ("site-packages/", "services/", "lib/python3.11/"):
        if key in path:
            return path.split(key, 1)[1]
    return path


_LOOP_FILES = ("asyncio/", "selectors.py", "contextvars", "runpy", "<frozen", "hand_room/__main__.py",
               "hand_rules/__main__.py")


def _activity(frames: list[tuple[str, str]]) -> str:
    """What a sample of the event-loop thread is doing: its innermost project function (``hand_*``)
    with everything it calls, else the library whose code the loop is running (no project frame)."""
    for fn, file in reversed(frames):
        if "hand_" in file and not any(k in file for k in _LOOP_FILES):
            return f"{fn} ({_short(file)})"
    for fn, file in frames:
        if not any(k in file for k in _LOOP_FILES):
            return f"[{_short(file).split('/')[0]}] (no project frame)"
    return "[asyncio event loop itself]"


def summarize_raw(path: Path, seconds: float, rate: int, top: int = 15) -> dict[str, Any]:
    """Hot spots of a py-spy ``--format raw`` (collapsed stacks) profile."""
    stacks: list[tuple[str, list[tuple[str, str]], int]] = []
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        parts = stack.split(";")
        thread = "?"
        if parts and parts[0].startswith("thread ("):
            thread = re.sub(r"\d+", "N", parts.pop(0).split(": ", 1)[-1])
        frames = [_frame(f) for f in parts if f and not f.startswith("process ")]
        stacks.append((thread, frames, int(count)))
    total = sum(c for _, _, c in stacks) or 1
    main = sum(c for t, _, c in stacks if t == "MainThread") or 1
    threads: collections.Counter[str] = collections.Counter()
    leaf: collections.Counter[str] = collections.Counter()
    incl: collections.Counter[str] = collections.Counter()
    cats: collections.Counter[str] = collections.Counter()
    where: collections.Counter[str] = collections.Counter()
    for thread, frames, count in stacks:
        threads[thread] += count
        if not frames:
            continue
        fn, file = frames[-1]
        leaf[f"{fn} ({_short(file)})"] += count
        if thread == "MainThread":
            cats[next((label for label, keys in _CATEGORIES if any(k in file for k in keys)), "other")] += count
        for name in {f"{f} ({_short(p)})" for f, p in frames if "hand_" in p and f not in ("<module>", "main")}:
            incl[name] += count
        if thread == "MainThread":
            where[_activity(frames)] += count
    share = lambda c, of=total: round(c / of, 4)  # noqa: E731
    return {
        "samples": total, "seconds": seconds, "rate_hz": rate,
        "busy_cores": round(total / (seconds * rate), 3),
        "main_thread_busy": round(main / (seconds * rate), 3),
        "by_thread": [[k, share(v)] for k, v in threads.most_common(6)],
        "main_thread_by_component": [[k, share(v, main)] for k, v in cats.most_common()],
        "main_thread_by_activity": [[k, share(v, main)] for k, v in where.most_common(top)],
        "top_self": [[k, share(v)] for k, v in leaf.most_common(top)],
        "top_project_inclusive": [[k, share(v)] for k, v in incl.most_common(top)],
    }


def summarize_pstats(path: Path, seconds: float, top: int = 15) -> dict[str, Any]:
    import pstats

    st = pstats.Stats(str(path))
    total = sum(v[2] for v in st.stats.values()) or 1.0  # type: ignore[attr-defined]
    rows = sorted(st.stats.items(), key=lambda kv: kv[1][2], reverse=True)  # type: ignore[attr-defined]
    cum = sorted(((k, v) for k, v in st.stats.items() if "hand_" in k[0]),  # type: ignore[attr-defined]
                 key=lambda kv: kv[1][3], reverse=True)
    name = lambda k: f"{k[2]} ({_short(k[0])})"  # noqa: E731
    return {"profiler": "cProfile (main thread only)", "seconds": seconds, "profiled_s": round(total, 2),
            "top_self": [[name(k), round(v[2] / total, 4)] for k, v in rows[:top]],
            "top_project_inclusive": [[name(k), round(v[3] / total, 4)] for k, v in cum[:top]]}


async def profile(stack: Stack, seconds: float) -> dict[str, Any]:
    spy = py_spy()
    if spy is None:  # cProfile hook in the room service
        assert stack.room is not None
        out = stack.dir / "room.pstats"
        stack.room.proc.send_signal(signal.SIGUSR1)
        await asyncio.sleep(seconds)
        stack.room.proc.send_signal(signal.SIGUSR2)
        for _ in range(100):
            if out.exists():
                break
            await asyncio.sleep(0.1)
        await asyncio.sleep(0.5)
        return {"room": summarize_pstats(out, seconds)}
    rate, result = 100, {}
    procs = {}
    for name in ("room", "rules"):
        out = stack.dir / f"{name}.spy"
        procs[name] = (out, await asyncio.create_subprocess_exec(
            spy, "record", "--pid", str(stack.pids()[name]), "--duration", str(int(seconds)),
            "--rate", str(rate), "--format", "raw", "--threads", "--nonblocking", "--output", str(out),
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE))
    for name, (out, proc) in procs.items():
        _, err = await proc.communicate()
        if proc.returncode != 0 or not out.exists():
            result[name] = {"error": err.decode(errors="replace")[-500:]}
        else:
            result[name] = {"profiler": "py-spy (sampling, all non-idle threads)",
                            **summarize_raw(out, seconds, rate)}
    return result


# ----------------------------------------------------------------- the run
class Run:
    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        self.stack = Stack(cfg)
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


if __name__ == "__main__":
    main()
