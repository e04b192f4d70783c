"""The plain levels: ``random`` (a random legal baseline) and ``beginner`` (legal,
plain moves: open with the greatest meld value, lay off the first fit,
discard the highest card; never takes the pile top)."""

from __future__ import annotations

import random

from hand_engine import (
    Action, Discard, DrawStock, LayMelds, LayOff, MeldSpec, RuleViolation, apply, next_auto_action,
)
from hand_engine import hand_value
from hand_engine import proposals
from hand_engine import is_open, threshold
from hand_engine import candidates, max_value
from hand_engine import RoundState


def try_apply(state: RoundState, action: Action) -> RoundState | None:
    try:
        return apply(state, state.turn.seat, action)[0]
    except RuleViolation:
        return None


def random_step(state: RoundState, rng: random.Random) -> Action:
    """A random legal move (the engine's random-legal proposals, auto move as a fallback)."""
    for action in proposals(state, rng):
        if try_apply(state, action) is not None:
            return action
    return next_auto_action(state)


def _open_or_meld(state: RoundState) -> Action | None:
    seat = state.turn.seat
    hand = state.seats[seat].hand
    cands = candidates(hand, state.options)
    if not cands:
        return None
    total, combo = max_value(cands, (1 << len(hand)) - 1)
    if not combo or (not is_open(state, seat) and total < threshold(state)):
        return None
    used = sum(len(c.cards) for c in combo)
    while combo and used >= len(hand):  # keep a card to discard
        combo = combo[:-1]
        used = sum(len(c.cards) for c in combo)
    if not combo:
        return None
    return LayMelds(tuple(MeldSpec(c.cards, c.declare) for c in combo))


def _lay_off(state: RoundState) -> Action | None:
    seat = state.turn.seat
    if not is_open(state, seat):
        return None
    for card in state.seats[seat].hand:
        for meld in state.melds:
            action = LayOff(meld.id, (card,))
            if try_apply(state, action) is not None:
                return action
    return None


def _discard(state: RoundState) -> Action:
    t = state.turn
    j = state.options.joker_in_hand
    for card in sorted(state.seats[t.seat].hand, key=lambda c: (-hand_value(c, j), c)):
        if card != t.taken and try_apply(state, Discard(card)) is not None:
            return Discard(card)
    return next_auto_action(state)


def beginner_step(state: RoundState, rng: random.Random) -> Action:
    t = state.turn
    if t.phase == "draw" and not t.opening_discard:
        return DrawStock()
    action = None
    if not t.opening_discard and not t.discard_only:
        action = _open_or_meld(state) or _lay_off(state)
    return action or _discard(state)
