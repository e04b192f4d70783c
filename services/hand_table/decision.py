"""``decide(room, command, now, rules)``: the events a command produces, or a
refusal (``RoomError`` / ``RuleViolation``; nothing changes). Pure but for the
rules port. The handler of each command kind is in ``HANDLERS``: the lobby's in
``lobby.py``, the match's (act, time-out, bot turn, with a round's moves and
deals) in ``match_play.py``, presence and coming back in ``presence.py``, quick
chat in ``chat.py``; what was produced so far is a ``Decision`` (``outcome.py``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from .commands import (
    Act, BotTurn, Chat, ComeBack, Command, CreateRoom, FillWithBots, JoinRoom, LeaveRoom, Presence, RemovePlayer,
    StartMatch, TurnTimeout,
)
from .errors import RoomCode, RoomError
from .chat import on_chat
from .lobby import on_create, on_fill, on_join, on_leave, on_remove, on_start
from .match_play import on_act, on_bot, on_timeout
from .outcome import Decision
from .ports import RulesPort
from .presence import on_come_back, on_presence
from .room import Room


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
