"""A paused (SIGSTOP) or dead instance never holds up the others longer than the store
timeout (``HAND_ROOM_STORE_TIMEOUT_S``), on either store (issue 24: with one shared
SQLite store an instance frozen while it held the write lock stopped every room on
every instance; in-flight Acts were refused only after 4.6 s).

Two room instances as processes share a broker and a store; each owns 2-seat rooms
created through it. Instance a is frozen while a flood of Acts to its rooms is in
flight (it may or may not hold a write at that moment), then:

- PostgreSQL: b's rooms keep accepting moves during the freeze, and a's rooms move to
  b after the group's session timeout and accept moves there;
- SQLite: a is killed, then the worst case is made certain: a helper process takes the
  write lock (``BEGIN IMMEDIATE``) and is frozen holding it. Every Act to b is refused
  UNAVAILABLE within about the store timeout (never a hang until the client's
  deadline); once the helper is gone moves are accepted again.

In the end the store holds every accepted move exactly once, seqs contiguous.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import grpc
import pytest

from hand.v1 import errors_pb2, room_pb2
from hand.v1 import room_service_pb2 as pb
from hand.v1 import room_service_pb2_grpc as pb_grpc
from hand_infra.broker import TansuBroker
from hand_infra.eventstore import EventStore
from hand_infra.postgres import create_database, drop_database
from hand_infra.settings import KafkaSettings
from hand_infra.topics import ensure_topics
from hand_table import MoveMade
from hand_wire import decode

from .failover_support import PARTITIONS, Instance
from .room_support import Player, Watcher, create_room, join_all, moved_to, rule_error_of, seq_of, wait_for

STORE_TIMEOUT_S = 1.0
REFUSED_WITHIN_S = 2.5  # as test_room_store_timeout: the timeout plus 1.5 s of slack
CALL_DEADLINE_S = 4.0  # the client's deadline: a call that hangs runs into it
ROOMS_EACH = 3
pytestmark = pytest.mark.timeout(90)


@dataclass
class Call:
    table: str  # "a" or "b": the instance the room was created on
    at: str  # the address called
    began: float
    took: float
    ok: bool
    code: grpc.StatusCode | None = None
    reason: str = ""
    retry_after_ms: int = 0


@dataclass
class Table:
    """One started 2-seat room, two human seats, and a Watch per seat at its owner."""

    home: str
    room_id: str
    players: list[Player]
    stubs: dict[str, pb_grpc.RoomServiceStub]
    owner: str
    down: set[str]  # addresses of frozen or dead instances: not called
    calls: list[Call]
    accepted: dict[str, int] = field(default_factory=dict)  # action id -> first_seq
    watchers: dict[int, Watcher] = field(default_factory=dict)
    n: int = 0
    pending: tuple | None = None  # (player, action, action id) refused UNAVAILABLE: it may have landed

    def watch(self) -> None:
        for p in self.players:
            p.stub = self.stubs[self.owner]
            self.watchers[p.seat] = Watcher(p.stub, self.room_id, p.token)

    async def close(self) -> None:
        for w in self.watchers.values():
            await w.close()

    async def follow_owner(self, stub) -> None:
        """Watch the room at its owner again, from the start (after a redirect or a dead stream)."""
        await self.close()
        while True:
            info = (await stub.GetRoom(pb.GetRoomRequest(room_id=self.room_id), timeout=CALL_DEADLINE_S)).room
            if info.owner.address and info.owner.address not in self.down:
                break
            await asyncio.sleep(0.2)  # the owners' group has not yet moved the room
        self.owner = info.owner.address
        self.watch()

    def finished(self) -> bool:
        latest = [w.latest for w in self.watchers.values() if w.latest is not None]
        return any(m.room.status == room_pb2.ROOM_STATUS_FINISHED for m in latest)

    async def move(self, deadline: float, any_stub) -> bool:
        """One move of the seat whose turn it is, retried with the same action id while
        refused UNAVAILABLE; False if the match is over or the deadline passed."""
        while time.monotonic() < deadline:
            if any(w.error is not None for w in self.watchers.values()) or self.owner in self.down:
                await self.follow_owner(any_stub)
            if self.pending is not None:  # the same action id again, until it is answered
                verdict = await self._act(*self.pending, deadline)
                if verdict == "accepted":
                    return True
                continue
            latest = [w.latest for w in self.watchers.values() if w.latest is not None]
            if self.finished():
                return False
            ref = max(latest, key=seq_of) if len(latest) == len(self.watchers) else None
            if ref is None or not ref.HasField("view") or ref.view.HasField("result"):
                await asyncio.sleep(0.01)
                continue
            mover = ref.view.turn.seat
            w = self.watchers[mover]
            if seq_of(w.latest) < seq_of(ref):
                await asyncio.sleep(0.01)
                continue
            p = next(x for x in self.players if x.seat == mover)
            view = w.latest.view
            for action in p.plan(view) + p.choose(view):
                self.n += 1
                action_id = f"{self.room_id[:8]}-{self.n}"
                verdict = await self._act(p, action, action_id, deadline)
                if verdict == "accepted":
                    return True
                if verdict in ("moved", "pending"):
                    break
            else:
                await asyncio.sleep(0.05)  # a stale view: look again
        return False

    async def _act(self, p: Player, action, action_id: str, deadline: float) -> str:
        """``accepted``, ``refused`` (by the rules: try another move) or ``moved``; an id
        refused UNAVAILABLE when the deadline passes is kept in ``pending``."""
        self.pending = None
        while time.monotonic() < deadline:
            at = self.owner
            began = time.monotonic()
            try:
                done = await self.stubs[at].Act(pb.ActRequest(room_id=self.room_id, seat_token=p.token,
                                                              action_id=action_id, action=action),
                                                timeout=CALL_DEADLINE_S)
            except grpc.aio.AioRpcError as exc:
                took = time.monotonic() - began
                detail = rule_error_of(exc)
                self.calls.append(Call(self.home, at, began, took, False, exc.code(),
                                       errors_pb2.ErrorCode.Name(detail.code) if detail is not None else "",
                                       int(detail.params.get("retry_after_ms", "0") or 0) if detail else 0))
                owner = moved_to(exc)
                if owner is not None:
                    await self.follow_owner(self.stubs[owner if owner not in self.down else self.other(at)])
                    return "moved"
                if exc.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED,
                                  grpc.StatusCode.RESOURCE_EXHAUSTED):
                    self.pending = (p, action, action_id)
                    await asyncio.sleep(0.2)
                    if self.owner in self.down:
                        await self.follow_owner(self.stubs[self.other(at)])
                    continue
                assert exc.code() == grpc.StatusCode.FAILED_PRECONDITION, exc
                return "refused"
            self.pending = None
            self.calls.append(Call(self.home, at, began, time.monotonic() - began, True))
            assert action_id not in self.accepted or self.accepted[action_id] == done.first_seq
            self.accepted[action_id] = done.first_seq
            return "accepted"
        return "pending" if self.pending is not None else "refused"

    async def settle(self, any_stub) -> None:
        """Answer the pending action id, if any (before the store is checked)."""
        if self.pending is not None:
            assert await self._act(*self.pending, time.monotonic() + 15) == "accepted" or self.pending is None

    def other(self, address: str) -> str:
        return next(a for a in self.stubs if a != address and a not in self.down)


async def start_tables(instance: Instance, stubs: dict, down: set, calls: list, home: str) -> list[Table]:
    tables = []
    for _ in range(ROOMS_EACH):
        stub = stubs[instance.target]
        created, players = await create_room(stub, "hand", seats=2, rounds=5)
        await join_all(stub, created, players, 2)
        assert created.room.owner.address == instance.target, "CreateRoom picks a room its instance owns"
        await stub.StartMatch(pb.StartMatchRequest(room_id=created.room.room_id, seat_token=players[0].token,
                                                   seed=len(calls) + 7))
        t = Table(home, created.room.room_id, players, stubs, instance.target, down, calls)
        t.watch()
        tables.append(t)
    return tables


async def drive(tables: list[Table], until: float, any_stub, moves: dict[str, list[float]]) -> None:
    """Move every table until ``until``; ``moves[room_id]`` gets each accepted move's time."""

    async def one(t: Table) -> None:
        while time.monotonic() < until:
            if await t.move(until, any_stub):
                moves.setdefault(t.room_id, []).append(time.monotonic())
            elif t.finished():
                return

    await asyncio.gather(*(one(t) for t in tables))


