"""The room domain: the public vocabulary of a room's history.

- ``events``: one frozen dataclass per kind of room event, and ``Recorded``
  (an event with its room, seq and time);
- ``room``: the ``Room`` aggregate;
- ``evolve``: the one projector (room, event) → room;
- ``codec``: events ⇔ ``hand.v1.RoomEvent`` (store, topics, Watch, replays);
- ``audience``: what each reader may see of an event;
- ``info``: a room's public description (``hand.v1.RoomInfo``);
- ``commands`` / ``command_codec``: what a room is asked to do, and its wire form;
- ``decide``: a command against a room → its events (or a ``RoomError`` refusal);
- ``deal_check``: a room's provably fair deals verified from its public record;
- ``chat``: the quick-chat phrase set (chat is no part of the game).

The ledger and the bot service read rooms through this package only.
"""

from .command_codec import decode_command, encode_command
from .chat import PHRASES, phrase_name, phrase_number, spectator_key
from .commands import (
    Act, BotTurn, Chat, Command, CreateRoom, FillWithBots, JoinRoom, LeaveRoom, Presence, RemovePlayer, StartMatch,
    TurnTimeout,
)
from .decide import Decision, decide
from .deal_check import DealCheck, verify_deals
from .errors import RoomCode, RoomError
from .audience import complete, for_seat, private
from .codec import LEVEL_NAMES, MalformedEvent, decode, encode, from_proto, level_to_proto, standing_to_proto, to_proto
from .events import (
    AWAY_REASONS, BOT_LEVELS, KINDS, ChatSent, MatchEnded, MatchStarted, MoveMade, Recorded, RoomCreated,
    RoomEvent, RoundDealt, RoundScored, SeatAway, SeatBack, SeatConnected, SeatLeft, SeatTaken,
    TurnTimedOut, kind_of,
)
from .evolve import dealt_seeds, evolve
from .info import room_info
from .room import Room, SeatSlot, token_hash

__all__ = [
    "AWAY_REASONS", "Act", "BOT_LEVELS", "BotTurn", "Chat", "ChatSent", "Command", "PHRASES", "phrase_name",
    "phrase_number", "spectator_key", "CreateRoom", "DealCheck", "Decision", "dealt_seeds", "verify_deals",
    "FillWithBots", "JoinRoom", "KINDS", "LEVEL_NAMES", "LeaveRoom", "MalformedEvent", "MatchEnded",
    "MatchStarted", "MoveMade", "Presence", "Recorded", "Room", "RoomCode", "RoomCreated",
    "RoomError", "RoomEvent", "RoundDealt", "RoundScored", "SeatAway", "SeatBack", "SeatConnected",
    "SeatLeft", "SeatSlot", "SeatTaken", "StartMatch", "TurnTimedOut", "TurnTimeout", "complete",
    "RemovePlayer", "decide", "decode", "decode_command", "encode", "encode_command", "evolve", "for_seat", "from_proto", "kind_of",
    "level_to_proto", "private", "room_info", "standing_to_proto", "to_proto", "token_hash"
]
