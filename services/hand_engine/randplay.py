"""A random-legal player: tries random moves, lets the engine referee them.

Used by the property tests (random legal games) and as the bots' random
baseline. Deterministic for a given ``random.Random``.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from .actions import Action, Discard, DrawStock, LayMelds, LayOff, MeldSpec, RetrieveJoker, ReturnTake, TakeDiscard
from .autoplay import next_auto_action
from .cards import is_joker, rank_of, suit_of
from .errors import RuleViolation
from .events import Event
from .play import apply
from .search import candidates, combos
from .state import RoundState


def proposals(state: RoundState, rng: random.Random) -> Iterator[Action]:
    """Random candidate moves for the player to move (legal or not)."""
    t = state.turn
    hand = list(state.seats[t.seat].hand)
    if t.phase == "draw":
        if rng.random() < 0.4:
            yield TakeDiscard()
        yield DrawStock()
        return
    if not t.opening_discard and rng.random() < 0.7:
        cands = candidates(hand, state.options)
        if cands:
            options = list(combos(cands, max_combos=400))
            rng.shuffle(options)
            for combo in options[:6]:
                yield LayMelds(tuple(MeldSpec(c.cards, c.declare) for c in combo))
        for _ in range(4):
            if state.melds and hand:
                meld = rng.choice(state.melds)
                yield LayOff(meld.id, (rng.choice(hand),))
        for meld in state.melds:
            for joker, rank, suit in meld.stand_ins:
                fits = [c for c in hand if not is_joker(c) and rank_of(c) == rank and (suit in (-1, suit_of(c)))]
                if fits:
                    yield RetrieveJoker(meld.id, joker, (rng.choice(fits),))
                    if len(fits) >= 2:
                        yield RetrieveJoker(meld.id, joker, tuple(rng.sample(fits, 2)))
        if t.taken is not None and rng.random() < 0.2:
            yield ReturnTake()
    for _ in range(3):
        yield Discard(rng.choice(hand))


def random_step(state: RoundState, rng: random.Random) -> tuple[RoundState, tuple[Event, ...], Action]:
    """Apply one random legal move (falls back to the safe automatic move)."""
    for action in proposals(state, rng):
        try:
            new, events = apply(state, state.turn.seat, action)
        except RuleViolation:
            continue
        return new, events, action
    action = next_auto_action(state)
    new, events = apply(state, state.turn.seat, action)
    return new, events, action
