"""A client that reaches each room's owner, as docs/clients.md asks of every client.

Each seat starts on one instance picked at random (as behind an L4 balancer),
then follows ``RoomInfo.owner`` and ``ERROR_CODE_ROOM_MOVED`` (retry once at
the owner with ``hand-redirected: 1``, use the owner for the room's later
calls), retries ``ERROR_CODE_OVERLOADED`` after ``retry_after_ms`` with the
same action id, and a call the server's gRPC runtime dropped from its backlog
(``CANCELLED`` that this client did not cancel) after a back-off that grows
with each try (docs/clients.md, "Overload"). When the owner cannot be reached (``UNAVAILABLE``
without a ``RuleError``: it died) the call goes, marked, to the instance the seat started
from — another one if that is the one down — and the dead owner is set aside for 30 s
(docs/clients.md, "Fall back"); a Watch stream that ends is resumed from the last seq + 1.
Refusals are counted by code (``GRPC_CODE/ERROR_CODE``).
Against a server without owners (``RoomInfo.owner`` empty, no redirects) it
behaves as the plain client: every call stays on the seat's instance.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import random
import time
import uuid
from typing import Any

import grpc
from google.rpc import status_pb2

from hand.v1 import errors_pb2, options_pb2, room_pb2
from hand.v1 import room_service_pb2 as pb
from hand.v1 import room_service_pb2_grpc as pb_grpc

from .clients import PLAYING, Sample, backoff, moves, retry_overloaded

REDIRECTED = (("hand-redirected", "1"),)
SET_ASIDE_S = 30.0  # an owner that did not answer is not tried again for this long


def _after_s(params: dict[str, str], default_ms: int) -> float:
    """A refusal's ``retry_after_ms`` in seconds (``default_ms`` when it gives none)."""
    return int(params.get("retry_after_ms") or default_ms) / 1000


def rule_error(exc: grpc.aio.AioRpcError) -> tuple[str, dict[str, str]]:
    """``(ERROR_CODE name without prefix, params)`` of a refused call ("" when it has none)."""
    for key, value in exc.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            status = status_pb2.Status.FromString(value)
            for detail in status.details:
                if detail.Is(errors_pb2.RuleError.DESCRIPTOR):
                    err = errors_pb2.RuleError()
                    detail.Unpack(err)
                    name = errors_pb2.ErrorCode.Name(err.code) if err.code in errors_pb2.ErrorCode.values() \
                        else str(err.code)
                    return name.removeprefix("ERROR_CODE_"), dict(err.params)
    return "", {}


class Endpoints:
    """One channel per instance address, opened when first named (a seed list, then owners)."""

    def __init__(self, seeds: list[str]) -> None:
        self.seeds = seeds
        self._stubs: dict[str, pb_grpc.RoomServiceStub] = {}
        self._channels: list[grpc.aio.Channel] = []
        self._aside: dict[str, float] = {}  # address -> until when it is not tried

    def set_aside(self, address: str) -> None:
        self._aside[address] = time.monotonic() + SET_ASIDE_S

    def usable(self, address: str) -> bool:
        return self._aside.get(address, 0.0) <= time.monotonic()

    def fallback(self, start: str, failed: str) -> str:
        """Where a call goes when its owner (``failed``) does not answer: the instance the
        seat started from, or (that one set aside too) another seed, as an L4 balancer would."""
        if start != failed and self.usable(start):
            return start
        live = [a for a in self.seeds if a != failed and self.usable(a)]
        return random.choice(live or [a for a in self.seeds if a != failed] or self.seeds)

    def stub(self, address: str) -> pb_grpc.RoomServiceStub:
        stub = self._stubs.get(address)
        if stub is None:
            channel = grpc.aio.insecure_channel(address)
            self._channels.append(channel)
            stub = self._stubs[address] = pb_grpc.RoomServiceStub(channel)
        return stub

    async def close(self) -> None:
        for c in self._channels:
            await c.close()


class Counts:
    """What one client process saw: samples, refusals by code, redirects, errors."""

    def __init__(self) -> None:
        self.samples: list[Sample] = []
        self.refusals: collections.Counter[str] = collections.Counter()
        self.redirects: collections.Counter[str] = collections.Counter()  # Act / Watch
        self.errors: collections.Counter[str] = collections.Counter()
        self.acts_at: collections.Counter[str] = collections.Counter()  # accepted Acts by address
        self.details: dict[str, str] = {}
        self.finished = 0

    def refused(self, exc: grpc.aio.AioRpcError) -> tuple[str, dict[str, str]]:
        code, params = rule_error(exc)
        key = f"{exc.code().name}/{code or '-'}"
        if code != "ROOM_MOVED":
            self.refusals[key] += 1
            self.details.setdefault(key, str(exc.details())[:200])
        return code, params