async def check_store(store_url: str, tables: list[Table]) -> None:
    """Seqs contiguous; every accepted action id stored once (one player move each)."""
    store = EventStore(store_url)
    await store.start()
    try:
        for t in tables:
            events = await store.load(t.room_id)
            assert [e.seq for e in events] == list(range(len(events))), f"room {t.room_id}: a gap in seqs"
            played = [r for r in (decode(e.payload) for e in events)
                      if isinstance(r.event, MoveMade) and r.event.origin == "player"]
            assert len(played) == len(t.accepted), f"room {t.room_id}: an accepted move lost or doubled"
            assert len(set(t.accepted.values())) == len(t.accepted), "two action ids answered with one move"
    finally:
        await store.close()


@pytest.fixture(params=["sqlite", "postgresql"])
async def store_url(request: pytest.FixtureRequest, tmp_path: Path, unique: str):
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'events.db'}"
        return
    server_url = request.getfixturevalue("pg_url")
    url = await create_database(server_url, f"frozen_{unique}")
    try:
        yield url
    finally:
        await drop_database(server_url, f"frozen_{unique}")


def hold_sqlite_lock(path: str) -> subprocess.Popen:
    """A process that takes the SQLite write lock (BEGIN IMMEDIATE) and keeps it."""
    code = ("import sqlite3, sys, time\n"
            f"c = sqlite3.connect({path!r}, timeout=30, isolation_level=None)\n"
            "c.execute('BEGIN IMMEDIATE')\n"
            "print('locked', flush=True)\n"
            "time.sleep(600)\n")
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)


