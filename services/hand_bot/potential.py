"""A hand's potential: the chance to open, or to go out, within the next few draws.

The one-draw lookahead (``lookahead.py``) sees one card ahead; a round lasts
about seven turns a seat, so what a discard costs is better judged over
several. ``Potential`` deals the seat's next ``horizon`` draws from the cards
it cannot see (public information only), ``samples`` times, the same
draws for every hand it is asked about (common random numbers), and scores
a hand by how soon those draws would let it

- closed: lay melds worth the threshold in force (an opening);
- open: meld or lay off all its cards but one (going out), else by the
  points it would still hold.

Given a ``belief.Belief`` (expert), each sample's draws are the top of a
stock dealt from it: cards known to be in another hand are never drawn,
cards an opponent is unlikely to hold (it threw or passed their neighbours)
come more often. Without one, the draws are uniform over the unseen cards.

The seat is assumed to keep what the draws make useful and throw the rest
(an optimistic but even-handed assumption for ranking discards). Draws are
seeded from the position, so the same position always scores the same.
"""

from __future__ import annotations

import random
import time
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from hand_engine import hand_total, is_joker
from hand_engine import threshold
from hand_engine import Candidate, candidates
from hand_engine import RoundState

from .belief import Belief, visible
from .hand_eval import Partition, by_cover, left_after
from .knowledge import fits_table
from .lookahead import BestPartition

#: how much a turn sooner is worth, as a share of the round's remaining stake
DECAY = 0.8
#: samples dealt when only a CPU deadline bounds them
MAX_SAMPLES = 256


@dataclass(frozen=True)
class PotentialStyle:
    """How a planner style weighs its discard by the potential (``best_discard``)."""

    samples: int = 32  # samples of the next draws
    horizon: int = 5  # draws a sample looks ahead
    k: int = 6  # discards weighed (the cheapest by the static scores)
    open_worth: float = 200.0  # points of a sure opening next turn (closed)
    out_worth: float = 50.0  # points of a sure going out next turn (open)
    progress: float = 0.0  # closed: credit for meld value short of the threshold
    in_open: bool = True  # weigh the discard this way once open too (else the lookahead)
    hazard: bool = False  # open: weigh the points held now by the chance an opponent goes out first


def best_discard(state: RoundState, me: int, legal: Sequence[tuple[float, int, float]], ps: PotentialStyle,
                 mix: float, belief: Belief | None = None, samples: int | None = None,
                 deadline: float | None = None, hazard: float = 0.0) -> int:
    """The card of ``legal`` ((static cost, card, danger), cheapest first) whose loss leaves
    the hand the most potential, less ``mix`` × its static cost and its danger.

    Samples are added one at a time for every card (common random numbers) until
    ``samples`` or, past two, the deciding thread's CPU clock reaching ``deadline``.
    ``hazard``: the chance an opponent goes out before the seat's next turn."""
    pot = Potential(state, me, samples or (MAX_SAMPLES if deadline else ps.samples), ps.horizon, belief)
    hand = state.seats[me].hand
    opened = state.seats[me].opened
    top = list(legal[: ps.k])
    rests = [tuple(c for c in hand if c != card) for _, card, _ in top]
    worth = [0.0] * len(top)
    done = 0
    drops = [hand.index(card) for _, card, _ in top]
    for draws in pot.iter_draws():
        if deadline is not None and done >= 2 and time.thread_time() > deadline:
            break
        if opened:
            for i, (p_out, held) in enumerate(pot.open_many(hand, drops, draws)):
                worth[i] += ps.out_worth * p_out - held
        else:
            for i, p in enumerate(pot.closed_many(hand, drops, draws, ps.progress)):
                worth[i] += ps.open_worth * p
        done += 1
    values = [w / max(1, done) for w in worth]
    if opened and ps.hazard:
        j = state.options.joker_in_hand
        values = [(1 - hazard) * v - hazard * hand_total(rest, j) for v, rest in zip(values, rests)]
    values = [v - mix * cost - danger for v, (cost, _, danger) in zip(values, top)]
    return top[max(range(len(top)), key=lambda i: (values[i], -i))][1]


