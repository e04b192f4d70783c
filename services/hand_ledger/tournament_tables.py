"""A tournament's tables as rooms of the room service (decision 0029): this module is a
client of ``hand.v1.RoomService``, as the web app is.

One room per table and deal: ``CreateRoom`` with the organiser's rules (the
caller takes seat 0 and hosts), ``JoinRoom`` by the join code for each other
seated entrant (at its seat), ``FillWithBots`` at the organiser's level,
``StartMatch`` with the deal's fixed seed — every seat position of the deal gets
the same cards and the same dealer at every table (version-0 deals: the seed
decides the dealer and every round's deck; "unverifiable" for VerifyDeal, as
fits deals the organiser fixed). Seat 0 without an entrant: the host leaves once
the match runs, and a bot plays it. Entrants' seats are guest seats of the room
(a label, not an account: the tournament cannot act for a session); their seat
tokens are handed to each entrant alone by GetMyTable.

``Driver`` starts each table's next deal once its previous deal is over.
"""

from __future__ import annotations

import asyncio
import contextlib

import grpc
import structlog

from hand.v1 import options_pb2, room_pb2
from hand.v1 import room_service_pb2 as rpb
from hand.v1 import room_service_pb2_grpc as rpb_grpc

from .tournament_store import RUNNING, Tournament, TournamentStore

log = structlog.get_logger("hand_ledger.tournaments")
BOT_NAME = "Bot"


class Tables:
    """Creates and starts the rooms of a tournament's tables through ``room_address``."""

    def __init__(self, store: TournamentStore, room_address: str) -> None:
        self.store, self.room_address = store, room_address
        self._channel: grpc.aio.Channel | None = None

    @property
    def stub(self) -> rpb_grpc.RoomServiceStub:
        if self._channel is None:
            self._channel = grpc.aio.insecure_channel(self.room_address)
        return rpb_grpc.RoomServiceStub(self._channel)

    async def close(self) -> None:
        if self._channel is not None:
            await self._channel.close()
            self._channel = None

    async def open_deal(self, t: Tournament, table: int, deal: int) -> bool:
        """Claim, create and start the room of ``table``'s ``deal``; False if already claimed."""
        if not await self.store.claim(t.tournament_id, table, deal):
            return False
        try:
            room_id, tokens = await self._play(t, table, deal)
        except BaseException:
            await self.store.release(t.tournament_id, table, deal)
            raise
        await self.store.created(t.tournament_id, table, deal, room_id, tokens)
        log.info("tournament_deal_started", tournament_id=t.tournament_id, table=table, deal=deal,
                 room_id=room_id)
        return True

    async def _play(self, t: Tournament, table: int, deal: int) -> tuple[str, dict[int, str]]:
        stub, rules = self.stub, options_pb2.RuleSelection.FromString(t.rules)
        host = t.occupant(table, 0)
        created = await stub.CreateRoom(rpb.CreateRoomRequest(
            rules=rules, rounds=t.rounds, visibility=room_pb2.ROOM_VISIBILITY_PRIVATE, seat_count=t.seat_count,
            turn_seconds=t.turn_seconds, player_name=host.name if host else BOT_NAME,
            player_id=_label(t, table, 0)))
        room_id, host_token = created.room.room_id, created.seat_token
        tokens = {0: host_token} if host else {}
        for seat in range(1, t.seat_count):
            e = t.occupant(table, seat)
            if e is not None:
                joined = await stub.JoinRoom(rpb.JoinRoomRequest(
                    join_code=created.room.join_code, player_name=e.name, player_id=_label(t, table, seat),
                    seat=seat))
                tokens[seat] = joined.seat_token
        await stub.FillWithBots(rpb.FillWithBotsRequest(room_id=room_id, seat_token=host_token,
                                                        level=t.bot_level or room_pb2.BOT_LEVEL_BEGINNER))
        await stub.StartMatch(rpb.StartMatchRequest(room_id=room_id, seat_token=host_token,
                                                    seed=t.seeds[deal - 1]))
        if host is None:  # nobody holds seat 0: a bot plays it from now on
            await stub.LeaveRoom(rpb.LeaveRoomRequest(room_id=room_id, seat_token=host_token))
        return room_id, tokens


def _label(t: Tournament, table: int, seat: int) -> str:
    """The room's (unverified) player label of a tournament seat."""
    return f"{t.tournament_id}:{table}:{seat}"


class Driver:
    """Every ``tick_s``: each running tournament's tables whose last deal is over get the next."""

    def __init__(self, tables: Tables, tick_s: float = 0.5) -> None:
        self.tables, self.tick_s = tables, tick_s
        self._task: asyncio.Task | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="tournament-driver")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        while True:
            try:
                await self.step()
            except Exception:  # a room service or database hiccup: the next tick tries again
                log.warning("tournament_driver_failed", exc_info=True)
            await asyncio.sleep(self.tick_s)

    async def step(self) -> int:
        """One pass; the number of deals started."""
        started = 0
        for tournament_id in await self.tables.store.running():
            t = await self.tables.store.load(tournament_id)
            if t is None or t.status != RUNNING:
                continue
            for table in range(1, t.tables + 1):
                mine = [r for r in t.rooms if r.table == table]
                if not mine:  # the start's own attempt failed: try again
                    started += await self.tables.open_deal(t, table, 1)
                elif mine[-1].over and mine[-1].deal < t.deals:
                    started += await self.tables.open_deal(t, table, mine[-1].deal + 1)
        return started
