"""Strong bot: keep the melds in hand while a one-turn Hand finish is in reach.

A Hand (going out in one turn having laid nothing before, docs/rules.md §7)
multiplies every score of the round by ``hand_multiplier``. A seat that
could open now may instead wait when, after this turn's discard, enough
unseen cards would let it meld everything but one card next turn. It waits
only while the risk is small: nobody else is about to go out, the stock is
not running low, the threshold cannot jump past its melds (escalating
opening), and it is still early in the round.
"""

from __future__ import annotations

from hand_engine import is_joker
from hand_engine import threshold
from hand_engine import Candidate
from hand_engine import RoundState

from .hand_eval import Partition, by_cover, left_after
from .knowledge import JOKER, Knowledge, kind
from .lookahead import BestPartition, melds_with, with_draw

#: a seat stops waiting for a Hand after this many drawing turns of its own
HOLD_MAX_DRAW_TURNS = 10
#: least unseen copies that would complete the Hand next turn
HOLD_MIN_OUTS = 4
#: under escalating opening, melds this far above the threshold are safe to hold
ESCALATING_MARGIN = 15


def should_hold(state: RoundState, me: int, part: Partition, know: Knowledge, cache: dict) -> bool:
    key = ("hold", part.hand, threshold(state))
    if key not in cache:
        cache[key] = _should_hold(state, me, part, know)
    return cache[key]


def _should_hold(state: RoundState, me: int, part: Partition, know: Knowledge) -> bool:
    o = state.options
    t = state.turn
    thr = threshold(state)
    if o.hand_multiplier <= 1 or not t.fresh or t.laid or t.taken is not None:
        return False
    if state.seats[me].draw_turns > HOLD_MAX_DRAW_TURNS or know.stock_size < 10:
        return False
    if any(know.opened[s] and know.hand_sizes[s] <= 5 for s in know.opponents()):
        return False
    if o.opening == "escalating" and part.value() < thr + ESCALATING_MARGIN:
        return False
    _, cover = part.best_keeping_one(by_cover)
    left = left_after(part.hand, cover)
    if len(left) > 3:
        return False
    best = 0
    for d in left:
        if is_joker(d):
            continue
        rest = tuple(c for c in part.hand if c != d)
        best = max(best, finishing_outs(rest, left, know, state, thr))
        if best >= HOLD_MIN_OUTS:
            return True
    return False


def _near(k: int) -> set[int]:
    """Natural kinds that can share a meld with kind ``k``."""
    rank, suit = k % 13, k // 13
    out = {13 * s + rank for s in range(4)}
    for d in (-2, -1, 1, 2):
        r = rank + d
        if 0 <= r < 13:
            out.add(13 * suit + r)
    if rank in (0, 1):
        out.update({13 * suit + 12, 13 * suit + 11})  # around a high ace
    if rank in (11, 12):
        out.add(13 * suit)
    return out


def _extensions(cards: tuple[int, ...]) -> set[int]:
    """Natural kinds that could extend the meld ``cards``."""
    naturals = [kind(c) for c in cards if not is_joker(c)]
    ranks = {k % 13 for k in naturals}
    if len(ranks) == 1:
        r = ranks.pop()
        return {13 * s + r for s in range(4)}
    suit = naturals[0] // 13
    lo, hi = min(ranks), max(ranks)
    out = {13 * suit + r for r in (lo - 2, lo - 1, hi + 1, hi + 2) if 0 <= r < 13}
    if hi >= 11 or lo == 0:
        out.add(13 * suit)
    return out


def finishing_outs(rest: tuple[int, ...], left, know: Knowledge, state: RoundState, thr: int) -> int:
    """Unseen copies ``x`` such that ``rest + x`` melds all but one card with enough value.

    Partitions are searched with weight 1000 × cards + value; the one with the
    drawn card uses at most one meld holding it (``lookahead.with_draw``).
    """
    o = state.options
    n = len(rest)
    full, xbit = (1 << n) - 1, 1 << n
    cover = lambda c: Candidate(c.cards, c.declare, 1000 * len(c.cards) + c.value, c.mask)  # noqa: E731
    part = Partition.of(rest, o)
    best_now = BestPartition([cover(c) for c in part.cands])

    def finishes(weight: int) -> bool:
        return weight // 1000 >= n and (weight % 1000 >= thr or not o.hand_needs_threshold)

    if finishes(best_now(full)[0]):
        return know.unseen_total  # any draw: meld the hand, discard the card drawn
    wanted: set[int] = {JOKER}
    for c in rest:
        if c in left and not is_joker(c):
            wanted |= _near(kind(c))
    for cand in part.best(by_cover)[1]:
        wanted |= _extensions(cand.cards)
    outs = 0
    for k in sorted(wanted):
        copies = know.unseen.get(k, 0)
        if not copies:
            continue
        x = next(c for c in ((104, 105) if k == JOKER else (k, k + 52)) if c not in rest)
        extra = [cover(m) for m in melds_with(x, rest, o)]
        if extra and any(finishes(with_draw(best_now, extra, full & ~(1 << i), xbit)[0]) for i in range(n)):
            outs += copies
    return outs
