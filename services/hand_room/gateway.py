"""hand.v1.RoomService: the gRPC face of the room service (any instance).

A handler checks the request at the door (``limits``), authenticates the seat
token against the room (the token never travels further: commands name the
seat), sends the command to the room's owner and answers from the repository.
Watch: the access checks here, then a snapshot, the stored tail and the room's live
feed (``watch.py``).
"""

from __future__ import annotations

import asyncio
import secrets
import time

import grpc
import structlog

from hand.v1 import room_service_pb2 as pb
from hand.v1 import room_service_pb2_grpc as pb_grpc
from hand.v1 import room_pb2
from hand_common import pagetoken
from hand_common.identity import Verifier
from hand_common.language import language_of
from hand_common.logging import bound_context
from hand_common.rpc import rpc
from hand_engine import check_seat_seed
from hand_infra.eventstore import EventStore
from hand_wire import action_from_proto, table_options, LEVEL_NAMES, Reply
from hand_table import (
    Room, token_hash, Act, ComeBack, Command, CreateRoom, FillWithBots, JoinRoom, LeaveRoom,
    RemovePlayer, StartMatch, RoomCode, RoomError,
)

from . import limits
from .feeds import Feeds
from .index import RoomIndex
from .router import CommandRouter
from .repository import RoomRepository
from . import metrics as M
from .creation import CreationLimits
from .quick_chat import ChatLimits, QuickChat
from .matchmaking import Matchmaker, PlayNow, RatingsPort, Schedule
from .seat_access import SeatAccess
from .watch import WatchStreams
from .status import STATUS, to_status
from .grpc_messages import room_info

log = structlog.get_logger("hand_room.gateway")
DEFAULT_PRESET = "hand"
LIST_ROOMS = "rooms"  # the scope of ListRooms page tokens (hand_common.pagetoken)
#: after an ownership change, how long before open streams are announced to the owners
#: (the new owner takes its partitions after the map arrives)
ANNOUNCE_DELAY_S = 1.0


def _lang(context: grpc.aio.ServicerContext) -> str:
    return language_of(context.invocation_metadata())


async def _abort(context, code: str, params: dict | None = None) -> None:
    status = to_status(code, params or {}, _lang(context))
    await context.abort(status.code, status.details, status.trailing_metadata)


def _bind(request) -> dict:
    return {"room_id": limits.loggable_room_id(getattr(request, "room_id", "") or "")}


_rpc = rpc(log, refuse=STATUS.refuse, bind=_bind)


