"""The public features of a discard offered to the next seat, and the take model's chance.

Used by ``take_model`` (which fits the weights) and ``screen_bounds``' ``learned-takes``
variant (which plays with them): apart from both, so that neither imports the other.
"""

from __future__ import annotations

import math

from hand_bot.belief import related
from hand_bot.knowledge import feeds, fits_table, kind, run_neighbours
from hand_engine import hand_value, threshold

FEATURES = ("bias", "hand_size", "turns", "stock", "feeds", "points", "same_unseen", "set_unseen",
            "run1_unseen", "run2_unseen", "discarded_related", "passed_related", "passed_same",
            "discarded_same", "held_related", "fits_table", "threshold", "mine_related",
            "pile_related", "discarded_rank", "passed_rank")


def _run_ranks(rank: int, d: int) -> set[int]:
    """Ranks (0 = ace .. 12 = king) ``d`` places from ``rank`` in a run (``knowledge.run_neighbours``)."""
    return {k % 13 for k in run_neighbours(rank, d)}


def features(card: int, seat: int, know, state, history) -> list[float]:
    """The public features of natural ``card`` as the pile top offered to ``seat``."""
    k = kind(card)
    rank, suit = k % 13, k // 13
    unseen = know.unseen
    sh = history.seats[seat] if history is not None else None
    discarded, passed = (sh.discarded, sh.passed) if sh else ([], [])
    held = history.known_in(seat) if history is not None else set()
    hand = state.seats[state.turn.seat].hand

    def run_unseen(d: int) -> int:
        return sum(unseen.get(n, 0) for n in run_neighbours(card, d))

    def share(cards) -> float:
        return sum(related(card, x) for x in cards if x != card) / 3

    return [1.0, know.hand_sizes[seat] / 14, (sh.turns if sh else 0) / 20, know.stock_size / 50,
            feeds(card, seat, know, state), hand_value(card, state.options.joker_in_hand) / 10,
            unseen.get(k, 0) / 2, sum(unseen.get(13 * t + rank, 0) for t in range(4) if t != suit) / 6,
            run_unseen(1) / 4, run_unseen(2) / 4, share(discarded), share(passed),
            float(any(kind(x) == k for x in passed)), float(any(kind(x) == k for x in discarded)),
            float(sum(related(card, x) for x in held)), float(fits_table(card, state)),
            threshold(state) / 100, share(hand), share(state.pile),
            float(any(x < 104 and x % 13 == rank for x in discarded)),
            float(any(x < 104 and x % 13 == rank for x in passed))]


def probability(weights: list[float], xs: list[float]) -> float:
    z = sum(w * x for w, x in zip(weights, xs))
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
