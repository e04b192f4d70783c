"""RoomService.Chat at the gateway: who sends (a seat, by its token; a spectator, by
the signed-in session), how often (a token bucket per sender and room), then the
``Chat`` command through the room's one command path (``CommandRouter`` → the owner's
``decide``), which appends a ``chat_sent`` event (docs/decisions/0025-quick-chat.md).

Refusals: ``UNKNOWN_PHRASE`` (INVALID_ARGUMENT, field ``phrase``) before anything else
is looked at; a spectator without a session ``UNAUTHENTICATED`` (field
``authorization``); too many phrases ``RATE_LIMITED`` (RESOURCE_EXHAUSTED, params
``limit`` = ``chat_per_sender``, ``per_s``, ``retry_after_ms``); the seat token's own
refusals as for Act. Like Act, Chat is served by the room's owner (``ROOM_MOVED``
elsewhere), so one instance's buckets see every phrase of a room's senders.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import grpc

from hand.v1 import room_service_pb2 as pb
from hand_common.identity import Verifier, optional_player
from hand_common.ratelimit import Buckets
from hand_table import check_phrase, phrase_name, spectator_key, Chat, Command, RoomError

from . import limits
from .router import CommandRouter
from .seat_access import SeatAccess

#: senders tracked at once per instance (least recently seen dropped first)
TRACKED = 100_000
LIMIT = "chat_per_sender"


class ChatLimits:
    """``per_min`` phrases a minute per sender and room, up to ``burst`` at once (0: no limit)."""

    def __init__(self, per_min: int, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_min = per_min
        self._buckets = Buckets(per_min / 60, max(1, burst), TRACKED, clock)

    def take(self, key: str) -> None:
        if self.per_min <= 0:
            return
        wait = self._buckets.take(key)
        if wait > 0:
            raise RoomError("RATE_LIMITED", "too many chat phrases", limit=LIMIT,
                            per_s=round(self.per_min / 60, 3), retry_after_ms=math.ceil(wait * 1000))


class QuickChat:
    def __init__(self, router: CommandRouter, access: SeatAccess, verifier: Verifier | None,
                 chat_limits: ChatLimits) -> None:
        self.router, self.access, self.verifier, self.limits = router, access, verifier, chat_limits

    async def _spectator(self, context: grpc.aio.ServicerContext, room_id: str) -> str:
        """A spectator's per-room key, from the call's session (a guest cannot chat unseated)."""
        player = await optional_player(context, self.verifier) if self.verifier is not None else None
        if player is None:
            raise RoomError("UNAUTHENTICATED", "a spectator chats signed in", field="authorization")
        return spectator_key(room_id, player)

    async def send(self, request: pb.ChatRequest, context: grpc.aio.ServicerContext) -> pb.ChatResponse:
        room_id = limits.room_id(request.room_id)
        self.router.redirect(room_id, context.invocation_metadata())  # the owner serves chat, as Act
        phrase = check_phrase(phrase_name(request.phrase), request.phrase)
        seat: int | None = None
        spectator = ""
        if request.seat_token:
            _, seat = await self.access.seat(context, room_id, request.seat_token)
        else:
            spectator = await self._spectator(context, room_id)
        self.limits.take(f"{room_id}/{spectator or seat}")
        body = Chat(phrase, spectator)
        self.router.admit(room_id, body)  # past capacity: refused before any work
        reply = await self.router.send(Command(room_id, body, seat=seat))
        if not reply.ok:
            raise RoomError(reply.code, "", **reply.params)
        return pb.ChatResponse(seq=reply.seqs[0] if reply.seqs else 0)
