"""Room-level refusals with stable codes (extending the engine's rule codes).

Codes only: which gRPC status each code gets is the room service's edge
(``hand_room.status``)."""

from __future__ import annotations

import enum
from typing import Any

from hand_common.refused import Refusal


class RoomCode(enum.Enum):
    ROOM_NOT_FOUND = "ROOM_NOT_FOUND"
    ROOM_EXISTS = "ROOM_EXISTS"
    ROOM_FULL = "ROOM_FULL"
    SEAT_TAKEN = "SEAT_TAKEN"
    SEAT_TOKEN_INVALID = "SEAT_TOKEN_INVALID"
    NOT_HOST = "NOT_HOST"
    MATCH_STARTED = "MATCH_STARTED"
    MATCH_NOT_STARTED = "MATCH_NOT_STARTED"
    NOT_ENOUGH_PLAYERS = "NOT_ENOUGH_PLAYERS"
    STALE_ACTION = "STALE_ACTION"
    ACTION_ID_REUSED = "ACTION_ID_REUSED"
    ROOM_UNAVAILABLE = "ROOM_UNAVAILABLE"
    MATCH_OVER = "MATCH_OVER"
    SEQ_OUT_OF_RANGE = "SEQ_OUT_OF_RANGE"
    INTERNAL = "INTERNAL"
    JOIN_CODE_REQUIRED = "JOIN_CODE_REQUIRED"
    SEAT_EMPTY = "SEAT_EMPTY"
    SEAT_PLAYER_MISMATCH = "SEAT_PLAYER_MISMATCH"
    SEAT_TOKEN_EXPIRED = "SEAT_TOKEN_EXPIRED"
    ROOM_MOVED = "ROOM_MOVED"
    OVERLOADED = "OVERLOADED"
    UNKNOWN_PHRASE = "UNKNOWN_PHRASE"
    TICKET_NOT_FOUND = "TICKET_NOT_FOUND"
    TICKET_EXISTS = "TICKET_EXISTS"
    TICKET_SEATED = "TICKET_SEATED"
    SEAT_SEED_FIXED = "SEAT_SEED_FIXED"


class RoomError(Refusal):
    """A refused room command; nothing changed."""

    def __init__(self, code: RoomCode | str, detail: str = "", **params: Any) -> None:
        super().__init__(code.value if isinstance(code, RoomCode) else code, detail, **params)
