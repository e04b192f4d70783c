"""Meld search over a hand: every legal new meld, and disjoint combinations.

Used by the `take_return = never` feasibility check, the automatic turn,
the staging helper's suggestions and the bots.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations, product

from .actions import Declaration
from .cards import is_joker, rank_of, rank_value, suit_of
from .errors import RuleViolation
from .melds import new_meld
from .runs import pos_rank, pos_value
from .options import Options
from .state import Meld


@dataclass(frozen=True)
class Candidate:
    """A legal new meld made of hand cards."""

    cards: tuple[int, ...]
    declare: tuple[Declaration, ...]
    value: int
    mask: int  # bit i set = hand[i] is used


def _sets(naturals: Sequence[int], jokers: Sequence[int]) -> Iterator[tuple[tuple[int, ...], tuple]]:
    by_rank: dict[int, dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))
    for c in naturals:
        by_rank[rank_of(c)][suit_of(c)].append(c)
    for suits in by_rank.values():
        keys = sorted(suits)
        for size in (2, 3, 4):
            for chosen in combinations(keys, size):
                for cards in product(*(suits[s] for s in chosen)):
                    value = rank_value(rank_of(cards[0]))
                    if size >= 3:
                        yield cards, (), value * size
                    if size <= 3:
                        for j in jokers[:2]:
                            yield (*cards, j), (), value * (size + 1)


def _runs(naturals: Sequence[int], jokers: Sequence[int], options: Options) -> Iterator[tuple[tuple[int, ...], tuple]]:
    by_suit: dict[int, dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))
    for c in naturals:
        r = rank_of(c)
        by_suit[suit_of(c)][r].append(c)
        if r == 1:
            by_suit[suit_of(c)][14].append(c)
    allowed = 1 if jokers else 0
    for suit, pos in by_suit.items():
        for lo in range(1, 13):
            missing: list[int] = []
            for hi in range(lo, min(lo + 12, 14) + 1):
                if hi not in pos:
                    missing.append(hi)
                    if len(missing) > allowed:
                        break
                if hi - lo < 2 or (hi == 14 and lo <= 2):
                    continue
                span_value = sum(pos_value(p, options) for p in range(lo, hi + 1))
                if not missing:
                    for cards in product(*(pos[p] for p in range(lo, hi + 1))):
                        yield cards, (), span_value
                # a joker fills the gap, or stands for any rank of the span (a held
                # natural then stays in hand for another meld)
                for spot in missing or (range(lo, hi + 1) if jokers else ()):
                    present = [p for p in range(lo, hi + 1) if p != spot]
                    if len(present) < 2:
                        continue
                    end = spot in (lo, hi)  # the engine may put an end joker elsewhere
                    for cards in product(*(pos[p] for p in present)):
                        for j in jokers[:2]:
                            decl: tuple = ()
                            if options.end_joker == "declared" and end:
                                decl = ((j, pos_rank(spot), suit),)
                            yield (*cards, j), decl, (None if end else span_value)


def candidates(hand: Sequence[int], options: Options) -> list[Candidate]:
    """Every distinct legal new meld of cards from ``hand``."""
    index = {c: i for i, c in enumerate(hand)}
    naturals = [c for c in hand if not is_joker(c)]
    jokers = [c for c in hand if is_joker(c)]
    seen: set[tuple] = set()
    out: list[Candidate] = []
    for cards, decl, value in [*_sets(naturals, jokers), *_runs(naturals, jokers, options)]:
        key = (frozenset(cards), decl)
        if key in seen:
            continue
        seen.add(key)
        if value is None:  # let the engine place an end joker and judge the meld
            try:
                value = new_meld(cards, options, decl).value
            except RuleViolation:
                continue
        mask = 0
        for c in cards:
            mask |= 1 << index[c]
        out.append(Candidate(tuple(sorted(cards)), decl, value, mask))
    out.sort(key=lambda c: (-c.value, c.cards))
    return out


def combos(cands: Sequence[Candidate], max_combos: int = 200_000) -> Iterator[tuple[Candidate, ...]]:
    """Every non-empty combination of pairwise disjoint candidates (bounded)."""
    count = 0
    stack: list[Candidate] = []

    def rec(start: int, used: int) -> Iterator[tuple[Candidate, ...]]:
        nonlocal count
        for i in range(start, len(cands)):
            c = cands[i]
            if c.mask & used:
                continue
            stack.append(c)
            count += 1
            if count > max_combos:
                stack.pop()
                return
            yield tuple(stack)
            yield from rec(i + 1, used | c.mask)
            stack.pop()

    yield from rec(0, 0)


def find(
    hand: Sequence[int],
    options: Options,
    accept: Callable[[tuple[Candidate, ...], int], bool],
    key: Callable[[tuple[Candidate, ...], int], tuple] | None = None,
    cands: Sequence[Candidate] | None = None,
) -> tuple[Candidate, ...] | None:
    """A combination accepted by ``accept(combo, used_mask)``.

    With ``key`` the accepted combination of lowest key is returned; without,
    the first one found.
    """
    if cands is None:
        cands = candidates(hand, options)
    best, best_key = None, None
    for combo in combos(cands):
        used = 0
        for c in combo:
            used |= c.mask
        if not accept(combo, used):
            continue
        if key is None:
            return combo
        k = key(combo, used)
        if best_key is None or k < best_key:
            best, best_key = combo, k
    return best


def left_after(hand: Sequence[int], used: int) -> tuple[int, ...]:
    return tuple(c for i, c in enumerate(hand) if not used >> i & 1)


def max_value(cands: Sequence[Candidate], full: int) -> tuple[int, tuple[Candidate, ...]]:
    """The disjoint combination of greatest total meld value (memoised)."""
    by_low: dict[int, list[Candidate]] = defaultdict(list)
    for c in cands:
        by_low[(c.mask & -c.mask).bit_length() - 1].append(c)
    memo: dict[int, tuple[int, tuple[Candidate, ...]]] = {}

    def best(avail: int) -> tuple[int, tuple[Candidate, ...]]:
        if avail == 0:
            return 0, ()
        if avail in memo:
            return memo[avail]
        low = (avail & -avail).bit_length() - 1
        res = best(avail & ~(1 << low))
        for c in by_low.get(low, ()):
            if c.mask & ~avail:
                continue
            v, rest = best(avail & ~c.mask)
            if v + c.value > res[0]:
                res = (v + c.value, (c, *rest))
        memo[avail] = res
        return res

    return best(full)
