"""The chaos tests' match driver and checks: scripted players act through the
instances they are given, retry UNAVAILABLE with the same action id (as clients
do), and the test's hook runs after every accepted move (to kill something)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

import grpc
from sqlalchemy import select

from hand.v1 import room_pb2
from hand_infra.eventstore import EventStore
from hand_ledger import _schema
from hand_ledger.server import LedgerServer
from hand_table import MoveMade
from hand_wire import decode

from .room_support import Player, Watcher, seq_of
from .failover_support import act_retrying

#: Bound on one refused Act while a dependency is down: it must fail fast, not wait for a deadline.
FAIL_FAST_S = 2.0


class MatchDriver:
    """Plays the human seats of one match; ``stubs`` are the instances to try, in order."""

    def __init__(self, players: list[Player], watchers: dict[int, Watcher], stubs: list) -> None:
        self.by_seat = {p.seat: p for p in players}
        self.watchers, self.stubs = watchers, stubs
        self.moves = 0  # accepted player moves
        self.accepted_at: list[float] = []  # monotonic time of each accepted move
        self.refused: list[tuple] = []  # (status code, seconds, RuleError) of each retried refusal
        self._n = 0

    def head(self) -> int:
        return max((seq_of(w.latest) for w in self.watchers.values() if w.latest), default=-1)

    def latest(self):
        have = [w.latest for w in self.watchers.values() if w.latest]
        return max(have, key=seq_of) if have else None

    def finished(self) -> bool:
        latest = self.latest()
        return latest is not None and latest.room.status == room_pb2.ROOM_STATUS_FINISHED

    def first_accepted_after(self, t: float) -> float | None:
        """Seconds from ``t`` to the first move accepted after it."""
        return next((a - t for a in self.accepted_at if a >= t), None)

    async def step(self, deadline: float) -> bool:
        """Play the mover's next move when its stream is up to date; True if one was accepted."""
        latest = self.latest()
        if latest is None or not latest.HasField("view") or latest.view.HasField("result"):
            await asyncio.sleep(0.02)
            return False
        w = self.watchers[latest.view.turn.seat]
        if w.latest is None or seq_of(w.latest) < seq_of(latest):  # its stream is behind
            await asyncio.sleep(0.01)
            return False
        p = self.by_seat[latest.view.turn.seat]
        accepted = False
        for action in p.plan(w.latest.view) + p.choose(w.latest.view):
            self._n += 1
            try:
                await act_retrying(p, self.stubs, action, f"{p.seat}-{self._n}", deadline, self.refused)
            except grpc.aio.AioRpcError as exc:
                assert exc.code() == grpc.StatusCode.FAILED_PRECONDITION, exc
                continue
            self.moves += 1
            self.accepted_at.append(time.monotonic())
            accepted = True
            break
        seq = seq_of(latest)
        end = time.monotonic() + 30
        while self.head() <= seq and time.monotonic() < end:
            await asyncio.sleep(0.01)
        return accepted

    async def play(self, deadline: float, until: Callable[[MatchDriver], bool] = lambda d: False,
                   after_move: Callable[[MatchDriver], Awaitable[None]] | None = None) -> None:
        """Play until the match is finished, ``until(self)`` holds or ``deadline`` passes."""
        while time.monotonic() < deadline and not self.finished() and not until(self):
            if await self.step(deadline) and after_move is not None:
                await after_move(self)


def assert_fast_unavailable(refused: list[tuple]) -> None:
    """Every refusal was UNAVAILABLE with a retry hint, in well under a deadline."""
    for code, took, detail in refused:
        assert code == grpc.StatusCode.UNAVAILABLE, (code, took)
        assert detail is not None and int(detail.params.get("retry_after_ms", "0")) > 0, detail
        assert took < FAIL_FAST_S, f"a refused Act took {took:.2f} s"


async def assert_stored_once(store_url: str, room_id: str, moves: int) -> list[int]:
    """The room's stored seqs (0..n without a gap), with every accepted move once."""
    events = EventStore(store_url)
    await events.start()
    try:
        stored = await events.load(room_id)
    finally:
        await events.close()
    seqs = [e.seq for e in stored]
    assert seqs == list(range(len(seqs)))
    played = [r for r in (decode(e.payload) for e in stored)
              if isinstance(r.event, MoveMade) and r.event.origin == "player"]
    assert len(played) == moves, "an accepted move is missing or doubled in the store"
    return seqs


async def archived_seqs(ledger: LedgerServer, room_id: str) -> list[int]:
    async with ledger.store.read() as conn:
        rows = await conn.execute(select(_schema.events.c.seq).where(_schema.events.c.room_id == room_id)
                                  .order_by(_schema.events.c.seq))
        return [r[0] for r in rows]


async def assert_streams_and_ledger_agree(watchers, ledger: LedgerServer, room_id: str, stored: list[int]) -> None:
    """Every stream saw each seq once, without a gap, to the last stored; the ledger
    ends with exactly the stored seqs (polled with a deadline)."""
    for seat, w in watchers.items():
        seqs = [m.event.seq for m in w.messages if m.HasField("event")]
        assert seqs == list(range(seqs[0], stored[-1] + 1)), f"seat {seat}: a gap or a duplicate"
    deadline = time.monotonic() + 60
    while await archived_seqs(ledger, room_id) != stored and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    assert await archived_seqs(ledger, room_id) == stored
