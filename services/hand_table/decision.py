"""``decide(room, command, now, rules)``: the events a command produces, or a
refusal (``RoomError`` / ``RuleViolation``; nothing changes). Pure but for the
rules port, what the domain needs from outside, declared here (``RulesPort``:
``LocalRules`` here is the engine in-process; ``hand_room.rules_port`` adds the
gRPC adapter). The handler of each command kind is in ``HANDLERS``: the lobby's in
``lobby.py``, the match's (act, time-out, bot turn, with a round's moves and
deals) in ``match_play.py``, presence and coming back in ``presence.py``, quick
chat in ``chat.py``; what was produced so far is a ``Decision`` (``outcome.py``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

import hand_engine as eng
from hand_engine import Action, DealSeeds, Options, RoundState

from .commands import (
    Act, BotTurn, Chat, ComeBack, Command, CreateRoom, FillWithBots, JoinRoom, LeaveRoom, Presence, RemovePlayer,
    StartMatch, TurnTimeout,
)
from .errors import RoomCode, RoomError
from .chat import on_chat
from .lobby import on_create, on_fill, on_join, on_leave, on_remove, on_start
from .match_play import on_act, on_bot, on_timeout
from .outcome import Decision
from .presence import on_come_back, on_presence
from .room import Room


class RulesPort(Protocol):
    async def start_round(self, options: Options, n: int, *, seed: int, dealer: int | None,
                          round_no: int, fair: DealSeeds | None = None) -> tuple[RoundState, Sequence[Any]]: ...

    async def apply(self, state: RoundState, seat: int, action: Action) -> tuple[RoundState, Sequence[Any]]: ...

    async def auto_turn(self, state: RoundState) -> list[Action]: ...


class LocalRules:
    """The engine called in-process (unit tests, single-process deployments)."""

    async def start_round(self, options, n, *, seed, dealer, round_no, fair=None):
        return eng.start_round(options, n, seed=seed, dealer=dealer, round_no=round_no, fair=fair)

    async def apply(self, state, seat, action):
        return eng.apply(state, seat, action)

    async def auto_turn(self, state):
        return eng.auto_turn(state)


async def decide(room: Room | None, cmd: Command, now: float, rules: RulesPort) -> Decision:
    """The events ``cmd`` produces on ``room``: the handler of its kind (``HANDLERS``)."""
    handler = HANDLERS.get(type(cmd.body))
    if handler is None:
        raise RoomError("INVALID_ARGUMENT", "unknown command", field="command")
    if isinstance(cmd.body, CreateRoom):
        if room is not None:
            raise RoomError(RoomCode.ROOM_EXISTS, "room exists")
        d = Decision(None, cmd.room_id, now)
        await handler(d, cmd, rules)
        return d
    if room is None:
        raise RoomError(RoomCode.ROOM_NOT_FOUND, "no such room")
    if room.status == "finished" and not isinstance(cmd.body, Presence):
        if cmd.seat is not None:  # a seat token expires with the match
            raise RoomError(RoomCode.SEAT_TOKEN_EXPIRED, "the match is over", field="seat_token",
                            reason="match_ended")
        raise RoomError(RoomCode.MATCH_OVER, "the match is over")
    if room.expired_at(now) and not isinstance(cmd.body, (Presence, LeaveRoom)):
        raise RoomError(RoomCode.ROOM_NOT_FOUND, "the room expired before its match started", reason="expired")
    d = Decision(room, cmd.room_id, now)
    await handler(d, cmd, rules)
    return d


Handler = Callable[[Decision, Command, RulesPort], Awaitable[None]]

#: one handler per command kind (cosmicpython's ``handlers.py``)
HANDLERS: dict[type, Handler] = {
    CreateRoom: on_create, JoinRoom: on_join, LeaveRoom: on_leave, RemovePlayer: on_remove, FillWithBots: on_fill,
    StartMatch: on_start, Act: on_act, TurnTimeout: on_timeout, BotTurn: on_bot, Presence: on_presence, Chat: on_chat,
    ComeBack: on_come_back,
}
