"""The end of a turn: the discard, then the next turn, with a stock rebuild or the round
ended exhausted (docs/rules.md §3, §7, §8)."""

from __future__ import annotations

from . import fair as fairdeal
from ._fast import evolve
from .actions import Discard
from .cards import check_card
from .draw import _return
from .errors import Code, refuse
from .events import CardDiscarded, Event, RoundEnded, StockRebuilt, TurnStarted
from .move_steps import _finish, _hand, _remove, _set_seat
from .rng import shuffled
from .rules import going_out_allowed, pending
from .scoring import score_round
from .state import RoundState, Turn


def _discard(state: RoundState, action: Discard) -> tuple[RoundState, tuple[Event, ...]]:
    t, o = state.turn, state.options
    if t.phase != "play":
        raise refuse(Code.WRONG_PHASE, "draw a card first")
    card = check_card(action.card)
    hand = _hand(state)
    if card not in hand:
        raise refuse(Code.CARD_NOT_IN_HAND, "card not in your hand", card=card)
    if t.taken is not None and card == t.taken:
        if o.take_return == "by_discard":
            return _return(state)
        raise refuse(Code.TAKEN_CARD_NOT_DISCARDABLE, "you cannot discard the card you took")
    if pending(t):
        raise refuse(Code.OBLIGATION_UNMET, "meet the take's obligation (or return the card) first")
    rest = _remove(hand, [card])
    if not rest and not going_out_allowed(state):
        raise refuse(Code.GOING_OUT_FORBIDDEN, "you may not go out on your first turn")
    state = _set_seat(state, t.seat, hand=rest)
    state = evolve(state, pile=(*state.pile, card))
    events: list[Event] = [CardDiscarded(t.seat, card)]
    if not rest:
        return _finish(state, events)
    return _next_turn(state, events)


def _next_turn(state: RoundState, events: list[Event]) -> tuple[RoundState, tuple[Event, ...]]:
    o = state.options
    if state.draw_turns >= o.max_turns:
        return _exhaust(state, events)
    if not state.stock:
        if o.max_reshuffles > 0 and state.rebuilds >= o.max_reshuffles:
            return _exhaust(state, events)
        keep = state.pile[-1:] if o.reshuffle_keep_top else ()
        source = state.pile[:-1] if o.reshuffle_keep_top else state.pile
        if not source:
            return _exhaust(state, events)
        n = state.rebuilds + 1
        if state.deal_key:
            order = fairdeal.rebuild(state.deal_key, source, n)
        else:
            order = shuffled(state.seed, tuple(sorted(source)), "rebuild", state.round_no, n)
        state = evolve(
            state, stock=order, pile=keep, rebuilds=n,
            rebuild_orders=(*state.rebuild_orders, order),
        )
        events.append(StockRebuilt(n, len(order), order))
    nxt = (state.turn.seat + 1) % state.n
    s = state.seats[nxt]
    turn = Turn(seat=nxt, phase="draw", first_turn=s.draw_turns == 0, fresh=not s.laid_any)
    state = evolve(state, turn=turn, turn_no=state.turn_no + 1)
    events.append(TurnStarted(nxt, state.turn_no, turn.first_turn, False))
    return state, tuple(events)


def _exhaust(state: RoundState, events: list[Event]) -> tuple[RoundState, tuple[Event, ...]]:
    result = score_round(state, None, "exhausted")
    events.append(RoundEnded(result))
    return evolve(state, result=result), tuple(events)