class Potential:
    def __init__(self, state: RoundState, me: int, samples: int, horizon: int,
                 belief: Belief | None = None) -> None:
        self.state, self.me = state, me
        self.o = state.options
        self.thr = threshold(state)
        seen = visible(state, me)
        pool = [c for c in range(106) if c not in seen]
        key = zlib.crc32(repr((sorted(seen), state.turn_no, me)).encode())
        self._rng, self._belief, self._pool = random.Random(key), belief, pool
        self.horizon = max(1, min(horizon, len(state.stock) if belief is not None else len(pool)))
        self.samples = samples
        self._dealt: list[tuple[int, ...]] = []
        self._fits: dict[int, bool] = {}

    def _deal(self) -> tuple[int, ...]:
        if self._belief is not None:
            return self._belief.deal(self._rng)[1][: self.horizon]
        return tuple(self._rng.sample(self._pool, self.horizon))

    def iter_draws(self) -> Iterator[tuple[int, ...]]:
        """The samples' next draws, dealt as they are asked for (the same every time)."""
        for i in range(self.samples):
            if i == len(self._dealt):
                self._dealt.append(self._deal())
            yield self._dealt[i]

    @property
    def draws(self) -> list[tuple[int, ...]]:
        """Every sample's next draws."""
        return list(self.iter_draws())

    def _fit(self, card: int) -> bool:
        if card not in self._fits:
            self._fits[card] = fits_table(card, self.state)
        return self._fits[card]

    def closed(self, rest: Sequence[int], progress: float = 0.0) -> float:
        """Mean over the samples of DECAY ** (draws until the melds reach the threshold);
        a sample that never gets there counts ``progress`` × (meld value / threshold)²."""
        rest = tuple(rest)
        return sum(self.closed_one(rest, d, progress) for d in self.iter_draws()) / self.samples

    def open(self, rest: Sequence[int]) -> tuple[float, float]:
        """(mean DECAY ** draws until going out, mean points held after the last draw)."""
        rest = tuple(rest)
        per = [self.open_one(rest, d) for d in self.iter_draws()]
        return sum(p for p, _ in per) / len(per), sum(h for _, h in per) / len(per)

    def closed_one(self, rest: tuple[int, ...], draws: tuple[int, ...], progress: float = 0.0) -> float:
        value = 0
        for t in range(1, len(draws) + 1):
            value = Partition.of((*rest, *draws[:t]), self.o).value()
            if value >= self.thr:
                return DECAY ** (t - 1)
        return progress * (value / self.thr) ** 2

    def open_one(self, rest: tuple[int, ...], draws: tuple[int, ...]) -> tuple[float, float]:
        j = self.o.joker_in_hand
        left: tuple[int, ...] = ()
        for t in range(1, len(draws) + 1):
            hand = (*rest, *draws[:t])
            _, combo = Partition.of(hand, self.o).best(by_cover)
            left = tuple(c for c in left_after(hand, combo) if is_joker(c) or not self._fit(c))
            if len(left) <= t:  # t - 1 useless cards thrown on the way, one for the last discard
                return DECAY ** (t - 1), 0.0
        keep = sorted(left, key=lambda c: hand_total((c,), j))[: max(0, len(left) - len(draws))]
        return 0.0, float(hand_total(keep, j))

    # ------------------------------------------------------------ every discard at once
    def closed_many(self, hand: tuple[int, ...], drops: Sequence[int], draws: tuple[int, ...],
                    progress: float = 0.0) -> list[float]:
        """``closed_one`` of ``hand`` without ``hand[i]``, for each ``i`` of ``drops``: the melds
        of the whole hand and the draws are found once, each discard masks its card out."""
        res: list[float | None] = [None] * len(drops)
        last = [0] * len(drops)
        for t in range(1, len(draws) + 1):
            cards = (*hand, *draws[:t])
            best = BestPartition(candidates(cards, self.o))
            full = (1 << len(cards)) - 1
            for k, i in enumerate(drops):
                if res[k] is None:
                    last[k] = best(full & ~(1 << i))[0]
                    if last[k] >= self.thr:
                        res[k] = DECAY ** (t - 1)
            if all(r is not None for r in res):
                break
        return [r if r is not None else progress * (v / self.thr) ** 2 for r, v in zip(res, last)]

    def open_many(self, hand: tuple[int, ...], drops: Sequence[int], draws: tuple[int, ...]
                  ) -> list[tuple[float, float]]:
        """``open_one`` of ``hand`` without ``hand[i]``, for each ``i`` of ``drops`` (as above)."""
        j = self.o.joker_in_hand
        res: list[tuple[float, float] | None] = [None] * len(drops)
        lefts: list[list[int]] = [[] for _ in drops]
        for t in range(1, len(draws) + 1):
            cards = (*hand, *draws[:t])
            best = BestPartition([Candidate(c.cards, c.declare, by_cover(c), c.mask)
                                  for c in candidates(cards, self.o)])
            full = (1 << len(cards)) - 1
            for k, i in enumerate(drops):
                if res[k] is not None:
                    continue
                used = 0
                for m in best(full & ~(1 << i))[1]:
                    used |= m.mask
                left = [c for b, c in enumerate(cards)
                        if b != i and not used >> b & 1 and (is_joker(c) or not self._fit(c))]
                if len(left) <= t:
                    res[k] = (DECAY ** (t - 1), 0.0)
                lefts[k] = left
            if all(r is not None for r in res):
                break
        out = []
        for r, left in zip(res, lefts):
            if r is None:
                keep = sorted(left, key=lambda c: hand_total((c,), j))[: max(0, len(left) - len(draws))]
                r = (0.0, float(hand_total(keep, j)))
            out.append(r)
        return out

