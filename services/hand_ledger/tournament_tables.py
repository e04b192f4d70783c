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

Several room instances (``HAND_LEDGER_ROOM_ADDRESS`` a comma-separated list): table k's rooms are
created at address k mod n (``CreateRoom`` picks a room the receiving instance owns, decision 0020,
so the tables spread over the instances); an address that does not answer (``UNAVAILABLE``,
deadline) is passed over for the next one, so a dead instance holds no table back. Every later call
of a room's making (join, fill, start, leave) is answered by any instance.

``start`` starts a tournament (the organiser's StartTournament, or the scheduler
at its start time: ``tournament_driver``).
"""

from __future__ import annotations

import math

import grpc
import structlog

from hand.v1 import options_pb2, room_pb2
from hand.v1 import room_service_pb2 as rpb
from hand.v1 import room_service_pb2_grpc as rpb_grpc

from .tournament_store import Tournament, TournamentStore

log = structlog.get_logger("hand_ledger.tournaments")
BOT_NAME = "Bot"


PASS_OVER = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)


class Tables:
    """Creates and starts the rooms of a tournament's tables through ``room_address`` (one
    ``host:port``, or several separated by commas: the tables spread over them)."""

    def __init__(self, store: TournamentStore, room_address: str) -> None:
        self.store, self.room_address = store, room_address
        self.addresses = [a.strip() for a in room_address.split(",") if a.strip()]
        self._channels: dict[str, grpc.aio.Channel] = {}

    def stub_at(self, address: str) -> rpb_grpc.RoomServiceStub:
        if address not in self._channels:
            self._channels[address] = grpc.aio.insecure_channel(address)
        return rpb_grpc.RoomServiceStub(self._channels[address])

    @property
    def stub(self) -> rpb_grpc.RoomServiceStub:
        return self.stub_at(self.addresses[0])

    def order(self, table: int) -> list[str]:
        """The addresses to try for ``table``'s rooms: its own first (table k: k mod n), then the rest."""
        k = (table - 1) % len(self.addresses)
        return self.addresses[k:] + self.addresses[:k]

    async def close(self) -> None:
        channels, self._channels = list(self._channels.values()), {}
        for channel in channels:
            await channel.close()

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
        rules = options_pb2.RuleSelection.FromString(t.rules)
        host = t.occupant(table, 0)
        request = rpb.CreateRoomRequest(
            rules=rules, rounds=t.rounds, visibility=room_pb2.ROOM_VISIBILITY_PRIVATE, seat_count=t.seat_count,
            turn_seconds=t.turn_seconds, player_name=host.name if host else BOT_NAME,
            player_id=_label(t, table, 0))
        stub, created = await self._create(table, request)
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

    async def _create(self, table: int, request: rpb.CreateRoomRequest
                      ) -> tuple[rpb_grpc.RoomServiceStub, rpb.CreateRoomResponse]:
        """``CreateRoom`` at the table's own address, or the next one that answers."""
        order = self.order(table)
        for i, address in enumerate(order):
            stub = self.stub_at(address)
            try:
                return stub, await stub.CreateRoom(request, timeout=10)
            except grpc.aio.AioRpcError as exc:
                if exc.code() not in PASS_OVER or i == len(order) - 1:
                    raise
                log.warning("tournament_room_address_passed_over", address=address, code=exc.code().name)
        raise AssertionError("no room address")  # unreachable: order is never empty


def _label(t: Tournament, table: int, seat: int) -> str:
    """The room's (unverified) player label of a tournament seat."""
    return f"{t.tournament_id}:{table}:{seat}"


async def start(tables: Tables, t: Tournament, *, by: str, bot_level: int | None = None) -> bool:
    """OPEN -> RUNNING: the tables (``t.tables``, or for open entry as many as the entrants need), each
    entrant at its place in entry order, deal 1 opened at every table. False when another caller (the
    organiser, the scheduler, another replica) started it first: one conditional write decides, so a
    tournament starts exactly once. A table whose room could not be made is tried again by the driver."""
    n_tables = t.tables or max(1, math.ceil(len(t.entrants) / t.seat_count))
    places = {e.player_id: (i // t.seat_count + 1, i % t.seat_count) for i, e in enumerate(t.entrants)}
    if not await tables.store.start(t.tournament_id, n_tables, places, bot_level):
        return False
    started = await tables.store.load(t.tournament_id)
    assert started is not None
    for table in range(1, n_tables + 1):
        try:
            await tables.open_deal(started, table, 1)
        except grpc.aio.AioRpcError as exc:  # the driver tries again
            log.warning("tournament_table_failed", tournament_id=t.tournament_id, table=table, code=exc.code().name)
    log.info("tournament_started", tournament_id=t.tournament_id, tables=n_tables, by=by)
    return True