async def hold_a_row_lock(store_url: str, table: Table, tables: list[Table], stub_b, moves: dict) -> None:
    """PostgreSQL's worst case, certain: a client of the store (set up as an instance's)
    stops inside a transaction that inserted the room's next seq. The room's owner
    is refused UNAVAILABLE within the store timeout meanwhile, and the server ends that
    idle transaction, so the room moves on while the holder is still stuck."""
    from sqlalchemy import insert

    from hand_infra._schema import room_events

    holder = EventStore(store_url, lock_timeout_s=STORE_TIMEOUT_S)
    await holder.start()
    release = asyncio.Event()
    began: list[float] = []

    async def hold() -> None:
        seq = (await stub_b.GetRoom(pb.GetRoomRequest(room_id=table.room_id))).room.next_seq
        async with holder._write() as conn:
            await conn.execute(insert(room_events), [{"room_id": table.room_id, "seq": seq, "kind": "x",
                                                      "payload": b"", "created_at": datetime.now(UTC)}])
            began.append(time.monotonic())
            await release.wait()  # frozen inside the transaction

    task = asyncio.ensure_future(hold())
    try:
        await wait_for(lambda: began or task.done(), 10)
        locked_at = began[0]
        await drive([table], locked_at + 5, stub_b, moves)
        after = [m for m in moves.get(table.room_id, []) if m > locked_at]
        slow = [c for c in table.calls if c.began >= locked_at and c.took > REFUSED_WITHIN_S]
        assert not slow, slow
        assert after, "the room never moved while a frozen transaction held its next seq"
        print(f"row lock held by an idle transaction: the room's next move {after[0] - locked_at:.2f} s after")
    finally:
        release.set()
        await asyncio.gather(task, return_exceptions=True)
        await holder.close()


