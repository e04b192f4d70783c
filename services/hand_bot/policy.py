"""Bot decisions: pure functions of a seat's perspective, the level and a seed.

A bot sees exactly what a human in its seat could (``hand_engine.perspective``);
``determinize`` fills the hidden cards at random so the engine can referee the
bot's own moves, whose legality never depends on hidden cards.
"""

from __future__ import annotations

import random
from typing import Any

from hand_engine import (
    Action, Discard, DrawStock, LayMelds, LayOff, MeldSpec, RuleViolation, TakeDiscard, apply,
    next_auto_action,
)
from hand_engine.cards import hand_value
from hand_engine.perspective import determinize
from hand_engine.rules import is_open, threshold
from hand_engine.search import candidates, max_value
from hand_engine.state import RoundState

LEVELS = ("random", "beginner", "middle", "strong")


def _try(state: RoundState, action: Action) -> RoundState | None:
    try:
        return apply(state, state.turn.seat, action)[0]
    except RuleViolation:
        return None


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
    hand = state.seats[seat].hand
    for card in hand:
        for meld in state.melds:
            action = LayOff(meld.id, (card,))
            if _try(state, action) is not None:
                return action
    return None


def _discard(state: RoundState) -> Action:
    t = state.turn
    hand = state.seats[t.seat].hand
    j = state.options.joker_in_hand
    for card in sorted(hand, key=lambda c: (-hand_value(c, j), c)):
        if card != t.taken and _try(state, Discard(card)) is not None:
            return Discard(card)
    return next_auto_action(state)


def plan(state: RoundState, level: str, rng: random.Random) -> list[Action]:
    """The bot's moves from ``state`` until it must wait (a stock draw) or the turn ends."""
    seat = state.turn.seat
    out: list[Action] = []
    for _ in range(40):
        if state.result is not None or state.turn.seat != seat:
            break
        t = state.turn
        if t.phase == "draw" and not t.opening_discard:
            out.append(DrawStock())
            break  # the drawn card is unknown until the next request
        action: Action | None = None
        if level != "random" and not t.opening_discard and not t.discard_only:
            action = _open_or_meld(state) or _lay_off(state)
        if action is None:
            action = _discard(state) if level != "random" else _random_discard(state, rng)
        new = _try(state, action)
        if new is None:
            action = next_auto_action(state)
            new = apply(state, seat, action)[0]
        out.append(action)
        state = new
        if isinstance(action, Discard):
            break
    return out


def _random_discard(state: RoundState, rng: random.Random) -> Action:
    hand = list(state.seats[state.turn.seat].hand)
    rng.shuffle(hand)
    for card in hand:
        if _try(state, Discard(card)) is not None:
            return Discard(card)
    return next_auto_action(state)


def decide(perspective: dict[str, Any], level: str, seed: int) -> list[Action]:
    """A bot's actions for the current request (deterministic for the same inputs)."""
    rng = random.Random(seed)
    state = determinize(perspective, seed)
    return plan(state, level if level in LEVELS else "beginner", rng)
