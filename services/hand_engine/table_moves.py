"""Moves on the table: laying melds (the opening and its threshold), laying off, retrieving a
joker (docs/rules.md §4-§6)."""

from __future__ import annotations

from . import melds as M
from ._fast import evolve
from .actions import LayMelds, LayOff, RetrieveJoker
from .cards import check_card
from .errors import Code, refuse
from .events import CardsLaidOff, Event, JokerRetrieved, MeldsLaid
from .move_steps import (
    _after_move, _finish, _hand, _need_play, _own_cards, _remove, _restricted, _set_seat, _settle,
)
from .rules import going_out_allowed, is_open, min_left_after_layoff, threshold
from .state import Meld, RoundState


def _lay_melds(state: RoundState, action: LayMelds) -> tuple[RoundState, tuple[Event, ...]]:
    _need_play(state)
    t, o = state.turn, state.options
    seat = t.seat
    if not action.melds:
        raise refuse(Code.INVALID_MELD, "no meld submitted")
    all_cards = [c for spec in action.melds for c in spec.cards]
    _own_cards(state, all_cards)
    built: list[Meld] = []
    next_id = state.next_meld_id
    for spec in action.melds:
        built.append(M.new_meld(spec.cards, o, spec.declare, next_id, seat, state.turn_no))
        next_id += 1
    total = sum(m.value for m in built)
    hand = _remove(_hand(state), all_cards)
    opening = not is_open(state, seat)
    thr = threshold(state) if opening else None
    discard_only = False
    holds_taken = t.taken is not None and t.taken in _hand(state)
    if opening and holds_taken and t.taken not in all_cards:
        if o.discard_take == "use_if_opening" or (
            o.discard_take == "meld_with_card" and o.take_return == "never"
        ):
            raise refuse(Code.TAKEN_CARD_NOT_IN_OPENING, "the taken card must be part of the opening")
    if opening and total < thr:
        hand_ok = (
            not o.hand_needs_threshold and t.fresh and not t.laid and going_out_allowed(state)
            and (len(hand) == 1 or (not hand and o.going_out == "meld_out_allowed"))
        )
        if not hand_ok:
            raise refuse(Code.BELOW_THRESHOLD, f"{total} / {thr}", total=total, threshold=thr)
        discard_only = len(hand) == 1
    state = evolve(state, melds=(*state.melds, *built), next_meld_id=next_id)
    state = _set_seat(state, seat, hand=hand, laid_any=True)
    turn = evolve(state.turn, laid=(*t.laid, *(m.id for m in built)), discard_only=discard_only)
    state = evolve(state, turn=turn)
    seat_total = state.seats[seat].opening_total
    if opening:
        state = _open(state, seat, total)
    elif t.opened_now and o.opening_total == "turn":
        state = _record_total(state, seat, (seat_total or 0) + total)
    state = _settle(state)
    if holds_taken and t.taken in all_cards and not state.turn.take_met:
        raise refuse(Code.TAKEN_CARD_RESTRICTED, "the taken card may only be used to meet its obligation")
    _after_move(state, hand)
    event = MeldsLaid(seat, tuple(built), opening, state.seats[seat].opening_total, thr)
    return _finish(state, [event])


def _record_total(state: RoundState, seat: int, total: int) -> RoundState:
    for s in state.team_of(seat):
        state = _set_seat(state, s, opening_total=total)
    return evolve(state, last_opening_total=total)


def _open(state: RoundState, seat: int, total: int) -> RoundState:
    for s in state.team_of(seat):
        state = _set_seat(state, s, opened=True)
    state = evolve(state, turn=evolve(state.turn, opened_now=True))
    return _record_total(state, seat, total)


def _open_meld(state: RoundState, meld_id: int, doing: str) -> Meld:
    """The meld a lay-off or retrieval touches, once the mover may touch the table."""
    _need_play(state)
    if not is_open(state, state.turn.seat):
        raise refuse(Code.NOT_OPEN, f"open before {doing}")
    meld = state.meld(meld_id)
    if meld is None:
        raise refuse(Code.UNKNOWN_MELD, f"no meld {meld_id}")
    return meld


def _lay_off(state: RoundState, action: LayOff) -> tuple[RoundState, tuple[Event, ...]]:
    meld = _open_meld(state, action.meld_id, "laying off")
    t = state.turn
    cards = _own_cards(state, action.cards)
    _restricted(state, cards)
    hand = _remove(_hand(state), cards)
    if len(hand) < min_left_after_layoff(state):
        raise refuse(Code.LAYOFF_LEAVES_TOO_FEW, "a lay-off must leave cards in your hand")
    new = M.lay_off(meld, cards, state.options, action.declare)
    return _replace_meld(state, meld, new, hand, CardsLaidOff(t.seat, new, cards))


def _retrieve(state: RoundState, action: RetrieveJoker) -> tuple[RoundState, tuple[Event, ...]]:
    meld = _open_meld(state, action.meld_id, "retrieving a joker")
    t = state.turn
    check_card(action.joker)
    cards = _own_cards(state, action.cards)
    _restricted(state, cards)
    new = M.retrieve(meld, action.joker, cards, state.options)
    hand = tuple(sorted((*_remove(_hand(state), cards), action.joker)))
    return _replace_meld(state, meld, new, hand, JokerRetrieved(t.seat, new, action.joker, cards))


def _replace_meld(state: RoundState, old: Meld, new: Meld, hand: tuple[int, ...], event: Event):
    t = state.turn
    melds = tuple(new if m.id == old.id else m for m in state.melds)
    state = evolve(state, melds=melds)
    state = _set_seat(state, t.seat, hand=hand, laid_any=True)
    turn = evolve(t, layoffs=True, foreign=t.foreign or old.id not in t.laid)
    state = _settle(evolve(state, turn=turn))
    _after_move(state, hand)
    return _finish(state, [event])
