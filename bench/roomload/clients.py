"""Scripted rooms: two seats each with its own Watch stream, and the samples they time."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import random
import time
import uuid
from typing import Any

import grpc

from hand.v1 import actions_pb2, options_pb2, room_pb2, state_pb2
from hand.v1 import room_service_pb2 as pb
from hand.v1 import room_service_pb2_grpc as pb_grpc
from hand_engine import hand_value

DRAW = actions_pb2.Action(draw_stock=actions_pb2.DrawStock())
PLAYING = room_pb2.ROOM_STATUS_PLAYING
PHASE_DRAW = state_pb2.TURN_PHASE_DRAW

class Seat:
    """One seat: its token and its own Watch stream (latest view, arrival time of each seq)."""

    __slots__ = ("stub", "room_id", "token", "seat", "applied", "view", "status", "arrivals",
                 "_want", "_fut", "_call", "_task", "error", "_from", "_closing", "reopened")
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
        self._from = 0
        self._closing = False
        self.reopened = 0  # streams the server dropped from its backlog (CANCELLED), opened again

    def open(self, from_seq: int) -> None:
        self._from = from_seq
        self._task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        """The stream; one the server's gRPC runtime dropped (``CANCELLED`` that this client
        did not cause: its backlog was full, docs/clients.md "Overload") is opened again from
        the next seq after ``backoff``, as the contract asks of a client."""
        try:
            while True:
                self._call = self.stub.Watch(pb.WatchRequest(
                    room_id=self.room_id, seat_token=self.token,
                    from_seq=self._from if self.applied < 0 else self.applied + 1))
                try:
                    await self._stream()
                    return
                except grpc.aio.AioRpcError as exc:
                    if exc.code() != grpc.StatusCode.CANCELLED or self._closing:
                        raise
                await asyncio.sleep(backoff(self.reopened))
                self.reopened += 1
        except grpc.aio.AioRpcError as exc:
            if exc.code() != grpc.StatusCode.CANCELLED:
                self.error = exc
        except asyncio.CancelledError:
            pass
        finally:
            if self._fut is not None and not self._fut.done():
                self._fut.set_exception(ConnectionError(f"watch ended: {self.error}"))

    async def _stream(self) -> None:
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
        self._closing = True
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
    first: float | None = None  # perf_counter at the start of the move's first try (retries before t0)
    room: str = ""


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


def backoff(tries: int) -> float:
    """Seconds before the next try of a call the server dropped from its backlog (CANCELLED
    with no hint): 200 ms, doubling, at most 2 s, with jitter (docs/clients.md, "Overload")."""
    return min(0.2 * 2 ** tries, 2.0) * random.uniform(0.8, 1.2)


async def retry_overloaded(call, attempts: int = 20, on_refused=None):
    """``await call()``, again after ``retry_after_ms`` while the server says OVERLOADED, or
    after a growing back-off when it dropped the call from its backlog (CANCELLED), as a
    client does: the same request. ``on_refused(exc)`` sees every refusal."""
    for attempt in range(attempts - 1):
        try:
            return await call()
        except grpc.aio.AioRpcError as exc:
            if on_refused is not None:
                on_refused(exc)
            if exc.code() == grpc.StatusCode.CANCELLED:
                await asyncio.sleep(backoff(attempt))
                continue
            if exc.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                raise
            retry_ms = next((int(v) for k, v in _params(exc) if k == "retry_after_ms"), 200)
            await asyncio.sleep(retry_ms / 1000)
    return await call()


def _params(exc: grpc.aio.AioRpcError) -> list[tuple[str, str]]:
    from grpc_status import rpc_status

    from hand_common.status import from_status

    detail = from_status(rpc_status.from_call(exc)) if exc.trailing_metadata() else None
    return list(detail.params.items()) if detail is not None else []


async def create_room(stubs: list[pb_grpc.RoomServiceStub], i: int) -> BenchRoom:
    a, b = stubs[(2 * i) % len(stubs)], stubs[(2 * i + 1) % len(stubs)]
    created = await retry_overloaded(lambda: a.CreateRoom(pb.CreateRoomRequest(
        rules=options_pb2.RuleSelection(preset="hand"), rounds=9, seat_count=2, turn_seconds=600,
        player_name="a", player_id=f"a{i}", visibility=room_pb2.ROOM_VISIBILITY_PRIVATE), timeout=60))
    room_id = created.room.room_id
    joined = await retry_overloaded(lambda: b.JoinRoom(pb.JoinRoomRequest(
        join_code=created.room.join_code, player_name="b", player_id=f"b{i}"), timeout=60))
    started = await retry_overloaded(lambda: a.StartMatch(pb.StartMatchRequest(
        room_id=room_id, seat_token=created.seat_token, seed=i), timeout=60))
    seats = [Seat(a, room_id, created.seat_token, created.seat), Seat(b, room_id, joined.seat_token, joined.seat)]
    seats.sort(key=lambda s: s.seat)
    return BenchRoom(room_id, seats, started.room.next_seq, a)


async def bounded(n: int, limit: int, fn) -> list:
    sem = asyncio.Semaphore(limit)

    async def one(i: int):
        async with sem:
            return await fn(i)

    return await asyncio.gather(*(one(i) for i in range(n)))
