"""Room instances as separate processes (``python -m hand_room``) for the failover and
chaos tests, an Act retried with one action id across them as clients do, and the
fail-over scenario itself (``run_failover``: test_room_failover and bench/bench_failover.py)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import grpc
from aiokafka import AIOKafkaConsumer

from hand.v1 import room_pb2
from hand.v1 import room_service_pb2 as pb
from hand.v1 import room_service_pb2_grpc as pb_grpc
from hand_infra.broker import TansuBroker
from hand_infra.eventstore import EventStore
from hand_infra.settings import KafkaSettings
from hand_infra.topics import ROOM_EVENTS, ensure_topics
from hand_table import MoveMade
from hand_wire import decode
from hand_room.partitions import partition_of

from .room_support import Player, Watcher, create_room, join_all, moved_to, rule_error_of, seq_of, wait_for

ROOT = Path(__file__).resolve().parents[2]
PARTITIONS = 8


class Instance:
    def __init__(self, name: str, bootstrap: str, store_url: str, log_dir: Path, **extra_env: str) -> None:
        self.name = name
        self.log = log_dir / f"{name}.log"
        env = {**os.environ, "KAFKA_BOOTSTRAP_SERVERS": bootstrap, "HAND_EVENTSTORE_URL": store_url,
               "HAND_ROOM_PORT": "0", "HAND_LOG_FORMAT": "json", "HAND_ROOM_PRESENCE_GRACE_S": "30",
               "HAND_ROOM_COMMAND_TIMEOUT_S": "4", "HAND_KAFKA_PARTITIONS": str(PARTITIONS),
               # one test process plays every client from one address: no per-peer limits
               "HAND_RATE_PEER_PER_S": "0", "HAND_STREAMS_PER_PEER": "0", **extra_env}
        self.out = self.log.open("w")
        self.proc = subprocess.Popen([sys.executable, "-m", "hand_room"], env=env, cwd=ROOT,
                                     stdout=self.out, stderr=subprocess.STDOUT)
        self.target = ""

    def lines(self) -> list[str]:
        return self.log.read_text().splitlines()

    async def ready(self) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            for line in self.lines():
                if line.startswith("room service listening on "):
                    self.target = line.removeprefix("room service listening on ")
                    return
            assert self.proc.poll() is None, self.log.read_text()[-3000:]
            await asyncio.sleep(0.05)
        raise AssertionError(f"{self.name} did not start")

    def owned(self) -> set[int]:
        parts: set[int] = set()
        for line in self.lines():
            if line.startswith("{"):
                rec = json.loads(line)
                if rec.get("event") == "partitions_assigned":
                    parts |= set(rec["partitions"])
                elif rec.get("event") == "partitions_revoked":
                    parts -= set(rec["partitions"])
        return parts

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """Stop the process (a frozen one is continued first, so it can exit)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.out.close()


async def act_retrying(player: Player, stubs: list, action, action_id: str, deadline: float,
                       refused: list | None = None, at: dict | None = None):
    """Act with one action id, retrying (same id) on UNAVAILABLE or a dead instance,
    and following ROOM_MOVED to the owner's stub in ``at`` (address → stub); each
    refusal is appended to ``refused`` as ``(status code, seconds it took, the
    RuleError detail or None)``."""
    while True:
        for stub in list(stubs):
            player.stub = stub
            began = time.monotonic()
            try:
                try:
                    return await player.act(action, action_id=action_id)
                except grpc.aio.AioRpcError as exc:
                    owner = moved_to(exc)
                    if owner is None or at is None or owner not in at:
                        raise
                    player.stub = at[owner]  # the room's owner: one redirect, then cached
                    return await player.act(action, action_id=action_id)
            except grpc.aio.AioRpcError as exc:
                if moved_to(exc) is not None:  # not the owner: try it last from now on (as a
                    if len(stubs) > 1:         # client keeps the owner it was sent to)
                        stubs.append(stubs.pop(stubs.index(stub)))
                    continue
                if exc.code() not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
                    raise
                if refused is not None:
                    refused.append((exc.code(), time.monotonic() - began, rule_error_of(exc)))
            if time.monotonic() > deadline:
                raise AssertionError("no instance accepted the action in time")
            await asyncio.sleep(0.2)


