"""The pools' owner: the instance that owns a pool key's partition of hand.room-commands (the
room service's owner routing, docs/decisions/0020) holds the pool in memory, appends every
ticket change to the pool's log, and on its timer forms tables and builds their rooms
(docs/decisions/0028-matchmaking.md).

A table is first recorded (``Formed``: its room id, its tickets in seat order, its bots),
then built with ordinary room commands on the one command path (create with the first
ticket as host, join the others with their seat tokens' hashes, fill bots, start), then
marked ``Seated``. Each step checks the room first, so a new owner that folds a pool with a
formed table not yet seated finishes it: a ticket is seated once, in the room its table
names, however many owners touch it.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
import uuid

import structlog

from hand.v1 import options_pb2
from hand_infra.eventstore import StaleAppend
from hand_wire import table_options
from hand_table import Room, Command, CreateRoom, FillWithBots, JoinRoom, StartMatch, RoomCode, RoomError

from .. import limits
from ..repository import RoomRepository
from ..router import CommandRouter
from .log import PoolLog, TicketTaken
from .pool import (
    KEEP_CLOSED_S, Event, Group, Pool, Schedule, Seated, Ticket, cancel, match, open_ticket, pool_key,
)

log = structlog.get_logger("hand_room.matchmaking")
TURN_SECONDS = 30


def parse_key(key: str) -> tuple[str, int]:
    _, preset, seats = key.split(":")
    return preset, int(seats)


class Matchmaker:
    def __init__(self, pools: PoolLog, router: CommandRouter, repo: RoomRepository, schedule: Schedule,
                 *, tick_s: float, waiting_ttl_s: int = 0) -> None:
        self.log, self.router, self.repo, self.schedule = pools, router, repo, schedule
        self.tick_s, self.waiting_ttl_s = tick_s, waiting_ttl_s
        self.pools: dict[str, Pool] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._version = -1
        self._task: asyncio.Task | None = None

    # ---------------------------------------------------------------- lifecycle
    async def start(self) -> None:
        await self.log.start()
        self._task = asyncio.create_task(self._run(), name="matchmaker")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    def owns(self, key: str) -> bool:
        return self.router.local(key)

    def _lock(self, key: str) -> asyncio.Lock:
        return self._locks.setdefault(key, asyncio.Lock())

    async def _pool(self, key: str, fresh: bool = False) -> Pool:
        """The pool, folded from its log the first time this owner needs it (or after a stale append)."""
        if not self.owns(key):
            raise RoomError(RoomCode.ROOM_UNAVAILABLE, "the pool is moving to another instance",
                            retry_after_ms=500)
        pool = self.pools.get(key)
        if pool is None or fresh:
            preset, seats = parse_key(key)
            pool = self.pools[key] = await self.log.load(key, preset, seats)
        return pool

    async def _append(self, key: str, decide) -> list[Event]:
        """Decide on the pool and append; on a stale append (another writer), fold again and redo once."""
        for attempt in range(2):
            pool = await self._pool(key, fresh=attempt > 0)
            events = decide(pool)
            if not events:
                return []
            try:
                await self.log.append(pool, events)
                return events
            except TicketTaken as exc:  # an open ticket in another pool (or one this fold had not seen)
                raise RoomError("TICKET_EXISTS", "this player is already waiting for a table",
                                field="player_id", ticket_id=exc.ticket_id) from None
            except StaleAppend:
                log.info("pool_stale", pool=key)
        raise RoomError(RoomCode.ROOM_UNAVAILABLE, "the pool is busy; retry", retry_after_ms=200)

    # ---------------------------------------------------------------- tickets
    async def find(self, preset: str, seats: int, ticket: Ticket) -> Ticket:
        key = pool_key(preset, seats)
        async with self._lock(key):
            await self._append(key, lambda pool: [open_ticket(pool, ticket)])
            return self.pools[key].tickets[ticket.ticket_id]

    async def cancel(self, key: str, ticket_id: str, token_hash: str) -> Ticket:
        async with self._lock(key):
            self._check(await self._pool(key), ticket_id, token_hash)
            await self._append(key, lambda pool: [e for e in [cancel(pool, ticket_id, time.time())] if e])
            return self.pools[key].tickets[ticket_id]

    async def get(self, key: str, ticket_id: str, token_hash: str) -> Ticket:
        async with self._lock(key):
            return self._check(await self._pool(key), ticket_id, token_hash)

    @staticmethod
    def _check(pool: Pool, ticket_id: str, token_hash: str) -> Ticket:
        t = pool.tickets.get(ticket_id)
        if t is None or not secrets.compare_digest(t.token_hash, token_hash):
            raise RoomError("TICKET_NOT_FOUND", "no such ticket", field="ticket_id")
        return t

    # ---------------------------------------------------------------- the timer
    async def _run(self) -> None:
        while True:
            try:
                await self._sync_ownership()
                for key in list(self.pools):
                    await self.tick(key)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the store down, a rebalance: the next tick tries again
                log.warning("matchmaker_tick_failed", error=type(exc).__name__, detail=str(exc)[:200])
            await asyncio.sleep(self.tick_s)

    async def _sync_ownership(self) -> None:
        """After an ownership change: drop the pools no longer owned, fold those newly owned."""
        owner = self.router.owner
        if owner is None or owner.version == self._version:
            return
        version = owner.version
        for key in [k for k in self.pools if not self.owns(k)]:
            del self.pools[key]
        for key in await self.log.keys():
            if self.owns(key) and key not in self.pools:
                async with self._lock(key):
                    await self._pool(key)
                log.info("pool_loaded", pool=key, waiting=len(self.pools[key].waiting()),
                         unseated=len(self.pools[key].unseated()))
        self._version = version

    async def tick(self, key: str) -> None:
        """Finish the tables formed but not built, then form and build new ones."""
        async with self._lock(key):
            if not self.owns(key):
                self.pools.pop(key, None)
                return
            now = time.time()
            await self._pool(key)
            await self._append(key, lambda p: match(p, now, self.schedule, self._new_ids))
            for group in self.pools[key].unseated():
                await self._build(self.pools[key], group)
            self.pools[key].forget_closed(now - KEEP_CLOSED_S)

    def _new_ids(self) -> tuple[str, str]:
        return uuid.uuid4().hex, self.router.new_room_id()

    async def _build(self, pool: Pool, group: Group) -> None:
        """Create the table's room, seat its tickets, fill bots, start; then mark it seated.
        Every step is skipped when the room shows it done (a new owner finishing a table)."""
        with structlog.contextvars.bound_contextvars(pool=pool.key, room_id=group.room_id):
            tickets = [pool.tickets[t] for t in group.tickets]
            host = tickets[0]
            room = await self._room(group.room_id)
            if room is None:
                options = table_options(options_pb2.RuleSelection(preset=pool.preset), pool.seats)
                await self._send(Command(group.room_id, CreateRoom(
                    code=limits.new_join_code(), public=False,
                    preset=pool.preset, options=options, turn_seconds=TURN_SECONDS,
                    player_name=host.name, player_id=host.player_id, token_hash=host.token_hash,
                    waiting_ttl_s=self.waiting_ttl_s, seat_seed=host.seat_seed)), RoomCode.ROOM_EXISTS)
                room = await self._room(group.room_id)
            for seat, t in enumerate(tickets[1:], start=1):
                if room is not None and room.seat_of_token(t.token_hash) is None:
                    await self._send(Command(group.room_id, JoinRoom(t.name, t.player_id, t.token_hash, seat,
                                                                     seat_seed=t.seat_seed)))
            room = await self._room(group.room_id)
            if room is not None and room.status == "waiting" and room.free_seats():
                await self._send(Command(group.room_id, FillWithBots(group.level), seat=0))
            room = await self._room(group.room_id)
            if room is not None and room.status == "waiting":
                await self._send(Command(group.room_id, StartMatch(None), seat=0))
            await self.log.append(pool, [Seated(group.group_id, time.time())])
            log.info("table_seated", players=len(tickets), bots=group.bots, level=group.level)

    async def _room(self, room_id: str) -> Room | None:
        return await self.repo.get(room_id, fresh=True)

    async def _send(self, cmd: Command, *ok: RoomCode) -> None:
        reply = await self.router.send(cmd)
        if reply is not None and not reply.ok and reply.code not in {c.value for c in ok}:
            raise RoomError(reply.code, "building a matched table failed", **reply.params)
