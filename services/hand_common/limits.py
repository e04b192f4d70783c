"""Documented limits of every string, bytes, repeated and map field a client can send.

``check(request)`` walks a decoded request (only the fields that are set)
and raises ``Refusal("LIMIT_EXCEEDED", field=<path>, limit=<n>)`` for the
first value over its limit — before any handler runs, so nothing a client
sends reaches a log line, a cache, Kafka or a database unbounded. A field
named in ``LIMITS`` (full protobuf name) has that limit (``None``: only the
gRPC message size limit); every other string or bytes field has
``DEFAULT_STRING`` characters (bytes), every other repeated or map field
``DEFAULT_REPEATED`` items. The table is the contract: docs/contracts.md
lists it, a test keeps the two in step.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from .refusal import Refusal

__all__ = [
    "DEFAULT_PAGE_SIZE", "DEFAULT_REPEATED", "DEFAULT_STRING", "LIMITS", "MAX_ID", "MAX_JOIN_CODE", "MAX_NAME",
    "MAX_PAGE_SIZE", "MAX_ROOM_ID", "MAX_SEAT_TOKEN", "TURN_SECONDS", "check", "limit_of",
]

# The one place of each field's bounds: this table (the door, LIMIT_EXCEEDED) and the
# services' own checks of a field's format (hand_room.limits: INVALID_ARGUMENT) read them.
DEFAULT_STRING = 256
DEFAULT_REPEATED = 256
MAX_ID = 128  # room ids, player ids, action ids (characters a request may carry)
MAX_ROOM_ID = 64  # a room id's format: 1..64 letters, digits, '-' or '_'
MAX_NAME = 64  # player and display names
MAX_SEAT_TOKEN = 64
MAX_JOIN_CODE = 16  # as typed (a join code is 6 characters; spaces and case are forgiven)
MAX_PAGE_TOKEN = 64
MAX_PAGE_SIZE = 200  # rows of a page; page_size 0 asks for DEFAULT_PAGE_SIZE
DEFAULT_PAGE_SIZE = 50
TURN_SECONDS = (1, 600)  # a room's turn time

LIMITS: Mapping[str, int | None] = MappingProxyType({
    # rules service
    "hand.v1.RuleSelection.preset": 32,
    "hand.v1.EchoRequest.payload": None,  # a benchmark baseline: the message size limit only
    # room service
    "hand.v1.CreateRoomRequest.player_name": MAX_NAME,
    "hand.v1.CreateRoomRequest.player_id": MAX_ID,
    "hand.v1.CreateRoomRequest.seat_seed": 64,  # hand_engine's MAX_SEAT_SEED_BYTES (bytes, checked there)
    "hand.v1.ListRoomsRequest.page_token": MAX_PAGE_TOKEN,
    "hand.v1.GetRoomRequest.room_id": MAX_ID,
    "hand.v1.JoinRoomRequest.room_id": MAX_ID,
    "hand.v1.JoinRoomRequest.join_code": MAX_JOIN_CODE,
    "hand.v1.JoinRoomRequest.player_name": MAX_NAME,
    "hand.v1.JoinRoomRequest.player_id": MAX_ID,
    "hand.v1.JoinRoomRequest.seat_seed": 64,
    "hand.v1.LeaveRoomRequest.room_id": MAX_ID,
    "hand.v1.LeaveRoomRequest.seat_token": MAX_SEAT_TOKEN,
    "hand.v1.FillWithBotsRequest.room_id": MAX_ID,
    "hand.v1.FillWithBotsRequest.seat_token": MAX_SEAT_TOKEN,
    "hand.v1.StartMatchRequest.room_id": MAX_ID,
    "hand.v1.StartMatchRequest.seat_token": MAX_SEAT_TOKEN,
    "hand.v1.ActRequest.room_id": MAX_ID,
    "hand.v1.ActRequest.seat_token": MAX_SEAT_TOKEN,
    "hand.v1.ActRequest.action_id": MAX_ID,
    "hand.v1.WatchRequest.room_id": MAX_ID,
    "hand.v1.WatchRequest.seat_token": MAX_SEAT_TOKEN,
    "hand.v1.ChatRequest.room_id": MAX_ID,
    "hand.v1.ChatRequest.seat_token": MAX_SEAT_TOKEN,
    "hand.v1.ComeBackRequest.room_id": MAX_ID,
    "hand.v1.ComeBackRequest.seat_token": MAX_SEAT_TOKEN,
    "hand.v1.FindMatchRequest.preset": 32,
    "hand.v1.FindMatchRequest.player_name": MAX_NAME,
    "hand.v1.FindMatchRequest.player_id": MAX_ID,
    "hand.v1.FindMatchRequest.seat_seed": 64,
    "hand.v1.GetTicketRequest.ticket_id": MAX_ID,
    "hand.v1.GetTicketRequest.seat_token": MAX_SEAT_TOKEN,
    "hand.v1.CancelTicketRequest.ticket_id": MAX_ID,
    "hand.v1.CancelTicketRequest.seat_token": MAX_SEAT_TOKEN,
    # ledger
    "hand.v1.GetScoreSheetRequest.room_id": MAX_ID,
    "hand.v1.GetMatchResultRequest.room_id": MAX_ID,
    "hand.v1.GetPlayerStatsRequest.player_id": MAX_ID,
    "hand.v1.GetPlayerStatsRequest.handle": 64,  # hand_common.accounts.MAX_HANDLE
    "hand.v1.GetLeaderboardRequest.page_token": MAX_PAGE_TOKEN,
    "hand.v1.GetReplayRequest.room_id": MAX_ID,
    "hand.v1.GetReplayRequest.seat_token": MAX_SEAT_TOKEN,
    "hand.v1.CheckReplayRequest.room_id": MAX_ID,
    "hand.v1.VerifyDealRequest.room_id": MAX_ID,
    # tournaments (served by the ledger)
    "hand.v1.CreateTournamentRequest.name": 64,
    "hand.v1.CreateTournamentRequest.organiser_name": 64,
    "hand.v1.ListTournamentsRequest.page_token": 64,
    "hand.v1.GetTournamentRequest.tournament_id": MAX_ID,
    "hand.v1.EnterTournamentRequest.tournament_id": MAX_ID,
    "hand.v1.EnterTournamentRequest.player_name": 64,
    "hand.v1.StartTournamentRequest.tournament_id": MAX_ID,
    "hand.v1.CloseTournamentRequest.tournament_id": MAX_ID,
    "hand.v1.GetMyTableRequest.tournament_id": MAX_ID,
    "hand.v1.GetTournamentStandingsRequest.tournament_id": MAX_ID,
    # auth service
    "hand.v1.SignInGuestRequest.device_id": 128,
    "hand.v1.SignInGuestRequest.display_name": MAX_NAME,
    "hand.v1.RefreshSessionRequest.refresh_token": 128,
})

_STRINGS = (FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES)


def limit_of(field: FieldDescriptor) -> int | None:
    """The limit of ``field``: characters, bytes or items (``None``: no limit of its own)."""
    if field.full_name in LIMITS:
        return LIMITS[field.full_name]
    return DEFAULT_REPEATED if field.is_repeated else DEFAULT_STRING


def _over(path: str, limit: int) -> Refusal:
    return Refusal("LIMIT_EXCEEDED", f"{path}: over {limit}", field=path, limit=limit)


def check(message: Message, prefix: str = "") -> None:
    """Raise ``Refusal(LIMIT_EXCEEDED)`` for the first field of ``message`` over its limit."""
    for field, value in message.ListFields():
        name, limit, kind = _SHAPES.get(field) or _shape(field)
        if kind is _SCALAR:
            continue
        if kind is _STRING:
            if limit is not None and len(value) > limit:
                raise _over(prefix + name, limit)
        elif kind is _MESSAGE:
            check(value, prefix + name + ".")
        else:  # repeated
            if limit is not None and len(value) > limit:
                raise _over(prefix + name, limit)
            if kind is _MAP:
                _check_map(field, value, prefix + name)
            elif kind is _MESSAGES:
                for i, item in enumerate(value):
                    check(item, f"{prefix}{name}[{i}].")
            elif kind is _STRINGS_LIST:
                for i, item in enumerate(value):
                    if len(item) > DEFAULT_STRING:
                        raise _over(f"{prefix}{name}[{i}]", DEFAULT_STRING)


# what ``check`` needs of a field, worked out once per field descriptor: its name, its
# limit and its kind (a request's walk asked each field's options and limit every call)
_SCALAR, _STRING, _MESSAGE, _REPEATED, _MAP, _MESSAGES, _STRINGS_LIST = (
    "scalar", "string", "message", "repeated", "map", "messages", "strings")
_SHAPES: dict[FieldDescriptor, tuple[str, int | None, str]] = {}


def _shape(field: FieldDescriptor) -> tuple[str, int | None, str]:
    limit = limit_of(field)
    is_message = field.type == FieldDescriptor.TYPE_MESSAGE
    if field.is_repeated:
        if is_message and field.message_type.GetOptions().map_entry:
            kind = _MAP
        else:
            kind = _MESSAGES if is_message else _STRINGS_LIST if field.type in _STRINGS else _REPEATED
    else:
        kind = _MESSAGE if is_message else _STRING if field.type in _STRINGS else _SCALAR
    shape = _SHAPES[field] = (field.name, limit, kind)
    return shape


def _check_map(field: FieldDescriptor, value: Mapping, path: str) -> None:
    entry = field.message_type.fields_by_name["value"]
    for key, item in value.items():
        if isinstance(key, (str, bytes)) and len(key) > DEFAULT_STRING:
            raise _over(f"{path}.key", DEFAULT_STRING)
        if isinstance(item, Message):
            check(item, f"{path}[{str(key)[:32]}].")
        elif entry.type in _STRINGS and len(item) > DEFAULT_STRING:
            raise _over(f"{path}[{str(key)[:32]}]", DEFAULT_STRING)
