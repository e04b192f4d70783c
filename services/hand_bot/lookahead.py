"""Strong bot: one-draw lookahead for the discard.

For each of the few best discards (by ``hand_eval.discard_scores``), the
hand left is scored by its expected worth after the seat's next draw, over
every unseen kind weighted by its unseen copies (public counts only):

- closed: the chance-weighted worth of reaching the opening threshold (an
  opening saves the unopened penalty), with a bonus when the whole hand
  but one card would meld (a Hand finish), and partial credit for progress;
- open: the points the seat would still hold after laying its best melds
  and discarding its highest card, or the winner's bonus when it would go
  out; weighed against what it pays now if the round ends first.

Draws that make no new meld with the hand leave it as it is, so only kinds
near the hand's cards (and jokers) are searched; the melds they make are
found on the small sub-hand of the same rank and suit.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from hand_engine import hand_total, hand_value, is_joker, rank_of, suit_of
from hand_engine import threshold
from hand_engine import Candidate
from hand_engine import RoundState

from .hand_eval import Partition
from .knowledge import JOKER, Knowledge, fits_table, kind, pair_completions

#: discards examined by the lookahead (the cheapest by the static scores)
TOP_K = 5


def _near_kinds(hand: Sequence[int]) -> set[int]:
    out: set[int] = {JOKER}
    for c in hand:
        if is_joker(c):
            continue
        k = kind(c)
        rank, suit = k % 13, k // 13
        out.update(13 * s + rank for s in range(4))
        out.update(13 * suit + r for r in range(max(0, rank - 2), min(12, rank + 2) + 1))
        if rank <= 1 or rank >= 11:
            out.update({13 * suit, 13 * suit + 1, 13 * suit + 11, 13 * suit + 12})
    return out


def _physical(k: int, hand: Sequence[int]) -> int:
    return next(c for c in ((104, 105) if k == JOKER else (k, k + 52)) if c not in hand)


def _pos_value(pos: int, options) -> int:
    return options.low_ace_value if pos == 1 else 11 if pos == 14 else min(pos, 10)


def _run_ok(lo: int, hi: int) -> bool:
    return lo >= 1 and hi <= 14 and 3 <= hi - lo + 1 <= 13 and not (hi == 14 and lo <= 2)


def _cand(every: tuple[int, ...], mask: int, value: int) -> Candidate:
    return Candidate(tuple(c for i, c in enumerate(every) if mask >> i & 1), (), value, mask)


def melds_with(x: int, hand: tuple[int, ...], options) -> list[Candidate]:
    """New melds holding natural or joker ``x`` and cards of ``hand`` (masks over
    ``hand + (x,)``, x last), built directly: values follow docs/rules.md §4, an end
    joker counted at either end (an estimate; the engine referees real melds)."""
    if is_joker(x):
        return _joker_melds(x, hand, options)
    n = len(hand)
    xbit = 1 << n
    every = (*hand, x)
    joker = next((i for i, c in enumerate(hand) if is_joker(c)), None)
    xr, xs = rank_of(x), suit_of(x)
    out: list[Candidate] = []
    rv = 11 if xr == 1 else min(xr, 10)
    same: dict[int, int] = {}
    for i, c in enumerate(hand):
        if not is_joker(c) and rank_of(c) == xr and suit_of(c) != xs:
            same.setdefault(suit_of(c), i)
    others = list(same.values())
    for size in (1, 2, 3):
        for combo in combinations(others, size):
            mask = xbit
            for i in combo:
                mask |= 1 << i
            if size >= 2:
                out.append(_cand(every, mask, rv * (size + 1)))
            if size <= 2 and joker is not None:
                out.append(_cand(every, mask | 1 << joker, rv * (size + 2)))
    pos: dict[int, int] = {}
    for i, c in enumerate(hand):
        if not is_joker(c) and suit_of(c) == xs and rank_of(c) != xr:
            pos.setdefault(rank_of(c), i)
            if rank_of(c) == 1:
                pos.setdefault(14, i)
    for xp in ((1, 14) if xr == 1 else (xr,)):
        for lo in range(max(1, xp - 12), xp + 1):
            gaps = [p for p in range(lo, xp) if p not in pos]
            if len(gaps) > 1 or (gaps and joker is None):
                continue
            for hi in range(xp, min(14, lo + 12) + 1):
                if hi > xp and hi not in pos:
                    gaps.append(hi)
                    if len(gaps) > 1 or joker is None:
                        break
                if not _run_ok(lo, hi):
                    continue
                mask = xbit
                for p in range(lo, hi + 1):
                    if p != xp and p in pos:
                        mask |= 1 << pos[p]
                if gaps:
                    mask |= 1 << joker
                value = sum(_pos_value(p, options) for p in range(lo, hi + 1))
                out.append(_cand(every, mask, value))
    return out


def _joker_melds(x: int, hand: tuple[int, ...], options) -> list[Candidate]:
    """Three-card melds of a drawn joker with a pair of the hand."""
    out = []
    for i, a in enumerate(hand):
        for k in range(i + 1, len(hand)):
            b = hand[k]
            if is_joker(a) or is_joker(b) or not pair_completions(a, b):
                continue
            if rank_of(a) == rank_of(b):
                value = 3 * (11 if rank_of(a) == 1 else min(rank_of(a), 10))
            else:
                value = hand_value(a) + hand_value(b) + (hand_value(a) + hand_value(b)) // 2
            out.append(Candidate((a, b, x), (), value, 1 << i | 1 << k | 1 << len(hand)))
    return out


def end_hazard(know: Knowledge) -> float:
    """A rough chance that an opponent goes out before this seat moves again."""
    stay = 1.0
    for s in know.opponents():
        if know.opened[s]:
            h = know.hand_sizes[s]
            stay *= 1.0 - (0.45 if h <= 2 else 0.25 if h <= 4 else 0.1 if h <= 6 else 0.04)
    return 1.0 - stay


class BestPartition:
    """``search.max_value`` with its memo kept across calls on one candidate list."""

    def __init__(self, cands: Sequence[Candidate]) -> None:
        self.by_low: dict[int, list[Candidate]] = {}
        for c in cands:
            self.by_low.setdefault((c.mask & -c.mask).bit_length() - 1, []).append(c)
        self.memo: dict[int, tuple[int, tuple[Candidate, ...]]] = {0: (0, ())}

    def __call__(self, avail: int) -> tuple[int, tuple[Candidate, ...]]:
        memo = self.memo
        if avail in memo:
            return memo[avail]
        low = (avail & -avail).bit_length() - 1
        res = self(avail & ~(1 << low))
        for c in self.by_low.get(low, ()):
            if c.mask & ~avail:
                continue
            v, rest = self(avail & ~c.mask)
            if v + c.value > res[0]:
                res = (v + c.value, (c, *rest))
        memo[avail] = res
        return res


def with_draw(best_now: BestPartition, extra: list[Candidate], avail: int, xbit: int
               ) -> tuple[int, tuple[Candidate, ...]]:
    """The best partition of the cards of ``avail`` plus the drawn card: either the
    drawn card stays out, or exactly one meld of ``extra`` holds it."""
    best = best_now(avail)
    for m in extra:
        if m.mask & ~(avail | xbit):
            continue
        v, rest = best_now(avail & ~m.mask)
        if v + m.value > best[0]:
            best = (v + m.value, (m, *rest))
    return best


class Lookahead:
    def __init__(self, state: RoundState, me: int, know: Knowledge) -> None:
        self.state, self.me, self.know = state, me, know
        self.o = state.options
        self.hand = state.seats[me].hand
        self.opened = state.seats[me].opened
        self.thr = threshold(state)
        self.part = Partition.of(self.hand, self.o)
        self.p_end = end_hazard(know)

    def _weigh(self, cands: list[Candidate]) -> list[Candidate]:
        if not self.opened:
            return cands
        j = self.o.joker_in_hand
        return [Candidate(c.cards, c.declare, hand_total(c.cards, j), c.mask) for c in cands]

    def values(self, discards: Sequence[int]) -> dict[int, float]:
        """Expected worth (higher is better) of the hand left by each discard."""
        hand, n = self.hand, len(self.hand)
        idx = {c: i for i, c in enumerate(hand)}
        base = self._weigh(self.part.cands)
        total = max(1, self.know.unseen_total)
        draws: list[tuple[float, int, list[Candidate]]] = []
        related = 0.0
        for k in sorted(_near_kinds(hand)):
            copies = self.know.unseen.get(k, 0)
            if not copies:
                continue
            x = _physical(k, hand)
            extra = self._weigh(melds_with(x, hand, self.o))
            if extra:  # a draw that makes no new meld leaves the hand as it is
                draws.append((copies / total, x, extra))
                related += copies / total
        out: dict[int, float] = {}
        best_now = BestPartition(base)
        for c in discards:
            i = idx[c]
            avail = ((1 << n) - 1) & ~(1 << i)
            rest = tuple(h for h in hand if h != c)
            value = (1.0 - related) * self._worth(rest, None, best_now(avail))
            for w, x, extra in draws:
                value += w * self._worth(rest, x, with_draw(best_now, extra, avail, 1 << n))
            if self.opened:
                now = hand_total(rest, self.o.joker_in_hand)
                value = -self.p_end * now + (1.0 - self.p_end) * value
            out[c] = value
        return out

    def _worth(self, rest: tuple[int, ...], x: int | None, best) -> float:
        """Worth of holding ``rest`` (+ the draw ``x``) laid out as ``best`` next turn."""
        score, combo = best
        cards = (*rest, x) if x is not None else rest
        used = {c for m in combo for c in m.cards}
        left = [c for c in cards if c not in used]
        j = self.o.joker_in_hand
        if self.opened:
            if x is not None and x in left and fits_table(x, self.state):
                left.remove(x)
            if len(left) <= 1:
                return 40.0  # goes out: the winner's bonus and a round won
            left_value = hand_total(left, j) - max(hand_value(c, j) for c in left)
            return -float(left_value)
        value = sum(m.value for m in combo) if combo else 0
        if x is None:
            value = score
        if value >= self.thr:
            covered = len(cards) - len(left)
            bonus = 60.0 if len(left) <= 1 and self.o.hand_multiplier > 1 else 0.0
            return 70.0 + 2.0 * covered + bonus - 0.3 * hand_total(left, j)
        return 70.0 * (value / self.thr) ** 2
