"""The room's events: one frozen dataclass per kind, in the past tense.

This is the vocabulary every reader of a room's history uses (the room
service, the ledger, the bots): ``Recorded`` is one stored event, with its
envelope (room, seq, time) and its typed payload. The wire form is
``hand.v1.RoomEvent`` (proto/hand/v1/room_events.proto); ``codec`` converts.
Engine values stay engine values here (``Options``, ``Action``, engine events,
``RoundResult``, ``Standing``), in engine card ids (0..105).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Union

from hand_engine import Action, Options, RoundResult, Standing

SEAT_KINDS = ("human", "bot")
BOT_LEVELS = ("beginner", "middle", "strong", "expert")
AWAY_REASONS = ("left", "timeouts", "disconnected")
STAND_IN_LEVEL = "middle"  # the bot that plays an away player's seat
ORIGINS = ("player", "timer", "bot")


@dataclass(frozen=True)
class RoomCreated:
    code: str
    public: bool
    preset: str
    options: Options  # with the table's seat_count
    turn_seconds: int
    host_seat: int = 0
    waiting_ttl_s: int = 0  # a room still waiting this long after creation expires (0: never)
    deal_commitment: bytes = b""  # public: SHA-256 of the match secret, before any seat seed (version 2)
    match_secret: bytes = b""  # SECRET until match_ended reveals it (b"" where redacted; decision 0034)


@dataclass(frozen=True)
class SeatTaken:
    seat: int
    kind: str  # "human" | "bot"
    name: str = ""
    bot_level: str = ""
    player_id: str = ""  # PRIVATE: the ledger's key; empty on the public topic
    token_hash: str = ""  # the event store's only: never published
    seat_seed: str = ""  # public: the seat's contribution to the match's fair deals (decision 0022)


@dataclass(frozen=True)
class SeatLeft:
    seat: int


@dataclass(frozen=True)
class SeatAway:
    seat: int
    reason: str  # AWAY_REASONS
    bot_level: str = "middle"


@dataclass(frozen=True)
class SeatBack:
    seat: int
    connected_at: float


@dataclass(frozen=True)
class SeatConnected:
    seat: int
    connected_at: float


@dataclass(frozen=True)
class MatchStarted:
    seed: int | None  # SECRET: None where redacted
    deal_version: int = 0  # 2: fair, seeds from the room's committed secret; 1: fair, fresh seeds; 0: from the seed
    starter_seat: int | None = None  # the host, when it gave its own seat seed with StartMatch (0035)
    starter_seat_seed: str = ""  # that seat's seed from now on


@dataclass(frozen=True)
class RoundDealt:
    round_no: int
    dealer: int
    deck: tuple[int, ...]  # SECRET: () where redacted
    events: tuple[Any, ...] = ()  # engine events of the deal
    server_seed: bytes = b""  # SECRET until the round ends (b"" where redacted; version 1)


@dataclass(frozen=True)
class MoveMade:
    seat: int
    action: Action
    origin: str  # ORIGINS
    round_no: int
    turn_no: int
    events: tuple[Any, ...] = ()  # engine events of the move


@dataclass(frozen=True)
class TurnTimedOut:
    seat: int
    round_no: int
    turn_no: int


@dataclass(frozen=True)
class RoundScored:
    round_no: int
    result: RoundResult
    server_seed: bytes = b""  # public: the round's server seed revealed (version 1)


@dataclass(frozen=True)
class MatchEnded:
    winners: tuple[int, ...]
    standings: tuple[Standing, ...]
    match_secret: bytes = b""  # public: the room's match secret revealed (version 2; decision 0034)


@dataclass(frozen=True)
class ChatSent:
    """A quick-chat phrase (``chat``): changes nothing of the room but its seq."""

    seat: int | None  # the sender's seat; None for a spectator
    phrase: str  # one of chat.PHRASES
    spectator: str = ""  # a spectator's per-room key (chat.spectator_key); "" for a seat


RoomEvent = Union[RoomCreated, SeatTaken, SeatLeft, SeatAway, SeatBack, SeatConnected, MatchStarted,
                  RoundDealt, MoveMade, TurnTimedOut, RoundScored, MatchEnded, ChatSent]

#: every kind, in the order of the wire's oneof; the name is the oneof member
KINDS: dict[type, str] = {
    RoomCreated: "room_created", SeatTaken: "seat_taken", SeatLeft: "seat_left",
    SeatAway: "seat_away", SeatBack: "seat_back", SeatConnected: "seat_connected",
    MatchStarted: "match_started", RoundDealt: "round_dealt", MoveMade: "move_made",
    TurnTimedOut: "turn_timed_out", RoundScored: "round_scored", MatchEnded: "match_ended",
    ChatSent: "chat_sent",
}


def kind_of(event: RoomEvent) -> str:
    """The kind's name (the wire oneof member; the event store's ``kind`` column)."""
    return KINDS[type(event)]


@dataclass(frozen=True)
class Recorded:
    """One event of a room's history: where (room, seq), when, and what."""

    room_id: str
    seq: int
    at: float  # Unix seconds
    event: RoomEvent

    @property
    def kind(self) -> str:
        return KINDS[type(self.event)]
