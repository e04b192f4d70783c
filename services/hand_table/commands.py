"""What a room can be asked to do: one frozen dataclass per command, in the
imperative. ``Command`` is the envelope the owner receives (from its own
gateway in-process, or through hand.room-commands as ``hand.v1.RoomCommand``).

A command names the seat its sender authenticated (``seat``); the owner never
sees a seat token, and a token hash is only carried to be stored (create, join).
"""

from __future__ import annotations

import itertools
import os
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Union

from hand_engine import Action, Options


@dataclass(frozen=True)
class CreateRoom:
    code: str
    public: bool
    preset: str
    options: Options  # with the table's seat_count
    turn_seconds: int
    player_name: str
    player_id: str
    token_hash: str
    waiting_ttl_s: int = 0
    seat_seed: str | None = None  # the host's seed for the deals (None: the owner draws one)


@dataclass(frozen=True)
class JoinRoom:
    player_name: str
    player_id: str
    token_hash: str
    wanted_seat: int | None = None
    seat_seed: str | None = None  # the player's seed for the deals (None: the owner draws one)


@dataclass(frozen=True)
class LeaveRoom:
    pass


@dataclass(frozen=True)
class FillWithBots:
    level: str = "beginner"


@dataclass(frozen=True)
class RemovePlayer:
    seat: int  # the seat to free (the command's seat is the host's)


@dataclass(frozen=True)
class StartMatch:
    seed: int | None = None
    seat_seed: str | None = None  # the host's own seed, given after the commitment (decision 0035)


@dataclass(frozen=True)
class Act:
    action: Action
    expected_seq: int | None = None


@dataclass(frozen=True)
class TurnTimeout:
    round_no: int
    turn_no: int
    away_after: int = 2


@dataclass(frozen=True)
class BotTurn:
    seat: int
    round_no: int
    turn_no: int
    actions: tuple[Action, ...]
    asked_seq: int | None = None  # BotRequest.seq: stale once a move came after it


@dataclass(frozen=True)
class Presence:
    connected: bool
    at: float
    stream_id: str = ""  # "<instance>/<stream>"; "" once the owner's tracker decided (presence.py)


@dataclass(frozen=True)
class Chat:
    phrase: str  # one of chat.PHRASES ("" for a wire number the set does not have)
    spectator: str = ""  # a signed-in spectator's per-room key; "" when the command's seat sent it


@dataclass(frozen=True)
class ComeBack:
    """The command's seat, away, is its player's again (a seat not away is left as it is)."""


class _CommandIds:
    """Command ids: a random 64-bit prefix per process (drawn again in a forked child) and a
    counter — unique as a uuid4 is across processes, without a uuid and a ``getrandom`` call
    per command (every move makes one; ~1 % of the room service's loop at 150 act/s)."""

    def __init__(self) -> None:
        self.reseed()

    def reseed(self) -> None:
        self.prefix, self.counter = uuid.uuid4().hex[:16], itertools.count()

    def __call__(self) -> str:
        return f"{self.prefix}{next(self.counter):016x}"


new_command_id = _CommandIds()
os.register_at_fork(after_in_child=new_command_id.reseed)


Body = Union[CreateRoom, JoinRoom, LeaveRoom, FillWithBots, RemovePlayer, StartMatch, Act, TurnTimeout, BotTurn,
             Presence, Chat, ComeBack]


@dataclass(frozen=True)
class Command:
    room_id: str
    body: Body
    seat: int | None = None  # the seat the sender authenticated
    action_id: str = ""  # the client's action id (Act)
    reply_to: str = ""  # the instance waiting for the reply; "" = none
    command_id: str = field(default_factory=new_command_id)
    sent_at: float = field(default_factory=time.time)
    # the sender's trace context (OpenTelemetry, opaque here): in-process only, never encoded
    # (across Kafka it rides in the record's headers); None while tracing is off
    trace: Any = field(default=None, compare=False, repr=False)
