"""What a seat (or a spectator) may see (docs/rules.md §11, §13).

``view(state, seat)`` is the only thing about a round that leaves the server
for a player; ``redact(event, seat)`` strips hidden cards from events.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .events import Event, RoundStarted, StockDrawn, StockRebuilt
from .rules import pending, threshold
from .state import Meld, RoundResult, RoundState


@dataclass(frozen=True)
class PublicSeat:
    seat: int
    hand_size: int
    opened: bool
    opening_total: int | None
    laid_any: bool  # has put a card on the table this round
    draw_turns: int  # turns in which it drew


@dataclass(frozen=True)
class TurnView:
    seat: int
    phase: str
    opening_discard: bool
    first_turn: bool
    taken: int | None  # public: it came from the pile
    take_pending: bool
    discard_only: bool
    drawn: int | None  # the stock card drawn this turn: only for the seat itself
    # what the turn has done so far (all of it follows from public events)
    fresh: bool
    took: bool
    take_final: bool
    take_met: bool
    laid: tuple[int, ...]
    layoffs: bool
    foreign: bool
    opened_now: bool


@dataclass(frozen=True)
class SeatView:
    seat: int | None  # None: a spectator
    n: int
    round_no: int
    dealer: int
    seats: tuple[PublicSeat, ...]
    pile: tuple[int, ...]
    melds: tuple[Meld, ...]
    threshold: int
    stock_size: int
    rebuilds: int
    turn: TurnView
    hand: tuple[int, ...]  # the seat's own hand; empty for spectators
    result: RoundResult | None
    turn_no: int
    draw_turns: int
    next_meld_id: int
    last_opening_total: int | None


def view(state: RoundState, seat: int | None) -> SeatView:
    t = state.turn
    own = seat is not None and seat == t.seat
    turn = TurnView(
        t.seat, t.phase, t.opening_discard, t.first_turn, t.taken, pending(t), t.discard_only,
        t.drawn if own else None, t.fresh, t.took, t.take_final, t.take_met, t.laid, t.layoffs,
        t.foreign, t.opened_now,
    )
    return SeatView(
        seat=seat, n=state.n, round_no=state.round_no, dealer=state.dealer,
        seats=tuple(
            PublicSeat(i, len(s.hand), s.opened, s.opening_total, s.laid_any, s.draw_turns)
            for i, s in enumerate(state.seats)
        ),
        pile=state.pile, melds=state.melds, threshold=threshold(state),
        stock_size=len(state.stock), rebuilds=state.rebuilds, turn=turn,
        hand=state.seats[seat].hand if seat is not None else (), result=state.result,
        turn_no=state.turn_no, draw_turns=state.draw_turns, next_meld_id=state.next_meld_id,
        last_opening_total=state.last_opening_total,
    )


def redact(event: Event, seat: int | None) -> Event:
    """``event`` as ``seat`` may see it (None = spectator)."""
    if isinstance(event, RoundStarted):
        return replace(event, deck=(), seed=None)
    if isinstance(event, StockRebuilt):
        return replace(event, order=())
    if isinstance(event, StockDrawn) and event.seat != seat:
        return replace(event, card=None)
    return event
