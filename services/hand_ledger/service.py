"""``LedgerService`` handlers: decode, read, encode (see proto/hand/v1/ledger_service.proto)."""

from __future__ import annotations

import asyncio

import grpc
import structlog
from google.protobuf.message import DecodeError

from hand.v1 import ledger_service_pb2 as pb
from hand.v1 import ledger_service_pb2_grpc as pb_grpc
from hand_common import pagetoken
from hand_common.accounts import MAX_HANDLE
from hand_common.identity import Verifier, optional_player
from hand_common.limits import DEFAULT_PAGE_SIZE, MAX_ID, MAX_PAGE_SIZE
from hand_common.rpc import rpc
from hand_engine import RuleViolation
from hand_table import for_seat, verify_deals

from . import grpc_messages, handles, reads
from .caught_up import caught_up
from .privacy import Viewer
from .replay import check
from .replay_cache import Replays
from .settings import DEV_HANDLE_SECRET
from .status import STATUS, LedgerError
from .store import LedgerStore

log = structlog.get_logger("hand_ledger.service")
LEADERBOARD = "leaderboard"  # the page-token scope of GetLeaderboard


_rpc = rpc(log, refuse=STATUS.refuse, bind=lambda request: {"room_id": getattr(request, "room_id", None) or None})


def _room_id(room_id: str) -> str:
    if not room_id or len(room_id) > MAX_ID:
        raise LedgerError("INVALID_ARGUMENT", "room_id is required", field="room_id", limit=MAX_ID)
    return room_id


