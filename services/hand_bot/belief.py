"""What a seat believes about the hidden cards, and positions sampled from it.

Built from the seat's public information only: its own hand, the pile, the
melds, every hand's size (read off the bot's simulated position, whose
hidden cards it never reads) and the round's public history
(``history.History``, from the seat's redacted events).

- Certain: a card taken from the pile (or a joker retrieved) that has not
  been shown since is in the taker's hand (public: everyone saw it).
- Weighted: every other unseen card may be in any other hand or the stock.
  A seat's weight for a card drops for each card it discarded or let pass
  that the card would meld with (players keep what builds their hand and
  throw or pass what does not), and rises for each card it took and still
  holds that the card would meld with (a take shows a use for the card).

``sample(rng)`` deals the unseen cards accordingly: the certain cards to
their holders, then each other hand by weighted sampling without
replacement (Efraimidis–Spirakis keys ``u ** (1 / w)``); the rest, in random
order, is the stock. Every sample is consistent with the public counts.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace

from hand_engine import RoundState

from .history import History

#: weight factor per discard of the seat that the card would meld with
DISCARD_FACTOR = 0.6
#: per pile top the seat let pass that the card would meld with
PASS_FACTOR = 0.75
#: per card the seat took and still holds that the card would meld with
TAKE_FACTOR = 1.6
#: weights never fall below this (a belief, not a certainty)
MIN_WEIGHT = 0.05


def related(a: int, b: int) -> bool:
    """Naturals ``a`` and ``b`` could be in one meld (same rank, other suit; or same
    suit within two ranks, the ace next to the king as well)."""
    if a >= 104 or b >= 104:
        return False
    ka, kb = a % 52, b % 52
    ra, sa, rb, sb = ka % 13, ka // 13, kb % 13, kb // 13
    if ra == rb:
        return sa != sb
    if sa != sb:
        return False
    d = abs(ra - rb)
    return d <= 2 or d >= 11  # A (0) with Q (11) and K (12)


def visible(state: RoundState, me: int) -> set[int]:
    """The cards ``me`` sees: its hand, the pile, the melds."""
    out = set(state.seats[me].hand) | set(state.pile)
    for m in state.melds:
        out.update(m.cards)
    return out


@dataclass(frozen=True)
class Belief:
    me: int
    unseen: tuple[int, ...]  # sorted physical cards ``me`` cannot see
    sizes: tuple[int, ...]  # hand sizes (public)
    known: dict[int, frozenset[int]]  # seat -> unseen cards certainly in its hand
    weights: dict[int, dict[int, float]]  # seat -> card -> weight (other seats)

    @classmethod
    def of(cls, state: RoundState, me: int, history: History | None = None) -> Belief:
        seen = visible(state, me)
        unseen = tuple(c for c in range(106) if c not in seen)
        sizes = tuple(len(s.hand) for s in state.seats)
        others = [s for s in range(state.n) if s != me]
        known: dict[int, frozenset[int]] = {s: frozenset() for s in others}
        weights: dict[int, dict[int, float]] = {s: dict.fromkeys(unseen, 1.0) for s in others}
        if history is not None and history.n == state.n:
            hidden = set(unseen)
            for s in others:
                held = [c for c in history.known_in(s) if c in hidden][: sizes[s]]
                known[s] = frozenset(held)
                w = weights[s]
                signals = ([(x, DISCARD_FACTOR) for x in history.seats[s].discarded]
                           + [(x, PASS_FACTOR) for x in history.seats[s].passed]
                           + [(x, TAKE_FACTOR) for x in held])
                for x, f in signals:
                    for c in unseen:
                        if related(c, x):
                            w[c] = max(MIN_WEIGHT, w[c] * f)
        return cls(me, unseen, sizes, known, weights)

    def certain(self) -> set[int]:
        return {c for cards in self.known.values() for c in cards}

    def deal(self, rng: random.Random) -> tuple[dict[int, tuple[int, ...]], tuple[int, ...]]:
        """Hidden hands (seat -> sorted cards) and a stock order drawn from the belief."""
        certain = self.certain()
        pool = [c for c in self.unseen if c not in certain]
        hands: dict[int, tuple[int, ...]] = {}
        for s in sorted(self.weights):
            need = self.sizes[s] - len(self.known[s])
            w = self.weights[s]
            keyed = sorted(pool, key=lambda c: -(rng.random() ** (1.0 / w[c])))
            chosen = keyed[:need]
            hands[s] = tuple(sorted((*self.known[s], *chosen)))
            taken = set(chosen)
            pool = [c for c in pool if c not in taken]
        rng.shuffle(pool)
        return hands, tuple(pool)

    def sample(self, state: RoundState, rng: random.Random) -> RoundState:
        """``state`` (the bot's simulated position) with its hidden cards dealt from the belief."""
        hands, stock = self.deal(rng)
        if len(stock) != len(state.stock):
            raise ValueError("the belief does not add up to the public counts")
        seats = tuple(s if i == self.me else replace(s, hand=hands[i]) for i, s in enumerate(state.seats))
        deck = (tuple(c for s in seats for c in s.hand) + state.pile
                + tuple(c for m in state.melds for c in m.cards) + stock)
        return replace(state, seats=seats, stock=stock, deck=deck)


#: a belief from a simulated position, the seat and the round's history (``Belief.of``;
#: the planner's and the search's seam for research)
BeliefOf = Callable[[RoundState, int, "History | None"], Belief]