async def run_failover(tmp_path: Path) -> dict:
    """One match, its owner SIGKILLed mid-turn; checks store, streams and topic, and
    returns ``failover_s`` (the kill to the next accepted move) and the move counts."""
    async with TansuBroker() as broker:
        settings = KafkaSettings(bootstrap_servers=broker.bootstrap_servers, partitions=PARTITIONS)
        await ensure_topics(settings)
        store_url = f"sqlite:///{tmp_path / 'events.db'}"
        a = Instance("a", broker.bootstrap_servers, store_url, tmp_path)
        b = Instance("b", broker.bootstrap_servers, store_url, tmp_path)
        channels = []
        try:
            await asyncio.gather(a.ready(), b.ready())
            await wait_for(lambda: len(a.owned() | b.owned()) == PARTITIONS and not (a.owned() & b.owned()), 60)
            ch_a, ch_b = grpc.aio.insecure_channel(a.target), grpc.aio.insecure_channel(b.target)
            channels = [ch_a, ch_b]
            stub_a, stub_b = pb_grpc.RoomServiceStub(ch_a), pb_grpc.RoomServiceStub(ch_b)
            created, players = await create_room(stub_a, "hand", seats=4, rounds=1)
            await join_all(stub_b, created, players, 4)
            room_id = created.room.room_id
            for p in players[:2]:
                p.stub = stub_a
            await stub_a.StartMatch(pb.StartMatchRequest(room_id=room_id, seat_token=players[0].token, seed=21))
            part = partition_of(room_id, PARTITIONS)
            owner, survivor = (a, b) if part in a.owned() else (b, a)
            stub_surv = stub_b if survivor is b else stub_a
            at = {a.target: stub_a, b.target: stub_b}
            watchers = {p.seat: Watcher(p.stub, room_id, p.token) for p in players}
            by_seat = {p.seat: p for p in players}
            deadline = time.monotonic() + 180
            moves, killed, n = 0, False, 0
            killed_at, failover_s = 0.0, None

            async def refresh(seat: int) -> None:
                """Reconnect a broken stream to the survivor, resuming after the last seq."""
                w = watchers[seat]
                owner_address = moved_to(w.error) if w.error is not None else None
                if w.error is not None or (killed and w.stub is not stub_surv):
                    last = seq_of(w.latest) + 1 if w.latest else 0
                    await w.close()
                    stub = at.get(owner_address, stub_surv) if not killed or owner_address != owner.target \
                        else stub_surv
                    fresh = Watcher(stub, room_id, by_seat[seat].token, from_seq=last)
                    fresh.messages = [*w.messages]
                    watchers[seat] = fresh

            while time.monotonic() < deadline:
                for seat in list(watchers):
                    await refresh(seat)
                have = [w.latest for w in watchers.values() if w.latest]
                if not have or not have[0].HasField("view"):
                    await asyncio.sleep(0.02)
                    continue
                latest = max(have, key=seq_of)
                if latest.room.status == room_pb2.ROOM_STATUS_FINISHED:
                    break
                mover = latest.view.turn.seat
                w = watchers[mover]
                if w.latest is None or seq_of(w.latest) < seq_of(latest) or latest.view.HasField("result"):
                    await asyncio.sleep(0.01)
                    continue
                p = by_seat[mover]
                view = w.latest.view
                stubs = [stub_surv] if killed else [p.stub, stub_surv]
                for action in p.plan(view) + p.choose(view):
                    n += 1
                    try:
                        await act_retrying(p, stubs, action, f"{mover}-{n}", deadline, at=at)
                        moves += 1
                        if killed and failover_s is None:
                            failover_s = time.monotonic() - killed_at
                        break
                    except grpc.aio.AioRpcError as exc:
                        assert exc.code() == grpc.StatusCode.FAILED_PRECONDITION, exc
                if not killed and moves >= 12 and w.latest.view.turn.phase == 2 and not w.latest.view.turn.opening_discard:
                    owner.proc.send_signal(signal.SIGKILL)
                    killed_at = time.monotonic()
                    owner.proc.wait()
                    killed = True
                seq = seq_of(latest)
                end = time.monotonic() + 30
                while max((seq_of(x.latest) for x in watchers.values() if x.latest), default=0) <= seq \
                        and time.monotonic() < end:
                    await asyncio.sleep(0.01)
                    for seat in list(watchers):
                        await refresh(seat)
            assert killed, "the owner was never killed"
            final = (await stub_surv.GetRoom(pb.GetRoomRequest(room_id=room_id))).room
            assert final.status == room_pb2.ROOM_STATUS_FINISHED

            store = EventStore(store_url)
            await store.start()
            stored = await store.load(room_id)
            await store.close()
            assert [e.seq for e in stored] == list(range(len(stored)))
            played = [r for r in (decode(e.payload) for e in stored)
                      if isinstance(r.event, MoveMade) and r.event.origin == "player"]
            assert len(played) == moves, "an accepted move is missing or doubled in the store"
            # every stream saw every seq exactly once
            for seat, w in watchers.items():
                seqs = [m.event.seq for m in w.messages if m.HasField("event")]
                assert seqs == list(range(seqs[0], stored[-1].seq + 1)), f"seat {seat}: gap or duplicate"
            # the event topic, de-duplicated by (room_id, seq), holds each seq once
            consumer = AIOKafkaConsumer(ROOM_EVENTS, bootstrap_servers=broker.bootstrap_servers,
                                        auto_offset_reset="earliest", group_id=None)
            await consumer.start()
            seen: dict[int, int] = {}
            try:
                end = time.monotonic() + 20
                while len(seen) < len(stored) and time.monotonic() < end:
                    batch = await consumer.getmany(timeout_ms=500)
                    for msgs in batch.values():
                        for m in msgs:
                            ev = decode(m.value)
                            if ev.room_id == room_id:
                                seen[ev.seq] = seen.get(ev.seq, 0) + 1
            finally:
                await consumer.stop()
            assert sorted(seen) == [e.seq for e in stored]
            for w in watchers.values():
                await w.close()
            return {"failover_s": failover_s, "moves": moves, "stored_moves": len(played),
                    "topic_seqs": len(seen), "stored_seqs": len(stored)}
        finally:
            for ch in channels:
                await ch.close()
            a.stop()
            b.stop()