async def test_a_frozen_instance_holds_up_the_others_no_longer_than_the_store_timeout(
        store_url: str, tmp_path: Path) -> None:
    sqlite = store_url.startswith("sqlite")
    helper: subprocess.Popen | None = None
    async with TansuBroker() as broker:
        await ensure_topics(KafkaSettings(bootstrap_servers=broker.bootstrap_servers, partitions=PARTITIONS))
        env = {"HAND_ROOM_STORE_TIMEOUT_S": str(STORE_TIMEOUT_S)}
        a = Instance("a", broker.bootstrap_servers, store_url, tmp_path, **env)
        b = Instance("b", broker.bootstrap_servers, store_url, tmp_path, **env)
        channels: list = []
        tables: list[Table] = []
        try:
            await asyncio.gather(a.ready(), b.ready())
            await wait_for(lambda: len(a.owned() | b.owned()) == PARTITIONS and a.owned() and b.owned()
                           and not (a.owned() & b.owned()), 30)
            channels = [grpc.aio.insecure_channel(i.target) for i in (a, b)]
            stubs = {i.target: pb_grpc.RoomServiceStub(ch) for i, ch in zip((a, b), channels, strict=True)}
            stub_b = stubs[b.target]
            down: set[str] = set()
            calls: list[Call] = []
            tables_a = await start_tables(a, stubs, down, calls, "a")
            tables_b = await start_tables(b, stubs, down, calls, "b")
            tables = tables_a + tables_b
            moves: dict[str, list[float]] = {}

            # a flood of Acts to every room; a is frozen while those to its rooms are in flight
            began = time.monotonic()
            frozen: list[float] = []

            async def freeze_a() -> None:
                await wait_for(lambda: sum(len(moves.get(t.room_id, [])) for t in tables_a) >= 6, 20, 0.005)
                a.proc.send_signal(signal.SIGSTOP)
                frozen.append(time.monotonic())
                down.add(a.target)

            await asyncio.gather(freeze_a(), drive(tables, began + (14 if not sqlite else 6), stub_b, moves))
            frozen_at = frozen[0]
            in_flight = [c for c in calls if c.began < frozen_at <= c.began + c.took]

            if not sqlite:
                # b's rooms keep moving; a's rooms move to b after the session timeout
                after = {t.room_id: [m for m in moves.get(t.room_id, []) if m > frozen_at] for t in tables}
                for t in tables_b:
                    assert len(after[t.room_id]) >= 5 or t.finished(), f"b's room {t.room_id} stalled"
                for t in tables_a:
                    assert after[t.room_id] or t.finished(), f"a's room {t.room_id} never moved to b"
                    assert t.owner == b.target
                first_b = min(after[t.room_id][0] for t in tables_b if after[t.room_id]) - frozen_at
                moved_a = max(after[t.room_id][0] for t in tables_a if after[t.room_id]) - frozen_at
                slow = [c for c in calls if c.at == b.target and c.began >= frozen_at
                        and c.took > REFUSED_WITHIN_S]
                assert not slow, slow
                assert moved_a < CALL_DEADLINE_S + 4, moved_a
                print(f"\nfrozen: b's first move {first_b:.2f} s after; a's rooms all moved in {moved_a:.2f} s; "
                      f"in flight {len(in_flight)}")
                # a room that has not finished (b's first ones may have, in the drive above)
                fresh = await start_tables(b, stubs, down, calls, "b")
                tables += fresh
                await hold_a_row_lock(store_url, fresh[0], tables, stub_b, moves)
            else:
                # b's rooms: accepted, or refused within the store timeout (a may hold the lock)
                a.proc.send_signal(signal.SIGKILL)  # dead now: its lock, if any, is released
                a.proc.wait()
                # the worst case, certain: a frozen process holds the write lock
                helper = hold_sqlite_lock(store_url.removeprefix("sqlite:///"))
                assert helper.stdout.readline().strip() == "locked"
                helper.send_signal(signal.SIGSTOP)
                locked_at = time.monotonic()
                await drive(tables, locked_at + 5, stub_b, moves)
                during = [c for c in calls if c.began >= locked_at]
                assert during, "no Act was sent while the lock was held"
                for c in during:  # refused in time: UNAVAILABLE, OVERLOADED (admission: the commands
                    # queued behind the locked store), or by the rules (a stale view)
                    assert not c.ok, "a move was accepted while another process held the write lock"
                    assert c.took < REFUSED_WITHIN_S, c
                    if c.code == grpc.StatusCode.UNAVAILABLE:
                        assert c.reason == "ERROR_CODE_ROOM_UNAVAILABLE" and c.retry_after_ms > 0, c
                    elif c.code == grpc.StatusCode.RESOURCE_EXHAUSTED:
                        assert c.reason == "ERROR_CODE_OVERLOADED" and c.retry_after_ms > 0, c
                    else:
                        assert c.code == grpc.StatusCode.FAILED_PRECONDITION, c
                assert any(c.code == grpc.StatusCode.UNAVAILABLE for c in during), during
                helper.send_signal(signal.SIGCONT)
                helper.kill()
                helper.wait()
                released_at = time.monotonic()
                await drive(tables, released_at + 8, stub_b, moves)
                back = {t.room_id: [m for m in moves.get(t.room_id, []) if m > released_at] for t in tables}
                for t in tables:
                    assert back[t.room_id] or t.finished(), f"room {t.room_id} stalled after the lock was freed"
                refused = [c.took for c in during if c.code == grpc.StatusCode.UNAVAILABLE]
                phase1 = [c for c in calls if c.at == b.target and frozen_at <= c.began < locked_at]
                slow = [c for c in phase1 if not c.ok and c.took >= REFUSED_WITHIN_S]
                assert not slow, (slow, len(phase1))
                first_back = min(v[0] for v in back.values() if v) - released_at
                print(f"\nlock held: {len(refused)} Acts refused in {min(refused):.2f}-{max(refused):.2f} s; "
                      f"while a was frozen: {sum(c.ok for c in phase1)} accepted, "
                      f"{sum(not c.ok for c in phase1)} refused (max {max((c.took for c in phase1), default=0):.2f} s); "
                      f"first move {first_back:.2f} s after the release; in flight {len(in_flight)}")
            for t in tables:
                await t.settle(stub_b)
                await t.close()
            await check_store(store_url, tables)
        finally:
            if helper is not None:
                if helper.poll() is None:
                    helper.send_signal(signal.SIGCONT)
                    helper.kill()
                    helper.wait()
                helper.stdout.close()
            for t in tables:
                await t.close()
            for ch in channels:
                await ch.close()
            a.stop(signal.SIGKILL)
            b.stop()