class Seat:
    """One seat: its endpoint (random instance, then the owner) and its own Watch stream."""

    use_owner = True  # False: ignore RoomInfo.owner, reach the owner through ROOM_MOVED only

    def __init__(self, eps: Endpoints, counts: Counts, room_id: str, token: str, seat: int, address: str) -> None:
        self.eps, self.counts = eps, counts
        self.room_id, self.token, self.seat, self.address = room_id, token, seat, address
        self.start = address  # the instance this seat started from: its fallback
        self.applied, self.view, self.status = -1, None, 0
        self.arrivals: dict[int, float] = {}
        self._want, self._fut = -1, None
        self._call: Any = None
        self._task: asyncio.Task | None = None
        self._closing = False

    def follow(self, room: room_pb2.RoomInfo) -> None:
        if room.owner.address and self.use_owner and self.eps.usable(room.owner.address):
            self.address = room.owner.address

    def _owner_or_fallback(self, owner: str) -> str:
        """A redirect's owner, unless it was set aside (it did not answer): then the fallback."""
        return owner if self.eps.usable(owner) else self.eps.fallback(self.start, owner)

    def _unreachable(self, exc: grpc.aio.AioRpcError, code: str, address: str) -> bool:
        """``address`` did not answer at all: set it aside, the next try goes to the fallback."""
        if exc.code() != grpc.StatusCode.UNAVAILABLE or code:
            return False
        self.eps.set_aside(address)
        self.address = self.eps.fallback(self.start, address)
        self.counts.redirects["fallback"] += 1
        return True

    def open(self, from_seq: int) -> None:
        self._task = asyncio.create_task(self._run(from_seq))

    async def _run(self, from_seq: int) -> None:
        marked: tuple = ()
        error = ""
        dropped = fell = 0
        try:
            while True:
                address = self.address
                self._call = self.eps.stub(address).Watch(
                    pb.WatchRequest(room_id=self.room_id, seat_token=self.token,
                                    from_seq=max(from_seq, self.applied + 1)), metadata=marked)
                try:
                    async for msg in self._call:
                        self._on(msg)
                        dropped = fell = 0
                        marked = ()
                    if self._closing or dropped > 20 or self.status not in (0, PLAYING):
                        return
                    dropped += 1  # the server ended it (ownership moved): resume at the owner
                    await asyncio.sleep(backoff(dropped))
                    continue
                except grpc.aio.AioRpcError as exc:
                    if exc.code() == grpc.StatusCode.CANCELLED and self._closing:
                        return
                    code, params = self.counts.refused(exc)
                    if exc.code() == grpc.StatusCode.CANCELLED or code == "OVERLOADED":  # reopened
                        await asyncio.sleep(_after_s(params, 100) if code else backoff(dropped))
                        dropped += 1
                        continue
                    if code == "ROOM_MOVED" and not marked and params.get("owner_address"):
                        self.counts.redirects["Watch"] += 1
                        self.address, marked = self._owner_or_fallback(params["owner_address"]), REDIRECTED
                        continue
                    if code == "ROOM_UNAVAILABLE" and dropped < 20:  # ownership moving
                        marked = REDIRECTED
                        await asyncio.sleep(_after_s(params, 200))
                        dropped += 1
                        continue
                    if self._unreachable(exc, code, address) and fell < 20:
                        marked = REDIRECTED  # at once to the fallback; one that does not answer: back off
                        if fell:
                            await asyncio.sleep(backoff(fell - 1))
                        fell += 1
                        continue
                    error = f"watch {exc.code().name}/{code or '-'}"
                    self.counts.errors[error] += 1
                    return
        except asyncio.CancelledError:
            pass
        finally:
            if self._fut is not None and not self._fut.done():
                self._fut.set_exception(ConnectionError(error or "watch ended"))

    def _on(self, msg: Any) -> None:
        now = time.perf_counter()
        if msg.HasField("event"):
            seq = msg.event.seq
            if seq != self.applied + 1 and self.applied >= 0:  # every event once, in order
                self.counts.errors["stream gap" if seq > self.applied + 1 else "stream duplicate"] += 1
            self.arrivals[seq] = now
            self.applied = seq
        else:
            self.applied = msg.snapshot.next_seq - 1
        if msg.HasField("view"):
            self.view = msg.view
        self.status = msg.room.status
        self.follow(msg.room)
        fut = self._fut
        if fut is not None and self.applied >= self._want and not fut.done():
            fut.set_result(None)

    async def wait(self, seq: int, timeout: float) -> None:
        if self.applied >= seq:
            return
        if self._task is None or self._task.done():
            raise ConnectionError("watch not running")
        self._want, self._fut = seq, asyncio.get_running_loop().create_future()
        try:
            await asyncio.wait_for(self._fut, timeout)
        finally:
            self._fut = None

    async def act(self, action: Any, stop_at: float, timeout: float) -> tuple[Any, float, float] | None:
        """The accepted Act's response, the start of its accepted try and of its first,
        following a redirect or a fallback and retrying an overload with the same action id;
        None if refused otherwise (counted)."""
        req = pb.ActRequest(room_id=self.room_id, seat_token=self.token, action_id=uuid.uuid4().hex,
                            action=action)
        marked: tuple = ()
        dropped = fell = 0  # tries dropped from a backlog; owners / fallbacks that did not answer
        t0 = first = time.perf_counter()
        while True:
            address = self.address
            try:
                resp = await self.eps.stub(address).Act(req, timeout=timeout, metadata=marked)
                self.counts.acts_at[address] += 1
                return resp, t0, first
            except grpc.aio.AioRpcError as exc:
                code, params = self.counts.refused(exc)
                if code == "ROOM_MOVED" and not marked and params.get("owner_address"):
                    self.counts.redirects["Act"] += 1
                    self.address, marked = self._owner_or_fallback(params["owner_address"]), REDIRECTED
                    continue
                if code == "OVERLOADED" and time.perf_counter() < stop_at:
                    await asyncio.sleep(_after_s(params, 100))
                    t0 = time.perf_counter()  # act→seen counts from the accepted try
                    continue
                if exc.code() == grpc.StatusCode.CANCELLED and time.perf_counter() < stop_at:
                    await asyncio.sleep(backoff(dropped))  # dropped from the server's backlog
                    dropped += 1
                    t0 = time.perf_counter()
                    continue
                if code == "ROOM_UNAVAILABLE" and time.perf_counter() < stop_at:  # ownership moving
                    marked = REDIRECTED
                    await asyncio.sleep(_after_s(params, 200))
                    t0 = time.perf_counter()
                    continue
                if self._unreachable(exc, code, address) and time.perf_counter() < stop_at:
                    marked = REDIRECTED  # the fallback forwards it, ownership moving or not
                    if fell:  # at once to the fallback; a fallback that does not answer either: back off
                        await asyncio.sleep(backoff(fell - 1))
                    fell += 1
                    t0 = time.perf_counter()
                    continue
                if exc.code() != grpc.StatusCode.FAILED_PRECONDITION:
                    raise
                return None

    async def close(self) -> None:
        self._closing = True
        if self._call is not None:
            self._call.cancel()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
                await self._task


