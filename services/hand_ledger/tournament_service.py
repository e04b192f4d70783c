"""``TournamentService`` handlers (proto/hand/v1/tournament_service.proto; decision 0029).

Served by the ledger's gRPC server next to ``LedgerService``: the tournaments live
in the ledger's store, the scores come from the score sheets the ledger projects
from ``hand.room-events``, and the tables are rooms made through the room
service (``tournament_tables``).
"""

from __future__ import annotations

import json
import math
import secrets
import time

import structlog

from hand.v1 import room_pb2
from hand.v1 import tournament_service_pb2 as pb
from hand.v1 import tournament_service_pb2_grpc as pb_grpc
from hand_common import pagetoken
from hand_common.identity import Verifier, optional_player, require_player
from hand_common.limits import MAX_ID
from hand_common.rpc import rpc
from hand_wire import table_options

from . import tournament_messages as msg
from .privacy import Viewer
from .settings import DEV_HANDLE_SECRET
from .status import STATUS, LedgerError
from .tournament_scoring import Result
from .tournament_store import CLOSED, OPEN, RUNNING, Tournament, TournamentStore
from .tournament_tables import Tables, start

log = structlog.get_logger("hand_ledger.tournaments")
_rpc = rpc(log, refuse=STATUS.refuse, bind=lambda request: {"tournament_id": getattr(request, "tournament_id", None) or None})
SCOPE = "tournaments"  # the page-token scope of ListTournaments
MAX_TABLES, MAX_DEALS = 32, 9


def _name(value: str, field: str) -> str:
    value = value.strip()
    if not 1 <= len(value) <= 64:
        raise LedgerError("INVALID_ARGUMENT", f"{field}: 1..64 characters", field=field, min=1, max=64)
    return value


def _between(value: int, low: int, high: int, field: str) -> int:
    if not low <= value <= high:
        raise LedgerError("INVALID_ARGUMENT", f"{field}: {low}..{high}", field=field, min=low, max=high)
    return value


