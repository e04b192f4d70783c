"""Drawing a card: from the stock, the discard pile's top (a take, with its obligation), or a
take returned (docs/rules.md §3)."""

from __future__ import annotations

from ._fast import evolve
from .actions import DrawStock, ReturnTake, TakeDiscard
from .errors import Code, refuse
from .events import DiscardTaken, Event, StockDrawn, TakeReturned
from .feasibility import can_meet
from .move_steps import _count_draw, _hand, _remove, _set_seat
from .rules import has_obligation
from .state import RoundState, Turn


def _need_draw(t: Turn) -> None:
    if t.opening_discard:
        raise refuse(Code.OPENING_DISCARD_ONLY, "the starter's first turn is a discard only")
    if t.phase != "draw":
        raise refuse(Code.WRONG_PHASE, "you have already drawn")


def _draw_stock(state: RoundState, action: DrawStock) -> tuple[RoundState, tuple[Event, ...]]:
    t = state.turn
    _need_draw(t)
    card = state.stock[0]
    state = _count_draw(state)
    state = _set_seat(state, t.seat, hand=tuple(sorted((*_hand(state), card))))
    state = evolve(state, stock=state.stock[1:], turn=evolve(state.turn, phase="play", drawn=card))
    return state, (StockDrawn(t.seat, card),)


def _take(state: RoundState, action: TakeDiscard) -> tuple[RoundState, tuple[Event, ...]]:
    t = state.turn
    _need_draw(t)
    if t.took:
        raise refuse(Code.TAKE_NOT_ALLOWED, "after a returned take only the stock may be drawn")
    if not state.pile:
        raise refuse(Code.DISCARD_PILE_EMPTY, "the discard pile is empty")
    card = state.pile[-1]
    obliged = has_obligation(state, t.seat)
    new = _count_draw(state)
    new = _set_seat(new, t.seat, hand=tuple(sorted((*_hand(new), card))))
    never = state.options.take_return == "never"
    turn = evolve(
        new.turn, phase="play", taken=card, took=True, take_met=not obliged,
        take_final=never or not obliged,
    )
    new = evolve(new, pile=state.pile[:-1], turn=turn)
    if never and obliged and not can_meet(new):
        raise refuse(Code.TAKE_CANNOT_BE_MET, "you could not meet this take's obligation")
    return new, (DiscardTaken(t.seat, card),)


def _return(state: RoundState, action: ReturnTake | None = None) -> tuple[RoundState, tuple[Event, ...]]:
    t = state.turn
    if t.taken is None:
        raise refuse(Code.NO_ACTIVE_TAKE, "there is no take to return")
    policy = state.options.take_return
    if policy == "never" or (policy == "until_met" and t.take_final):
        raise refuse(Code.TAKE_NOT_RETURNABLE, "this take is final")
    if t.taken not in _hand(state):
        raise refuse(Code.TAKE_NOT_RETURNABLE, "the taken card has left your hand")
    card = t.taken
    state = _set_seat(state, t.seat, hand=_remove(_hand(state), [card]))
    turn = evolve(t, phase="draw", taken=None, take_met=False, take_final=False, discard_only=False)
    return evolve(state, pile=(*state.pile, card), turn=turn), (TakeReturned(t.seat, card),)
