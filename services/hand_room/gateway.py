"""hand.v1.RoomService: the gRPC face of the room service (any instance).

Handlers decode, send a command to the room's owner through Kafka (or read
the store), and encode. Watch streams catch up from the event store, then
follow ``hand.room-events``, de-duplicated by seq.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import time
import uuid
from collections import Counter
from typing import Any

import grpc
import structlog

from hand.v1 import room_service_pb2 as pb
from hand.v1 import room_service_pb2_grpc as pb_grpc
from hand_engine import RuleViolation, resolve
from hand_infra.eventstore import EventStore
from hand_rules.convert import action_from_proto, selection_from_proto
from hand_rules.messages import language

from .codec import action_json
from .errors import RoomCode, RoomError
from .fold import evolve
from .index import RoomIndex
from .messages import command
from .model import Room
from .bus import Bus
from .status import to_status
from .wire import LEVEL_NAMES, room_info, step, watch_message

log = structlog.get_logger("hand_room.gateway")
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
MAX_ID = 128


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest() if token else ""


def _lang(context: grpc.aio.ServicerContext) -> str:
    for key, value in context.invocation_metadata() or ():
        if key == "accept-language":
            return language(value if isinstance(value, str) else value.decode("latin-1"))
    return language(None)


async def _abort(context, code: str, detail: str = "", params: dict | None = None) -> None:
    status = to_status(code, params or {}, _lang(context))
    await context.abort(status.code, status.details, status.trailing_metadata)


def _rpc(fn):
    name = fn.__name__

    async def call(self, request, context):
        started = time.perf_counter()
        code = "OK"
        room_id = getattr(request, "room_id", "") if hasattr(request, "room_id") else ""
        with structlog.contextvars.bound_contextvars(room_id=room_id or None, rpc=name):
            try:
                return await fn(self, request, context)
            except RoomError as exc:
                code = exc.code
                await _abort(context, exc.code, exc.detail, exc.params)
            except RuleViolation as exc:
                code = exc.code.value
                await _abort(context, exc.code.value, exc.detail, exc.params)
            finally:
                log.info("rpc", code=code, duration_ms=round((time.perf_counter() - started) * 1000, 2))

    call.__name__ = name
    return call


class RoomGateway(pb_grpc.RoomServiceServicer):
    def __init__(self, bus: Bus, store: EventStore, index: RoomIndex, *, presence_grace_s: float = 10.0) -> None:
        self.bus, self.store, self.index = bus, store, index
        self.grace = presence_grace_s
        self._streams: Counter[tuple[str, int]] = Counter()

    # ----------------------------------------------------------------- helpers
    async def _load(self, room_id: str) -> Room:
        if not room_id or len(room_id) > MAX_ID:
            raise RoomError("INVALID_ARGUMENT", "room_id is required")
        room = None
        for ev in await self.store.load(room_id):
            room = evolve(room, ev.kind, ev.payload, ev.seq, ev.created_at.timestamp())
        if room is None:
            raise RoomError(RoomCode.ROOM_NOT_FOUND, "no such room")
        return room

    async def _call(self, cmd: dict[str, Any]) -> dict[str, Any]:
        reply = await self.bus.send(cmd)
        if not reply["ok"]:
            raise RoomError(reply["code"], reply.get("message", ""), **reply.get("params", {}))
        return reply

    # ----------------------------------------------------------------- rooms
    @_rpc
    async def CreateRoom(self, request: pb.CreateRoomRequest, context) -> pb.CreateRoomResponse:
        preset = request.rules.preset or "hand"
        effective = selection_from_proto(request.rules)
        base = resolve(preset).to_dict()
        overrides = {k: v for k, v in effective.to_dict().items() if base[k] != v}
        token = secrets.token_urlsafe(24)
        room_id = uuid.uuid4().hex
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(6))
        payload = {
            "code": code, "public": request.visibility == pb.ROOM_VISIBILITY_PUBLIC,
            "preset": preset, "overrides": overrides, "rounds": request.rounds or None,
            "seats": request.seat_count or 4, "turn_seconds": request.turn_seconds or 30,
            "player_id": request.player_id[:MAX_ID], "name": request.player_name[:64],
        }
        await self._call(command(room_id, "create", token_hash=token_hash(token), payload=payload))
        return pb.CreateRoomResponse(room=room_info(await self._load(room_id)), seat=0, seat_token=token)

    @_rpc
    async def ListRooms(self, request: pb.ListRoomsRequest, context) -> pb.ListRoomsResponse:
        size = min(request.page_size or 50, 200)
        offset = int(request.page_token) if request.page_token.isdigit() else 0
        rows = await self.index.public_open(limit=size + 1, offset=offset)
        out = pb.ListRoomsResponse()
        for r in rows[:size]:
            out.rooms.add(room_id=r["room_id"], preset=r["preset"], seat_count=r["seats"],
                          free_seats=r["free_seats"], created_at=r["created_at"])
        if len(rows) > size:
            out.next_page_token = str(offset + size)
        return out

    @_rpc
    async def GetRoom(self, request: pb.GetRoomRequest, context) -> pb.GetRoomResponse:
        return pb.GetRoomResponse(room=room_info(await self._load(request.room_id)))

    @_rpc
    async def JoinRoom(self, request: pb.JoinRoomRequest, context) -> pb.JoinRoomResponse:
        if request.WhichOneof("target") == "join_code":
            room_id = await self.index.by_code(request.join_code.strip().upper())
            if room_id is None:
                raise RoomError(RoomCode.ROOM_NOT_FOUND, "no room with that code")
        else:
            room_id = request.room_id
            await self._load(room_id)
        token = secrets.token_urlsafe(24)
        payload = {"player_id": request.player_id[:MAX_ID], "name": request.player_name[:64]}
        if request.HasField("seat"):
            payload["seat"] = request.seat
        reply = await self._call(command(room_id, "join", token_hash=token_hash(token), payload=payload))
        room = await self._load(room_id)
        return pb.JoinRoomResponse(room=room_info(room), seat=reply["result"]["seat"], seat_token=token)

    @_rpc
    async def LeaveRoom(self, request: pb.LeaveRoomRequest, context) -> pb.LeaveRoomResponse:
        await self._call(command(request.room_id, "leave", token_hash=token_hash(request.seat_token)))
        return pb.LeaveRoomResponse(room=room_info(await self._load(request.room_id)))

    @_rpc
    async def FillWithBots(self, request: pb.FillWithBotsRequest, context) -> pb.FillWithBotsResponse:
        level = LEVEL_NAMES.get(request.level, "beginner")
        await self._call(command(request.room_id, "fill_bots", token_hash=token_hash(request.seat_token),
                                 payload={"level": level}))
        return pb.FillWithBotsResponse(room=room_info(await self._load(request.room_id)))

    @_rpc
    async def StartMatch(self, request: pb.StartMatchRequest, context) -> pb.StartMatchResponse:
        payload = {"seed": request.seed} if request.HasField("seed") else {}
        await self._call(command(request.room_id, "start", token_hash=token_hash(request.seat_token),
                                 payload=payload))
        return pb.StartMatchResponse(room=room_info(await self._load(request.room_id)))

    @_rpc
    async def Act(self, request: pb.ActRequest, context) -> pb.ActResponse:
        if not request.action_id or len(request.action_id) > MAX_ID:
            raise RoomError("INVALID_ARGUMENT", "action_id is required (at most 128 characters)")
        if not request.room_id or not request.seat_token:
            raise RoomError("INVALID_ARGUMENT", "room_id and seat_token are required")
        payload: dict[str, Any] = {"action": action_json(action_from_proto(request.action))}
        if request.HasField("expected_seq"):
            payload["expected_seq"] = request.expected_seq
        reply = await self._call(command(request.room_id, "act", token_hash=token_hash(request.seat_token),
                                         action_id=request.action_id, payload=payload))
        seqs = reply["seqs"] or [0]
        return pb.ActResponse(first_seq=seqs[0], last_seq=seqs[-1],
                              duplicate=bool(reply["result"].get("duplicate")))

    # ----------------------------------------------------------------- watch
    async def Watch(self, request: pb.WatchRequest, context):
        room_id = request.room_id
        queue = self.bus.subscribe(room_id)
        try:
            with structlog.contextvars.bound_contextvars(room_id=room_id, rpc="Watch"):
                try:
                    async for msg in self._watch(request, queue, context):
                        yield msg
                except RoomError as exc:
                    await _abort(context, exc.code, exc.detail, exc.params)
        finally:
            self.bus.unsubscribe(room_id, queue)

    async def _watch(self, request: pb.WatchRequest, queue: asyncio.Queue, context):
        room_id = request.room_id
        stored = await self.store.load(room_id)
        if not stored:
            raise RoomError(RoomCode.ROOM_NOT_FOUND, "no such room")
        room: Room | None = None
        for ev in stored:
            room = evolve(room, ev.kind, ev.payload, ev.seq, ev.created_at.timestamp())
        seat: int | None = None
        if request.seat_token:
            seat = room.seat_of_token(token_hash(request.seat_token))
            if seat is None:
                raise RoomError(RoomCode.SEAT_TOKEN_INVALID, "this seat token is not valid for this room")
        from_seq = min(request.from_seq, room.seq)
        # replay to from_seq, snapshot, then the stored tail, then live events
        room = None
        tail = []
        for ev in stored:
            if ev.seq < from_seq:
                room = evolve(room, ev.kind, ev.payload, ev.seq, ev.created_at.timestamp())
            else:
                tail.append(ev)
        if room is not None:
            yield watch_message(room, from_seq, None, seat)
        presence = seat is not None
        if presence:
            self._streams[(room_id, seat)] += 1
            await self.bus.send(command(room_id, "presence", token_hash=token_hash(request.seat_token),
                                        payload={"connected": True, "at": time.time()}), wait=False)
        try:
            next_seq = from_seq
            for ev in tail:
                room, rendered = step(room, ev.kind, ev.payload, ev.seq, ev.created_at.timestamp(), seat)
                yield watch_message(room, ev.seq, rendered, seat)
                next_seq = ev.seq + 1
            while True:
                live = await queue.get()
                if live["seq"] < next_seq:
                    continue
                batch = [live] if live["seq"] == next_seq else [
                    {"seq": e.seq, "kind": e.kind, "payload": e.payload, "at": e.created_at.timestamp()}
                    for e in await self.store.load(room_id, next_seq)]
                for e in batch:
                    if e["seq"] != next_seq:
                        continue
                    room, rendered = step(room, e["kind"], e["payload"], e["seq"], e.get("at") or time.time(), seat)
                    yield watch_message(room, e["seq"], rendered, seat)
                    next_seq += 1
        finally:
            if presence:
                self._streams[(room_id, seat)] -= 1
                asyncio.ensure_future(self._gone(room_id, seat, request.seat_token, time.time()))

    async def _gone(self, room_id: str, seat: int, token: str, closed_at: float) -> None:
        await asyncio.sleep(self.grace)
        if self._streams[(room_id, seat)] > 0:
            return
        try:
            await self.bus.send(command(room_id, "presence", token_hash=token_hash(token),
                                        payload={"connected": False, "at": closed_at}), wait=False)
        except Exception:
            log.exception("presence_send_failed", room_id=room_id, seat=seat)