class TournamentService(pb_grpc.TournamentServiceServicer):
    def __init__(self, store: TournamentStore, tables: Tables | None, *, verifier: Verifier | None) -> None:
        self.store, self.tables, self.verifier = store, tables, verifier

    async def _me(self, context) -> str | None:
        return await optional_player(context, self.verifier) if self.verifier is not None else None

    async def _signed_in(self, context) -> str:
        if self.verifier is None:
            raise LedgerError("UNAUTHENTICATED", "sign in first", field="authorization")
        return await require_player(context, self.verifier)

    def _viewer(self, me: str | None) -> Viewer:
        return Viewer(me, getattr(self.store.ledger, "handle_secret", DEV_HANDLE_SECRET))

    async def _load(self, tournament_id: str) -> Tournament:
        if not tournament_id or len(tournament_id) > MAX_ID:
            raise LedgerError("INVALID_ARGUMENT", "tournament_id is required", field="tournament_id", limit=MAX_ID)
        t = await self.store.load(tournament_id)
        if t is None:
            raise LedgerError("TOURNAMENT_NOT_FOUND", "no such tournament", field="tournament_id")
        return t

    @staticmethod
    def _state(t: Tournament, wanted: str, **params: object) -> None:
        if t.status != wanted:
            raise LedgerError("TOURNAMENT_WRONG_STATE", f"the tournament is {t.status}", status=t.status,
                              wanted=wanted, **params)

    @staticmethod
    def _organiser(t: Tournament, me: str) -> None:
        if t.organiser != me:
            raise LedgerError("TOURNAMENT_NOT_ORGANISER", "only the organiser may", field="tournament_id")

    @_rpc
    async def CreateTournament(self, request: pb.CreateTournamentRequest, context) -> pb.CreateTournamentResponse:
        me = await self._signed_in(context)
        name, organiser_name = _name(request.name, "name"), _name(request.organiser_name, "organiser_name")
        rounds = request.rounds or 1
        # the room's own conversion and checks (INVALID_OPTIONS naming rules.*, rounds or seat_count), so
        # a tournament takes exactly the tables its rooms' CreateRoom takes
        seats = table_options(request.rules, request.seat_count or None, rounds=rounds).seat_count
        deals = _between(request.deals, 1, MAX_DEALS, "deals")
        _between(request.tables, 0, MAX_TABLES, "tables")
        _between(request.turn_seconds, 0, 600, "turn_seconds")
        if not (math.isfinite(request.start_at) and request.start_at >= 0):
            raise LedgerError("INVALID_ARGUMENT", "start_at: Unix seconds", field="start_at")
        tournament_id = "t-" + secrets.token_hex(8)
        await self.store.create(
            tournament_id=tournament_id, name=name, organiser=me, organiser_name=organiser_name,
            rules=request.rules.SerializeToString(), rounds=rounds, seat_count=seats,
            turn_seconds=request.turn_seconds or 30, deals=deals, tables=request.tables,
            bot_level=request.bot_level, start_at=request.start_at,
            seeds=json.dumps([secrets.randbits(63) for _ in range(deals)]), created_at=time.time())
        log.info("tournament_created", tournament_id=tournament_id, deals=deals, tables=request.tables)
        t = await self._load(tournament_id)
        return pb.CreateTournamentResponse(tournament=msg.tournament_to_proto(t, self._viewer(me)))

    @_rpc
    async def ListTournaments(self, request: pb.ListTournamentsRequest, context) -> pb.ListTournamentsResponse:
        size = min(request.page_size or 50, 200)
        offset = pagetoken.decode(request.page_token, scope=SCOPE)
        who = self._viewer(await self._me(context))
        page = await self.store.page(offset, size + 1)
        out = pb.ListTournamentsResponse(tournaments=[msg.tournament_to_proto(t, who) for t in page[:size]])
        if len(page) > size:
            out.next_page_token = pagetoken.encode(offset + size, scope=SCOPE)
        return out

    @_rpc
    async def GetTournament(self, request: pb.GetTournamentRequest, context) -> pb.GetTournamentResponse:
        t = await self._load(request.tournament_id)
        return pb.GetTournamentResponse(tournament=msg.tournament_to_proto(t, self._viewer(await self._me(context))))

    @_rpc
    async def EnterTournament(self, request: pb.EnterTournamentRequest, context) -> pb.EnterTournamentResponse:
        me = await self._signed_in(context)
        t = await self._load(request.tournament_id)
        name = _name(request.player_name, "player_name")
        cap = t.tables * t.seat_count if t.tables else MAX_TABLES * t.seat_count
        outcome = await self.store.enter(t.tournament_id, me, name, cap)
        if outcome == "full":
            raise LedgerError("TOURNAMENT_FULL", "every seat is taken", seats=cap)
        if outcome not in ("entered", "again"):
            raise LedgerError("TOURNAMENT_WRONG_STATE", f"the tournament is {outcome}", status=outcome, wanted=OPEN)
        t = await self._load(t.tournament_id)
        return pb.EnterTournamentResponse(tournament=msg.tournament_to_proto(t, self._viewer(me)))

    @_rpc
    async def StartTournament(self, request: pb.StartTournamentRequest, context) -> pb.StartTournamentResponse:
        me = await self._signed_in(context)
        t = await self._load(request.tournament_id)
        self._organiser(t, me)
        self._state(t, OPEN)
        if self.tables is None:
            raise LedgerError("ROOM_UNAVAILABLE", "no room service configured (HAND_LEDGER_ROOM_ADDRESS)")
        level = None
        if request.HasField("bot_level"):
            if request.bot_level not in room_pb2.BotLevel.values():
                raise LedgerError("INVALID_ARGUMENT", "bot_level: a BotLevel", field="bot_level")
            level = request.bot_level or None
        if not await start(self.tables, t, by="organiser", bot_level=level):
            self._state(await self._load(t.tournament_id), OPEN)
        t = await self._load(t.tournament_id)
        return pb.StartTournamentResponse(tournament=msg.tournament_to_proto(t, self._viewer(me)))

    @_rpc
    async def CloseTournament(self, request: pb.CloseTournamentRequest, context) -> pb.CloseTournamentResponse:
        me = await self._signed_in(context)
        t = await self._load(request.tournament_id)
        self._organiser(t, me)
        self._state(t, RUNNING)
        total = t.tables * t.deals
        if t.played < total:
            raise LedgerError("TOURNAMENT_WRONG_STATE", "deals are still being played", status=t.status,
                              wanted="every deal over", deals_played=t.played, deals_total=total)
        if not await self.store.close(t.tournament_id):
            self._state(await self._load(t.tournament_id), RUNNING)
        log.info("tournament_closed", tournament_id=t.tournament_id)
        t = await self._load(t.tournament_id)
        return pb.CloseTournamentResponse(tournament=msg.tournament_to_proto(t, self._viewer(me)))

    @_rpc
    async def GetMyTable(self, request: pb.GetMyTableRequest, context) -> pb.GetMyTableResponse:
        me = await self._signed_in(context)
        t = await self._load(request.tournament_id)
        mine = next((e for e in t.entrants if e.player_id == me), None)
        if mine is None:
            raise LedgerError("TOURNAMENT_NOT_ENTERED", "you have not entered", field="tournament_id")
        if t.status == OPEN or mine.table is None:
            raise LedgerError("TOURNAMENT_WRONG_STATE", "not started yet", status=t.status, wanted=RUNNING)
        return pb.GetMyTableResponse(table=mine.table, seat=mine.seat,
                                     rooms=msg.rooms_to_proto(t, table=mine.table, seat=mine.seat))

    @_rpc
    async def GetTournamentStandings(self, request: pb.GetTournamentStandingsRequest, context
                                     ) -> pb.GetTournamentStandingsResponse:
        t = await self._load(request.tournament_id)
        if t.status != CLOSED:
            raise LedgerError("TOURNAMENT_RESULTS_HIDDEN", "results are shown once it is closed", status=t.status)
        results = [Result(r.table, r.deal, seat, score)
                   for r in t.rooms if r.room_id
                   for seat, score in (await self.store.seat_scores(r.room_id)).items()]
        return msg.standings_to_proto(t, results, self._viewer(await self._me(context)))