class RoomGateway(pb_grpc.RoomServiceServicer):
    def __init__(self, router: CommandRouter, store: EventStore, index: RoomIndex, repo: RoomRepository,
                 feeds: Feeds, *, verifier: Verifier | None = None, store_timeout_s: float,
                 creation: CreationLimits | None = None, waiting_ttl_s: int = 0,
                 chat_limits: ChatLimits, matchmaker: Matchmaker | None = None,
                 ratings: RatingsPort | None = None, schedule: Schedule | None = None) -> None:
        # store_timeout_s, chat_limits and schedule come from RoomConfig (hand_room.settings)
        self.router, self.store, self.index, self.repo, self.feeds = router, store, index, repo, feeds
        self.store_timeout_s = store_timeout_s  # a room read from the store (not cached) waits this long
        self.verifier = verifier
        self.creation, self.waiting_ttl_s = creation, waiting_ttl_s
        self.access = SeatAccess(lambda room_id, fresh: self._room(room_id, fresh=fresh), verifier)
        self.chat = QuickChat(router, self.access, verifier, chat_limits)
        self.play_now = (PlayNow(router, matchmaker, self.access, ratings, schedule)
                         if matchmaker is not None and ratings is not None and schedule is not None else None)
        self.streams = WatchStreams(router, store, feeds, self._info)
        router.ownership.listeners.append(
            lambda: asyncio.get_running_loop().call_later(ANNOUNCE_DELAY_S, self.streams.announce))

    # ----------------------------------------------------------------- helpers
    async def _room(self, room_id: str, min_seq: int | None = None, fresh: bool = False) -> Room:
        room = self.repo.at_hand(limits.room_id(room_id), min_seq, fresh)  # most calls: no store, no timer
        if room is None:
            async with asyncio.timeout(self.store_timeout_s):  # a hanging store: UNAVAILABLE (_failure)
                room = await self.repo.get(room_id, min_seq=min_seq, fresh=fresh)
        if room is None:
            raise RoomError(RoomCode.ROOM_NOT_FOUND, "no such room")
        return room

    async def _seat(self, context, room_id: str, token: str, *, write: bool = True) -> tuple[Room, int]:
        """The room and the seat ``token`` holds, for this caller (``seat_access``)."""
        return await self.access.seat(context, room_id, token, write=write)

    async def _player(self, context, claimed: str) -> str:
        return await self.access.new_player(context, claimed)

    async def _call(self, cmd: Command) -> Reply:
        reply = await self.router.send(cmd)
        if not reply.ok:
            raise RoomError(reply.code, "", **reply.params)
        return reply

    def _info(self, room: Room, seat: int | None = None) -> room_pb2.RoomInfo:
        """The room's description for ``seat``, naming the instance that serves it."""
        info = room_info(room, seat, now=time.time())
        endpoint = self.router.endpoint(room.room_id)
        if endpoint is not None:
            info.owner.address, info.owner.web_url, info.owner.instance_id = (
                endpoint.address, endpoint.web_url, endpoint.instance_id)
        return info

    async def _info_after(self, room_id: str, reply: Reply, seat: int | None) -> room_pb2.RoomInfo:
        min_seq = reply.seqs[-1] + 1 if reply.seqs else None
        return self._info(await self._room(room_id, min_seq=min_seq), seat)

    # ----------------------------------------------------------------- rooms
    @_rpc
    async def CreateRoom(self, request: pb.CreateRoomRequest, context) -> pb.CreateRoomResponse:
        name = limits.text(request.player_name, "player_name", limits.MAX_NAME)
        player_id = await self._player(context, limits.text(request.player_id, "player_id", limits.MAX_PLAYER_ID))
        turn_seconds = limits.in_range(request.turn_seconds or 30, "turn_seconds", limits.TURN_SECONDS)
        options = table_options(request.rules, request.seat_count or None, rounds=request.rounds)
        if self.creation is not None:
            self.creation.take(player_id, context.peer())
        token = secrets.token_urlsafe(24)
        room_id = self.router.new_room_id()  # one this instance owns: the host's calls stay here
        try:  # the index is a projection: a read it cannot answer in time costs the check, not the room
            async with asyncio.timeout(self.store_timeout_s):
                code = await self.index.free_code()
        except Exception as exc:
            log.warning("join_code_unchecked", error=type(exc).__name__)
            code = limits.new_join_code()
        body = CreateRoom(code=code, public=request.visibility == room_pb2.ROOM_VISIBILITY_PUBLIC,
                          preset=request.rules.preset or DEFAULT_PRESET, options=options,
                          turn_seconds=turn_seconds, player_name=name, player_id=player_id,
                          token_hash=token_hash(token), waiting_ttl_s=self.waiting_ttl_s,
                          seat_seed=_seat_seed(request))
        reply = await self._call(Command(room_id, body))
        return pb.CreateRoomResponse(room=await self._info_after(room_id, reply, 0), seat=0, seat_token=token)

    @_rpc
    async def ListRooms(self, request: pb.ListRoomsRequest, context) -> pb.ListRoomsResponse:
        size = limits.in_range(request.page_size or limits.DEFAULT_PAGE_SIZE, "page_size", (1, limits.MAX_PAGE_SIZE))
        offset = pagetoken.decode(request.page_token, scope=LIST_ROOMS)
        since = time.time() - self.waiting_ttl_s if self.waiting_ttl_s else 0.0  # expired rooms are not listed
        rows = (await self.index.public_playing(limit=size + 1, offset=offset) if request.playing
                else await self.index.public_open(limit=size + 1, offset=offset, created_after=since))
        out = pb.ListRoomsResponse()
        for r in rows[:size]:
            out.rooms.add(room_id=r["room_id"], preset=r["preset"], seat_count=r["seats"],
                          free_seats=r["free_seats"], created_at=r["created_at"])
        if len(rows) > size:
            out.next_page_token = pagetoken.encode(offset + size, scope=LIST_ROOMS)
        return out

    @_rpc
    async def GetRoom(self, request: pb.GetRoomRequest, context) -> pb.GetRoomResponse:
        room_id = limits.room_id(request.room_id)
        return pb.GetRoomResponse(room=self._info(await self._room(room_id, fresh=not self.router.local(room_id))))

    @_rpc
    async def JoinRoom(self, request: pb.JoinRoomRequest, context) -> pb.JoinRoomResponse:
        name = limits.text(request.player_name, "player_name", limits.MAX_NAME)
        player_id = await self._player(context, limits.text(request.player_id, "player_id", limits.MAX_PLAYER_ID))
        if request.WhichOneof("target") == "join_code":
            room_id = await self.index.by_code(limits.join_code(request.join_code))
            if room_id is None:
                raise RoomError(RoomCode.ROOM_NOT_FOUND, "no room with that code")
        elif request.WhichOneof("target") == "room_id":
            room_id = limits.room_id(request.room_id)
            room = await self._room(room_id)
            if not room.public:
                raise RoomError(RoomCode.JOIN_CODE_REQUIRED, "a private room is joined by its code",
                                field="join_code")
        else:
            raise limits.invalid("target", "give room_id or join_code")
        token = secrets.token_urlsafe(24)
        wanted = request.seat if request.HasField("seat") else None
        reply = await self._call(Command(room_id, JoinRoom(name, player_id, token_hash(token), wanted,
                                                           seat_seed=_seat_seed(request))))
        return pb.JoinRoomResponse(room=await self._info_after(room_id, reply, reply.seat), seat=reply.seat,
                                   seat_token=token)

    @_rpc
    async def LeaveRoom(self, request: pb.LeaveRoomRequest, context) -> pb.LeaveRoomResponse:
        _, seat = await self._seat(context, request.room_id, request.seat_token)
        reply = await self._call(Command(request.room_id, LeaveRoom(), seat=seat))
        return pb.LeaveRoomResponse(room=await self._info_after(request.room_id, reply, None))

    @_rpc
    async def FillWithBots(self, request: pb.FillWithBotsRequest, context) -> pb.FillWithBotsResponse:
        _, seat = await self._seat(context, request.room_id, request.seat_token)
        level = LEVEL_NAMES.get(request.level, "beginner") if request.level else "beginner"
        if request.level and request.level not in LEVEL_NAMES:
            raise limits.invalid("level", "unknown bot level", allowed=",".join(LEVEL_NAMES.values()))
        reply = await self._call(Command(request.room_id, FillWithBots(level), seat=seat))
        return pb.FillWithBotsResponse(room=await self._info_after(request.room_id, reply, seat))

    @_rpc
    async def RemovePlayer(self, request: pb.RemovePlayerRequest, context) -> pb.RemovePlayerResponse:
        _, seat = await self._seat(context, request.room_id, request.seat_token)
        if not request.HasField("seat"):
            raise limits.invalid("seat", "seat is required")
        reply = await self._call(Command(request.room_id, RemovePlayer(request.seat), seat=seat))
        return pb.RemovePlayerResponse(room=await self._info_after(request.room_id, reply, seat))

    @_rpc
    async def StartMatch(self, request: pb.StartMatchRequest, context) -> pb.StartMatchResponse:
        _, seat = await self._seat(context, request.room_id, request.seat_token)
        seed = request.seed if request.HasField("seed") else None
        reply = await self._call(Command(request.room_id, StartMatch(seed, _seat_seed(request)), seat=seat))
        return pb.StartMatchResponse(room=await self._info_after(request.room_id, reply, seat))

    @_rpc
    async def Act(self, request: pb.ActRequest, context) -> pb.ActResponse:
        limits.room_id(request.room_id)
        self.router.redirect(request.room_id, context.invocation_metadata())  # before any work
        action_id = limits.action_id(request.action_id)
        if not request.HasField("action"):
            raise limits.invalid("action", "action is required")
        action = action_from_proto(request.action)
        expected = request.expected_seq if request.HasField("expected_seq") else None
        body = Act(action, expected)
        self.router.admit(request.room_id, body)  # past capacity: refused before any work
        _, seat = await self._seat(context, request.room_id, request.seat_token)
        began = time.perf_counter()
        reply = await self._call(Command(request.room_id, body, seat=seat, action_id=action_id))
        M.ACT_TO_COMMIT.labels("local" if self.router.local(request.room_id) else "forwarded").observe(
            time.perf_counter() - began)
        seqs = reply.seqs or (0,)
        return pb.ActResponse(first_seq=seqs[0], last_seq=seqs[-1], duplicate=reply.duplicate)

    @_rpc
    async def Chat(self, request: pb.ChatRequest, context) -> pb.ChatResponse:
        return await self.chat.send(request, context)  # quick_chat.py

    @_rpc
    async def ComeBack(self, request: pb.ComeBackRequest, context) -> pb.ComeBackResponse:
        """An away seat's player takes it back (docs/decisions/0030-seating-and-coming-back.md)."""
        room_id = limits.room_id(request.room_id)
        self.router.redirect(room_id, context.invocation_metadata())  # the owner serves it, as Act
        body = ComeBack()
        self.router.admit(room_id, body)
        _, seat = await self._seat(context, room_id, request.seat_token)
        reply = await self._call(Command(room_id, body, seat=seat))
        return pb.ComeBackResponse(room=await self._info_after(room_id, reply, seat), came_back=bool(reply.seqs))
    # ----------------------------------------------------------------- play now
    def _matching(self) -> PlayNow:
        if self.play_now is None:
            raise RoomError(RoomCode.ROOM_UNAVAILABLE, "play now is not served here", retry_after_ms=1000)
        return self.play_now

    @_rpc
    async def FindMatch(self, request: pb.FindMatchRequest, context) -> pb.FindMatchResponse:
        return await self._matching().find(request, context)  # matchmaking/play_now.py

    @_rpc
    async def GetTicket(self, request: pb.GetTicketRequest, context) -> pb.GetTicketResponse:
        return await self._matching().get(request, context)

    @_rpc
    async def CancelTicket(self, request: pb.CancelTicketRequest, context) -> pb.CancelTicketResponse:
        return await self._matching().cancel(request, context)

    # ----------------------------------------------------------------- watch
    async def Watch(self, request: pb.WatchRequest, context):
        room_id = limits.loggable_room_id(request.room_id)
        with bound_context(room_id=room_id, rpc="Watch"):
            try:
                async for msg in self._watch(request, context):
                    yield msg
            except (asyncio.CancelledError, grpc.aio.AbortError):
                raise
            except Exception as exc:  # the same status as a unary call's (hand_common.status_map)
                status = STATUS.refuse(exc, _lang(context)).status
                await context.abort(status.code, status.details, status.trailing_metadata)

    async def _watch(self, request: pb.WatchRequest, context):
        room_id = limits.room_id(request.room_id)
        self.router.redirect(room_id, context.invocation_metadata())  # the owner serves Watch
        seat: int | None = None
        if request.seat_token:  # a read: a finished match's seat view stays open
            _, seat = await self._seat(context, room_id, request.seat_token, write=False)
        head = await self._room(room_id, fresh=not self.router.local(room_id))  # the owner's cache is the head
        if request.from_seq > head.seq:
            raise RoomError(RoomCode.SEQ_OUT_OF_RANGE, "from_seq is past the room's history",
                            field="from_seq", from_seq=request.from_seq, next_seq=head.seq)
        async for msg in self.streams.serve(room_id, seat, request.from_seq, presence=seat is not None
                                            and head.status != "finished"):  # presence is a write
            yield msg


def _seat_seed(request) -> str | None:
    """A create's, join's or start's seat seed (INVALID_ARGUMENT, field seat_seed, when bad); None: the owner draws one."""
    return check_seat_seed(request.seat_seed) if request.HasField("seat_seed") else None