class LedgerService(pb_grpc.LedgerServiceServicer):
    def __init__(self, store: LedgerStore, replays: Replays | None = None, *,
                 verifier: Verifier | None = None, min_seq_wait_s: float) -> None:
        self.store = store
        self.min_seq_wait_s = min_seq_wait_s  # the longest a read with min_seq waits (caught_up.py)
        self.replays = replays or Replays(store)
        self.verifier = verifier  # None: no session tokens accepted (every caller is anonymous)

    async def _viewer(self, context: grpc.aio.ServicerContext) -> Viewer:
        """Who is asking (docs/privacy.md): the verified session's player, or nobody."""
        me = await optional_player(context, self.verifier) if self.verifier is not None else None
        return Viewer(me, getattr(self.store, "handle_secret", DEV_HANDLE_SECRET))

    async def _sheet(self, room_id: str, request=None) -> reads.Sheet:
        if request is not None and request.HasField("min_seq"):  # read your writes, bounded
            await caught_up(self.store, _room_id(room_id), request.min_seq, self.min_seq_wait_s)
        async with self.store.read() as conn:
            sheet = await reads.load_sheet(conn, _room_id(room_id))
        if sheet is None:
            raise LedgerError("ROOM_NOT_FOUND", "the ledger has no such room")
        return sheet

    @_rpc
    async def GetScoreSheet(self, request: pb.GetScoreSheetRequest, context) -> pb.GetScoreSheetResponse:
        sheet = await self._sheet(request.room_id, request)
        return pb.GetScoreSheetResponse(sheet=grpc_messages.sheet_to_proto(sheet, await self._viewer(context)))

    @_rpc
    async def GetMatchResult(self, request: pb.GetMatchResultRequest, context) -> pb.GetMatchResultResponse:
        sheet = await self._sheet(request.room_id, request)
        async with self.store.read() as conn:
            outcome = await reads.load_outcome(conn, request.room_id)
        return pb.GetMatchResultResponse(result=grpc_messages.match_to_proto(
            request.room_id, sheet, outcome, await self._viewer(context)))

    @_rpc
    async def GetPlayerStats(self, request: pb.GetPlayerStatsRequest, context) -> pb.GetPlayerStatsResponse:
        who = await self._viewer(context)
        async with self.store.read() as conn:
            player_id = await self._stats_of(request, who, conn)
            stats = await reads.load_player(conn, player_id) if player_id else None
        if stats is None:
            raise LedgerError("PLAYER_NOT_FOUND", "no such player")
        return pb.GetPlayerStatsResponse(stats=grpc_messages.stats_to_proto(stats, who))

    async def _stats_of(self, request: pb.GetPlayerStatsRequest, who: Viewer, conn) -> str | None:
        """Whose statistics are asked for: a public handle's account, or the caller's own id
        (another player's id is refused: PLAYER_ID_PRIVATE)."""
        if request.handle:
            if len(request.handle) > MAX_HANDLE:
                raise LedgerError("LIMIT_EXCEEDED", "handle too long", field="handle", limit=MAX_HANDLE)
            return await handles.resolve(conn, request.handle)
        if not request.player_id:
            if who.me is None:
                await self._me_required()
            return who.me
        if len(request.player_id) > MAX_ID:
            raise LedgerError("LIMIT_EXCEEDED", "player_id too long", field="player_id", limit=MAX_ID)
        if request.player_id != who.me:
            raise LedgerError("PLAYER_ID_PRIVATE", "another player's account id", field="player_id")
        return who.me

    async def _me_required(self) -> None:
        """Refuse a request for the caller's own statistics from an anonymous caller."""
        if self.verifier is None:
            raise LedgerError("INVALID_ARGUMENT", "handle is required", field="handle")
        raise LedgerError("UNAUTHENTICATED", "sign in first", field="authorization")

    @_rpc
    async def GetLeaderboard(self, request: pb.GetLeaderboardRequest, context) -> pb.GetLeaderboardResponse:
        size = min(request.page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
        offset = pagetoken.decode(request.page_token, scope=LEADERBOARD)
        who = await self._viewer(context)
        async with self.store.read() as conn:
            rows = await reads.leaderboard(conn, offset=offset, limit=size + 1,
                                           min_matches=request.min_matches)
        out = pb.GetLeaderboardResponse()
        for i, stats in enumerate(rows[:size]):
            out.entries.add(rank=offset + i + 1, stats=grpc_messages.stats_to_proto(stats, who))
        if len(rows) > size:
            out.next_page_token = pagetoken.encode(offset + size, scope=LEADERBOARD)
        return out

    @_rpc
    async def GetReplay(self, request: pb.GetReplayRequest, context) -> pb.GetReplayResponse:
        try:
            steps = await self.replays.steps(_room_id(request.room_id))
        except LedgerError:
            raise
        except Exception as exc:
            log.exception("replay_fold_failed")
            raise LedgerError("REPLAY_BROKEN", str(exc)) from None
        if not steps:
            raise LedgerError("ROOM_NOT_FOUND", "the ledger has no such room")
        last = steps[-1].room
        over = last.status == "finished"
        seat = None
        if request.seat_token:  # hand.room-events has no token hashes: never one the ledger can check
            raise LedgerError("SEAT_TOKEN_INVALID", "the ledger takes no seat token", field="seat_token")
        if request.HasField("seat"):
            if request.seat >= last.n:
                raise LedgerError("INVALID_ARGUMENT", "no such seat", field="seat", min=0, max=last.n - 1)
            if not over:
                raise LedgerError("SEAT_TOKEN_INVALID", "a seat's view only once the match is over",
                                  field="seat")
            seat = request.seat
        step = request.step if request.HasField("step") else len(steps) - 1
        if step >= len(steps):
            raise LedgerError("SEQ_OUT_OF_RANGE", "step is past the archived events", field="step",
                              step=step, next_seq=len(steps))
        if request.from_seq > step:
            raise LedgerError("INVALID_ARGUMENT", "from_seq must be at most step", field="from_seq",
                              max=step)
        return grpc_messages.replay_to_proto(request.room_id, steps, step, request.from_seq, seat, over)

    @_rpc
    async def CheckReplay(self, request: pb.CheckReplayRequest, context) -> pb.CheckReplayResponse:
        try:
            async with self.store.read() as conn:
                archived = await reads.load_events(conn, _room_id(request.room_id))
        except (DecodeError, RuleViolation, ValueError, KeyError) as exc:  # a corrupted archive row
            raise LedgerError("REPLAY_BROKEN", str(exc)) from None
        if not archived:
            raise LedgerError("ROOM_NOT_FOUND", "the ledger has no such room")
        return grpc_messages.check_to_proto(await asyncio.to_thread(check, archived))

    @_rpc
    async def VerifyDeal(self, request: pb.VerifyDealRequest, context) -> pb.VerifyDealResponse:
        """Decision 0022: the room's deals verified from its public record (each archived event
        as hand.room-events-public carries it), as anyone could from that topic."""
        room_id = _room_id(request.room_id)
        try:
            async with self.store.read() as conn:
                archived = await reads.load_events(conn, room_id)
            if not archived:
                raise LedgerError("ROOM_NOT_FOUND", "the ledger has no such room")
            checks = await asyncio.to_thread(verify_deals, [for_seat(r, None) for r in archived])
        except (DecodeError, RuleViolation, ValueError, KeyError) as exc:  # a corrupted archive row
            raise LedgerError("REPLAY_BROKEN", str(exc)) from None
        return grpc_messages.deals_to_proto(room_id, checks)
