"""Who played each seat of a match, from the room's own events (decision 0027).

The room records every move with its origin (``MoveMade.origin``: the seat's
player, the turn timer on the player's clock, or the bot that stands in for
an away player) and every seat that goes away or comes back (``SeatAway``,
``SeatBack``). Folding them gives, per seat, how many moves its player made
and whether the seat was still away when the match ended: it **left the
match** (left, timed out or disconnected, and never came back). Ratings take
a seat's match result only for what its player played (``ratings.take``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from hand_table import MatchStarted, MoveMade, RoomEvent, SeatAway, SeatBack

__all__ = ["RECENT", "SeatPlay", "recent_after", "seat_play"]

#: how many of a player's latest finished matches ``PlayerStats.recent_quits`` counts quits in
RECENT = 10


@dataclass(frozen=True)
class SeatPlay:
    """One seat's part in a match: moves by its player (``player`` and ``timer`` origins),
    moves by the stand-in bot, and whether it was away when the match ended."""

    own_moves: int = 0
    bot_moves: int = 0
    away: bool = False

    @property
    def left(self) -> bool:
        """The seat's player left the match: away at its end."""
        return self.away

    @property
    def share(self) -> float:
        """The player's share of the seat's moves (0 when it made none)."""
        total = self.own_moves + self.bot_moves
        return self.own_moves / total if total else 0.0


def seat_play(events: Iterable[RoomEvent], seats: int) -> dict[int, SeatPlay]:
    """Every seat's ``SeatPlay`` over the match of ``events`` (a room's events in seq order;
    a later ``match_started`` starts afresh)."""
    play = {s: SeatPlay() for s in range(seats)}
    for ev in events:
        match ev:
            case MatchStarted():
                play = {s: SeatPlay() for s in range(seats)}
            case MoveMade(seat=seat, origin="bot") if seat in play:
                play[seat] = replace(play[seat], bot_moves=play[seat].bot_moves + 1)
            case MoveMade(seat=seat) if seat in play:
                play[seat] = replace(play[seat], own_moves=play[seat].own_moves + 1)
            case SeatAway(seat=seat) if seat in play:
                play[seat] = replace(play[seat], away=True)
            case SeatBack(seat=seat) if seat in play:
                play[seat] = replace(play[seat], away=False)
    return play


def recent_after(recent: str, left: bool) -> str:
    """A player's latest finished matches (``"1"`` = left it, newest last), after one more."""
    return (recent + ("1" if left else "0"))[-RECENT:]
