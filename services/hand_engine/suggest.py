"""Meld suggestions for a hand: the best opening, or the melds that shed the most."""

from __future__ import annotations

from dataclasses import dataclass

from .actions import MeldSpec
from .cards import hand_total, hand_value
from .errors import Code, refuse
from .rules import is_open, threshold
from .search import Candidate, candidates, max_value
from .state import RoundState


@dataclass(frozen=True)
class Suggestion:
    melds: tuple[MeldSpec, ...]
    values: tuple[int, ...]
    total: int  # sum of meld values
    threshold: int
    reaches_threshold: bool
    left_value: int  # hand value of the cards that would stay in hand


def _best(cands: list[Candidate], hand: tuple[int, ...], keep_one: bool) -> tuple[int, tuple[Candidate, ...]]:
    full = (1 << len(hand)) - 1
    value, combo = max_value(cands, full)
    used = 0
    for c in combo:
        used |= c.mask
    if not keep_one or used != full:
        return value, combo
    best: tuple[int, tuple[Candidate, ...]] = (0, ())
    for i in range(len(hand)):  # leave one card to discard
        v, co = max_value([c for c in cands if not c.mask >> i & 1], full & ~(1 << i))
        if v > best[0]:
            best = (v, co)
    return best


def suggest(state: RoundState, seat: int, goal: str = "opening") -> Suggestion:
    """``goal`` "opening": greatest meld value; "shed": least hand value left."""
    if type(seat) is not int or not 0 <= seat < state.n:
        raise refuse(Code.INVALID_ARGUMENT, f"no seat {seat!r}")
    if goal not in ("opening", "shed"):
        raise refuse(Code.INVALID_ARGUMENT, f"unknown goal {goal!r}")
    o = state.options
    hand = state.seats[seat].hand
    keep_one = o.going_out == "discard_required"
    found = candidates(hand, o)
    if goal == "opening":
        cands = found
    else:  # weigh a meld by the hand value it sheds
        cands = [
            Candidate(c.cards, c.declare, hand_total(c.cards, o.joker_in_hand), c.mask)
            for c in found
        ]
    _, combo = _best(cands, hand, keep_one)
    real = {(c.cards, c.declare): c.value for c in found} if goal == "shed" else {}
    values = tuple(real.get((c.cards, c.declare), c.value) for c in combo)
    total = sum(values)
    used = {x for c in combo for x in c.cards}
    thr = threshold(state)
    return Suggestion(
        melds=tuple(MeldSpec(c.cards, c.declare) for c in combo), values=values, total=total,
        threshold=thr, reaches_threshold=is_open(state, seat) or total >= thr,
        left_value=sum(hand_value(x, o.joker_in_hand) for x in hand if x not in used),
    )
