"""Applying a move to a round: ``apply(state, seat, action) -> (state, events)``.

Every check happens before anything changes; a refused move raises
:class:`~hand_engine.errors.RuleViolation` and the input state (immutable)
is untouched. docs/rules.md §3-§8.

One handler per action kind (``_HANDLERS``), here in the order of a turn:
drawing (§3: from the stock, the discard pile's top — a take, with its
obligation — or a take returned), the table's moves (§4-§6: laying melds, the
opening and its threshold, laying off, retrieving a joker), and the discard
with the next turn (§3, §7, §8: a stock rebuild, or the round ended
exhausted); what they share in ``move_steps.py``.
"""

from __future__ import annotations

from . import fair as fairdeal
from . import melds as M
from ._fast import evolve
from .actions import Action, Discard, DrawStock, LayMelds, LayOff, RetrieveJoker, ReturnTake, TakeDiscard
from .cards import check_card
from .errors import Code, refuse
from .events import (
    CardDiscarded, CardsLaidOff, DiscardTaken, Event, JokerRetrieved, MeldsLaid, RoundEnded, StockDrawn, StockRebuilt,
    TakeReturned, TurnStarted,
)
from .feasibility import can_meet
from .move_steps import (
    _after_move, _count_draw, _finish, _hand, _need_play, _own_cards, _remove, _restricted, _set_seat, _settle,
)
from .rng import shuffled
from .rules import going_out_allowed, has_obligation, is_open, min_left_after_layoff, pending, threshold
from .scoring import score_round
from .state import Meld, RoundState, Turn


def apply(state: RoundState, seat: int, action: Action) -> tuple[RoundState, tuple[Event, ...]]:
    """Apply ``action`` by ``seat``; return the new state and the events."""
    if state.result is not None:
        raise refuse(Code.ROUND_OVER, "the round is over")
    if type(seat) is not int or not 0 <= seat < state.n:
        raise refuse(Code.INVALID_ARGUMENT, f"no seat {seat!r}")
    if seat != state.turn.seat:
        raise refuse(Code.NOT_YOUR_TURN, f"it is seat {state.turn.seat}'s turn", seat=state.turn.seat)
    handler = _HANDLERS.get(type(action))
    if handler is None:
        raise refuse(Code.INVALID_ARGUMENT, f"unknown action {type(action).__name__}")
    return handler(state, action)


# ------------------------------------------------------------ drawing (§3)
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


# ------------------------------------------------------------ the table (§4-§6)
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


# ------------------------------------------------------------ the discard and the next turn (§3, §7, §8)
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


_HANDLERS = {
    DrawStock: _draw_stock,
    TakeDiscard: _take,
    ReturnTake: _return,
    LayMelds: _lay_melds,
    LayOff: _lay_off,
    RetrieveJoker: _retrieve,
    Discard: _discard,
}
