"""The room's domain, pure: the typed vocabulary of a room's history and the rules of a room.

No protobuf, no gRPC, no I/O: plain dataclasses over the engine (``hand_engine``).
Their wire form is ``hand_wire``'s business; the room service (``hand_room``) runs
them, the ledger, the bot service, ``hand_sim`` and ``hand_verify`` read them.

- ``events``: one frozen dataclass per kind of room event, and ``Recorded``
  (an event with its room, seq and time);
- ``room``: the ``Room`` aggregate;
- ``projection``: ``evolve``, the one projector (room, event) → room;
- ``audience``: what each reader may see of an event (``for_seat``, ``private``, ``complete``);
- ``commands``: what a room is asked to do;
- ``decision``: ``decide``, a command against a room → its events (or a ``RoomError`` refusal),
  with ``RulesPort``, how it reaches the rules (``LocalRules``: the engine in-process),
  through its table of handlers: ``lobby`` (create, join, leave, remove, fill, start),
  ``match_play`` (act, time-out, bot turn; a move, the round's end, the next deal),
  ``presence`` (presence, come back) and ``chat``, with ``guards`` (their checks) and
  ``outcome`` (``Decision``, the events so far);
- ``errors``: ``RoomCode`` and ``RoomError`` (codes only; the gRPC status is built at the edge);
- ``deal_check``: a room's provably fair deals verified from its public record;
- ``chat``: the quick-chat phrase set (chat is no part of the game).

Import this package itself (``from hand_table import evolve``): its modules are private.
"""

from .chat import PHRASES, check_phrase, phrase_name, phrase_number, spectator_key
from .commands import (
    Act, BotTurn, Chat, ComeBack, Command, CreateRoom, FillWithBots, JoinRoom, LeaveRoom, Presence, RemovePlayer,
    StartMatch, TurnTimeout,
)
from .decision import Decision, LocalRules, RulesPort, decide
from .deal_check import DealCheck, verify_deals
from .errors import RoomCode, RoomError
from .audience import complete, for_seat, private
from .events import (
    AWAY_REASONS, BOT_LEVELS, KINDS, ChatSent, MatchEnded, MatchStarted, MoveMade, Recorded, RoomCreated,
    RoomEvent, RoundDealt, RoundScored, SeatAway, SeatBack, SeatConnected, SeatLeft, SeatTaken,
    TurnTimedOut, kind_of,
)
from .projection import dealt_seeds, evolve
from .room import Room, SeatSlot, token_hash

__all__ = [
    "AWAY_REASONS", "Act", "BOT_LEVELS", "BotTurn", "Chat", "ChatSent", "check_phrase", "ComeBack", "Command", "PHRASES",
    "phrase_name", "phrase_number", "spectator_key", "CreateRoom", "DealCheck", "Decision", "dealt_seeds",
    "verify_deals", "FillWithBots", "JoinRoom", "KINDS", "LeaveRoom", "MatchEnded", "MatchStarted", "MoveMade",
    "Presence", "Recorded", "Room", "RoomCode", "RoomCreated", "RoomError", "RoomEvent", "RoundDealt",
    "RoundScored", "LocalRules", "RulesPort", "SeatAway", "SeatBack", "SeatConnected", "SeatLeft", "SeatSlot", "SeatTaken",
    "StartMatch", "TurnTimedOut", "TurnTimeout", "complete", "RemovePlayer", "decide", "evolve", "for_seat",
    "kind_of", "private", "token_hash",
]
