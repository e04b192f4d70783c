"""What a bot knows: the public part of a position plus its own hand.

Everything here is read from fields every seat sees (pile, melds, hand
sizes, who is open, stock size) and from the bot's own hand. The bot's
simulated position (``determinize``) fills the hidden cards at random; this
module never reads them, so nothing a bot estimates depends on them.

Cards are grouped by *kind*: ``card % 52`` for naturals (two physical copies
each) and 104 for jokers (two copies).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from hand_engine import RuleViolation
from hand_engine import is_joker
from hand_engine import lay_off
from hand_engine import RoundState

JOKER = 104


def kind(card: int) -> int:
    return JOKER if card >= 104 else card % 52


def _rank_suit(k: int) -> tuple[int, int]:
    return k % 13 + 1, k // 13


def _kind_at(pos: int, suit: int) -> int | None:
    """The natural kind at run position ``pos`` (1..14, 14 = high ace) of ``suit``."""
    if not 1 <= pos <= 14:
        return None
    return 13 * suit + (0 if pos == 14 else pos - 1)


def _positions(rank: int) -> tuple[int, ...]:
    return (1, 14) if rank == 1 else (rank,)


def _windows(*positions: int) -> Iterator[tuple[int, int, int]]:
    """Legal three-position run windows holding every one of ``positions``."""
    for lo in range(max(positions) - 2, min(positions) + 1):
        if lo >= 1 and lo + 2 <= 14 and not (lo + 2 == 14 and lo <= 2):
            yield lo, lo + 1, lo + 2


def pair_completions(a: int, b: int) -> tuple[int, ...]:
    """Natural kinds that make a legal three-card meld with naturals ``a`` and ``b``."""
    (ra, sa), (rb, sb) = _rank_suit(kind(a)), _rank_suit(kind(b))
    if ra == rb:
        return () if sa == sb else tuple(13 * s + ra - 1 for s in range(4) if s not in (sa, sb))
    if sa != sb:
        return ()
    out: set[int] = set()
    for pa in _positions(ra):
        for pb in _positions(rb):
            if 1 <= abs(pa - pb) <= 2:
                for w in _windows(pa, pb):
                    out.update(_kind_at(p, sa) for p in w if p not in (pa, pb))
    return tuple(sorted(out))


def run_neighbours(card: int, d: int) -> set[int]:
    """Natural kinds ``d`` places from natural ``card`` in a run of its suit (the ace low and high)."""
    rank, suit = _rank_suit(kind(card))
    out = {_kind_at(p + step, suit) for p in _positions(rank) for step in (-d, d)}
    return out - {None, kind(card)}


def meld_partners(card: int) -> Iterator[tuple[int, int]]:
    """Pairs of natural kinds that make a three-card meld with natural ``card``."""
    rank, suit = _rank_suit(kind(card))
    others = [s for s in range(4) if s != suit]
    for i in range(3):
        for j in range(i + 1, 3):
            yield 13 * others[i] + rank - 1, 13 * others[j] + rank - 1
    for p in _positions(rank):
        for w in _windows(p):
            k1, k2 = (_kind_at(x, suit) for x in w if x != p)
            yield k1, k2


@dataclass(frozen=True)
class Knowledge:
    me: int
    n: int
    unseen: Counter  # kind -> physical copies this seat cannot see
    unseen_total: int  # cards in other hands and the stock
    hand_sizes: tuple[int, ...]
    opened: tuple[bool, ...]
    stock_size: int
    partner: int | None

    @classmethod
    def of(cls, state: RoundState, me: int) -> Knowledge:
        seen: Counter = Counter(kind(c) for c in _visible(state, me))
        unseen = Counter({k: 2 - seen[k] for k in (*range(52), JOKER) if seen[k] < 2})
        sizes = tuple(len(s.hand) for s in state.seats)  # hand sizes are public
        partner = (me + 2) % 4 if state.options.partnership else None
        return cls(me, state.n, unseen, sum(unseen.values()), sizes,
                   tuple(s.opened for s in state.seats), len(state.stock), partner)

    @property
    def next_seat(self) -> int:
        return (self.me + 1) % self.n

    def opponents(self) -> list[int]:
        return [s for s in range(self.n) if s != self.me and s != self.partner]

    def holds(self, seat: int, k: int) -> float:
        """Chance that ``seat`` holds at least one unseen copy of kind ``k``."""
        copies = self.unseen.get(k, 0)
        if copies == 0 or self.unseen_total == 0:
            return 0.0
        q = min(1.0, self.hand_sizes[seat] / self.unseen_total)
        return 1.0 - (1.0 - q) ** copies

    def outs(self, kinds: Iterable[int]) -> int:
        return sum(self.unseen.get(k, 0) for k in set(kinds))


def _visible(state: RoundState, me: int) -> Iterator[int]:
    yield from state.seats[me].hand
    yield from state.pile
    for m in state.melds:
        yield from m.cards


#: (card, seat, the mover's knowledge, its position) -> the chance that ``seat`` takes the card
Feeds = Callable[[int, int, "Knowledge", RoundState], float]


def feeds(card: int, seat: int, know: Knowledge, state: RoundState) -> float:
    """A rough chance that ``seat`` can use ``card`` if it becomes the pile top."""
    if is_joker(card):
        return 1.0
    p_meld = 0.0
    jk = know.holds(seat, JOKER)
    for k1, k2 in meld_partners(card):
        h1, h2 = know.holds(seat, k1), know.holds(seat, k2)
        p_meld += h1 * h2 + jk * (h1 + h2) / 2
    p_meld = min(1.0, p_meld)
    o = state.options
    free_take = know.opened[seat] and o.discard_take in ("open_required", "use_if_opening")
    if free_take and fits_table(card, state):
        return 1.0
    if not know.opened[seat] and o.discard_take != "use_if_opening":
        p_meld *= 0.5  # it must also complete their opening
    return p_meld


def fits_table(card: int, state: RoundState) -> bool:
    for m in state.melds:
        try:
            lay_off(m, (card,), state.options)
            return True
        except RuleViolation:
            continue
    return False


def pair_outs(a: int, b: int, know: Knowledge) -> int:
    """Unseen copies that complete natural pair ``(a, b)`` (jokers included)."""
    comps = pair_completions(a, b)
    return know.outs(comps) + (know.unseen.get(JOKER, 0) if comps else 0)


def related(card: int, hand: Sequence[int]) -> bool:
    """Whether ``card`` makes a pair (or better) with some card of ``hand``."""
    if is_joker(card):
        return True
    return any(is_joker(c) or pair_completions(card, c) for c in hand if c != card)