class Room:
    def __init__(self, room_id: str, seats: list[Seat], next_seq: int) -> None:
        self.room_id, self.seats, self.next_seq = room_id, seats, next_seq

    async def watch(self, timeout: float = 60.0) -> None:
        for s in self.seats:
            s.open(self.next_seq)
        for s in self.seats:
            await s.wait(self.next_seq - 1, timeout)

    async def step(self, counts: Counts, stop_at: float, timeout: float = 30.0) -> bool:
        """One action by the seat to move (draw, else discard); False when the room cannot go on."""
        ref = max(self.seats, key=lambda s: s.applied)
        if ref.status != PLAYING or ref.view is None:
            counts.finished += 1
            return False
        me = self.seats[ref.view.turn.seat]
        other = self.seats[1 - me.seat]
        try:
            await me.wait(ref.applied, timeout)
            for action in moves(me.view):
                other.arrivals.clear()
                done = await me.act(action, stop_at, timeout)
                if done is None:
                    continue
                resp, t0, first = done
                t1 = time.perf_counter()
                await other.wait(resp.last_seq, timeout)
                await me.wait(resp.last_seq, timeout)
                counts.samples.append(Sample(t0, t1 - t0, other.arrivals.get(resp.last_seq, t1) - t0, first,
                                             self.room_id))
                return True
            counts.errors["no legal move"] += 1
        except (TimeoutError, ConnectionError) as exc:
            counts.errors[f"not seen ({type(exc).__name__})"] += 1
        except grpc.aio.AioRpcError as exc:
            counts.errors[f"act {exc.code().name}/{rule_error(exc)[0] or '-'}"] += 1
            with contextlib.suppress(TimeoutError, ConnectionError):
                await me.wait(ref.applied + 1, 10)
            return True
        return False


async def create_room(eps: Endpoints, i: int, rng: random.Random, counts: Counts) -> Room:
    """Host on one random instance creates, the joiner joins through another random one."""
    a_addr, b_addr = rng.choice(eps.seeds), rng.choice(eps.seeds)
    created = await retry_overloaded(lambda: eps.stub(a_addr).CreateRoom(pb.CreateRoomRequest(
        rules=options_pb2.RuleSelection(preset="hand"), rounds=9, seat_count=2, turn_seconds=600,
        player_name="a", player_id=f"a{i}", visibility=room_pb2.ROOM_VISIBILITY_PRIVATE), timeout=60),
        on_refused=counts.refused)
    a = Seat(eps, counts, created.room.room_id, created.seat_token, created.seat, a_addr)
    a.follow(created.room)
    joined = await retry_overloaded(lambda: eps.stub(b_addr).JoinRoom(pb.JoinRoomRequest(
        join_code=created.room.join_code, player_name="b", player_id=f"b{i}"), timeout=60),
        on_refused=counts.refused)
    b = Seat(eps, counts, created.room.room_id, joined.seat_token, joined.seat, b_addr)
    b.follow(joined.room)
    started = await retry_overloaded(lambda: eps.stub(a.address).StartMatch(
        pb.StartMatchRequest(room_id=a.room_id, seat_token=a.token, seed=i), timeout=60),
        on_refused=counts.refused)
    a.follow(started.room)
    return Room(a.room_id, sorted([a, b], key=lambda s: s.seat), started.room.next_seq)
