"""Where the players are: a seat's first stream or its last one closed (presence), and an
away seat taken back by its player (come back). No move is made here."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .commands import Command
from .events import STAND_IN_LEVEL, SeatAway, SeatBack, SeatConnected
from .guards import seat_of
from .outcome import Decision

if TYPE_CHECKING:  # decide's rules port (decision.py imports this module's handlers)
    from .decision import RulesPort


async def on_presence(d: Decision, cmd: Command, rules: RulesPort) -> None:
    """A seat's first stream anywhere, or its last one closed (the owner's presence
    tracker debounces the streams: it passes only those two moments on)."""
    room, body = d.room, cmd.body
    seat = seat_of(room, cmd)
    s = room.seats[seat]
    if room.status == "finished":
        return  # nothing is appended after match_ended
    if body.connected:
        d.add(SeatBack(seat=seat, connected_at=body.at) if s.away
              else SeatConnected(seat=seat, connected_at=body.at))
    elif not s.away and room.status == "playing" and body.at >= s.connected_at:
        d.add(SeatAway(seat=seat, reason="disconnected", bot_level=STAND_IN_LEVEL))


async def on_come_back(d: Decision, cmd: Command, rules: RulesPort) -> None:
    """The player of an away seat takes it back (RoomService.ComeBack): the stand-in bot
    plays every turn of an away seat, so the player has no turn to act on; a seat that is
    not away is left as it is (no event: "I'm back" twice is no error; decision 0030)."""
    room = d.room
    seat = seat_of(room, cmd)
    d.seat = seat
    if room.seats[seat].away and room.status == "playing":
        d.add(SeatBack(seat=seat, connected_at=d.now))
