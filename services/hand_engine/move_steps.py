"""The steps and checks every move of ``apply`` shares: the mover's hand, a seat's change,
owning the cards, the play phase, a drawing turn counted, the take's obligation settled,
the checks after a meld or lay-off, the round's end when the hand is empty."""

from __future__ import annotations

from typing import Sequence

from ._fast import evolve
from .cards import check_distinct
from .errors import Code, refuse
from .events import Event, RoundEnded
from .feasibility import can_meet
from .rules import dead_end, going_out_allowed, obligation_met, pending
from .scoring import score_round
from .state import RoundState


def _hand(state: RoundState) -> tuple[int, ...]:
    return state.seats[state.turn.seat].hand


def _set_seat(state: RoundState, seat: int, **changes) -> RoundState:
    seats = list(state.seats)
    seats[seat] = evolve(seats[seat], **changes)
    return evolve(state, seats=tuple(seats))


def _remove(hand: Sequence[int], cards: Sequence[int]) -> tuple[int, ...]:
    gone = set(cards)
    return tuple(c for c in hand if c not in gone)


def _own_cards(state: RoundState, cards: Sequence[int]) -> tuple[int, ...]:
    cards = check_distinct(cards)
    hand = set(_hand(state))
    missing = [c for c in cards if c not in hand]
    if missing:
        raise refuse(Code.CARD_NOT_IN_HAND, "card not in your hand", card=missing[0])
    return cards


def _need_play(state: RoundState) -> None:
    t = state.turn
    if t.phase != "play":
        raise refuse(Code.WRONG_PHASE, "draw a card first")
    if t.opening_discard:
        raise refuse(Code.OPENING_DISCARD_ONLY, "the starter's first turn is a discard only")
    if t.discard_only:
        raise refuse(Code.ONLY_DISCARD_ALLOWED, "only the discard remains")


def _count_draw(state: RoundState) -> RoundState:
    """The first draw or take of a turn counts as a drawing turn."""
    if state.turn.took:
        return state
    s = state.turn.seat
    state = _set_seat(state, s, draw_turns=state.seats[s].draw_turns + 1)
    return evolve(state, draw_turns=state.draw_turns + 1)


def _settle(state: RoundState) -> RoundState:
    """Update the take's met/final flags after a move."""
    t = state.turn
    if t.taken is None or t.take_met:
        return state
    met = obligation_met(state)
    final = t.take_final or (met and state.options.take_return == "until_met")
    return evolve(state, turn=evolve(t, take_met=met, take_final=final))


def _after_move(state: RoundState, hand: tuple[int, ...]) -> None:
    """Checks shared by melds, lay-offs and retrievals (state is the new state)."""
    if not hand:
        if state.options.going_out == "discard_required":
            raise refuse(Code.MUST_DISCARD_TO_GO_OUT, "you go out by discarding your last card")
        if not going_out_allowed(state):
            raise refuse(Code.GOING_OUT_FORBIDDEN, "you may not go out on your first turn")
        return
    if dead_end(state, hand):
        raise refuse(Code.DEAD_END, "that would leave you no legal way to end the turn")
    if state.options.take_return == "never" and pending(state.turn) and not can_meet(state):
        raise refuse(Code.OBLIGATION_WOULD_FAIL, "you could no longer meet the take's obligation")


def _finish(state: RoundState, events: list[Event]) -> tuple[RoundState, tuple[Event, ...]]:
    """End the round if the mover's hand is empty."""
    seat = state.turn.seat
    if state.seats[seat].hand:
        return state, tuple(events)
    t = state.turn
    hand_finish = t.fresh and not (
        t.layoffs if state.options.hand_finish == "new_melds_only" else t.foreign
    )
    result = score_round(state, seat, "hand" if hand_finish else "normal")
    state = evolve(state, result=result)
    events.append(RoundEnded(result))
    return state, tuple(events)


def _restricted(state: RoundState, cards: Sequence[int]) -> None:
    t = state.turn
    if pending(t) and t.taken in cards:
        raise refuse(Code.TAKEN_CARD_RESTRICTED, "the taken card may only be used to meet its obligation")
