"""Hand analysis for the middle and strong bots: meld partitions and discard scores.

A *partition* is a set of disjoint legal melds from the hand, found with the
engine's meld search (``candidates`` + the memoised ``max_value``) under a
chosen weight: meld value (for the opening threshold), hand value shed
(what laying them saves at scoring) or cards covered (for going out).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hand_engine import hand_total, hand_value, is_joker
from hand_engine import Candidate, candidates, max_value
from hand_engine import RoundState

from .knowledge import Feeds, Knowledge, feeds, pair_completions, pair_outs

Weight = Callable[[Candidate], int]


def by_value(c: Candidate) -> int:
    return c.value


def by_cover(c: Candidate) -> int:
    return 1000 * len(c.cards) + c.value


def shed_weight(joker_in_hand: int) -> Weight:
    return lambda c: 1000 * len(c.cards) + hand_total(c.cards, joker_in_hand)


@dataclass
class Partition:
    """Melds of one hand, searched under several weights."""

    hand: tuple[int, ...]
    cands: list[Candidate]

    @classmethod
    def of(cls, hand: Sequence[int], options) -> Partition:
        hand = tuple(hand)
        return cls(hand, candidates(hand, options))

    @property
    def full(self) -> int:
        return (1 << len(self.hand)) - 1

    def best(self, weight: Weight = by_value, without: int = 0) -> tuple[int, tuple[Candidate, ...]]:
        """The partition of greatest weight among cards not in mask ``without``."""
        cands = [c for c in self.cands if not c.mask & without]
        if weight is not by_value:
            cands = [Candidate(c.cards, c.declare, weight(c), c.mask) for c in cands]
        score, combo = max_value(cands, self.full & ~without)
        real = {(c.cards, c.declare): c for c in self.cands}
        return score, tuple(real[(c.cards, c.declare)] for c in combo)

    def best_keeping_one(self, weight: Weight = by_value, keep_out: int | None = None
                         ) -> tuple[int, tuple[Candidate, ...]]:
        """The best partition that leaves at least one card (``keep_out``, if given) in hand."""
        if keep_out is not None:
            return self.best(weight, 1 << self.hand.index(keep_out))
        score, combo = self.best(weight)
        if used_mask(combo) != self.full:
            return score, combo
        options = [self.best(weight, 1 << i) for i in range(len(self.hand))]
        return max(options, key=lambda o: o[0])

    def value(self, without: int = 0) -> int:
        return self.best(by_value, without)[0]


def used_mask(combo: Sequence[Candidate]) -> int:
    m = 0
    for c in combo:
        m |= c.mask
    return m


def meld_total(combo: Sequence[Candidate]) -> int:
    return sum(c.value for c in combo)


def left_after(hand: Sequence[int], combo: Sequence[Candidate]) -> tuple[int, ...]:
    used = {x for c in combo for x in c.cards}
    return tuple(c for c in hand if c not in used)


# ------------------------------------------------------------------ discards
@dataclass(frozen=True)
class DiscardWeights:
    outs: bool  # weigh pairs by the unseen cards that complete them (strong)
    danger: float  # points charged per unit chance of feeding the next seat
    closed_shed: float = 0.35  # share of a card's hand value saved by discarding it, closed
    open_shed: float = 1.0  # the same once open


def discard_scores(state: RoundState, know: Knowledge, w: DiscardWeights,
                   feeds: Feeds = feeds) -> list[tuple[float, int, float]]:
    """(cost of discarding, card, the part of it for feeding the next seat) for each
    card of the mover's hand, cheapest first; ``feeds``: the chance that the next
    seat takes a card (``knowledge.feeds``; research passes its own)."""
    me = state.turn.seat
    hand = state.seats[me].hand
    o = state.options
    j = o.joker_in_hand
    part = Partition.of(hand, o)
    base = part.value()
    opened = state.seats[me].opened
    _, combo = part.best(by_value)
    in_melds = used_mask(combo)
    shed = w.open_shed if opened else w.closed_shed
    close = [s for s in know.opponents() if know.opened[s] and know.hand_sizes[s] <= 3]
    if close:
        shed *= 1.6
    nxt = know.next_seat
    scores: list[tuple[float, int, float]] = []
    for i, card in enumerate(hand):
        keep = float(base - part.value(1 << i))
        if is_joker(card):
            keep += 10.0 if opened else 22.0
        else:
            for k, other in enumerate(hand):
                if k == i or is_joker(other) or not pair_completions(card, other):
                    continue
                if w.outs:
                    chance = min(0.85, 0.09 * pair_outs(card, other, know))
                else:
                    chance = 0.3
                if in_melds >> k & 1:
                    chance *= 0.35
                keep += chance * (hand_value(card, j) + hand_value(other, j) + 5) * 0.5
        danger = 0.0
        if w.danger and nxt != know.partner:
            danger = w.danger * feeds(card, nxt, know, state) * (1.6 if know.hand_sizes[nxt] <= 4 else 1.0)
        scores.append((keep - shed * hand_value(card, j) + danger, card, danger))
    scores.sort()
    return scores
