"""The staging helper (docs/rules.md §11): judge candidate melds green/neutral/red."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .cards import check_distinct, is_joker, rank_of, suit_of
from .errors import Code, RuleViolation, refuse
from .melds import new_meld
from .rules import is_open, threshold
from .state import RoundState, StandIn


@dataclass(frozen=True)
class Verdict:
    cards: tuple[int, ...]
    colour: str  # "green" | "neutral" | "red"
    kind: str = ""  # green: "set" | "run"
    value: int = 0
    stand_ins: tuple[StandIn, ...] = ()
    possible: tuple[str, ...] = ()  # neutral: kinds still possible


@dataclass(frozen=True)
class Staging:
    verdicts: tuple[Verdict, ...]
    show_counter: bool  # only before the player (or team) is open
    total: int
    threshold: int
    missing: int


def _set_possible(naturals: list[int], jokers: list[int]) -> bool:
    suits = [suit_of(c) for c in naturals]
    return (
        len({rank_of(c) for c in naturals}) <= 1
        and len(set(suits)) == len(suits)
        and len(jokers) <= 1
        and len(naturals) + len(jokers) <= 4
    )


def _run_possible(naturals: list[int], jokers: list[int]) -> bool:
    if len(jokers) > 1 or len({suit_of(c) for c in naturals}) > 1:
        return False
    ranks = [rank_of(c) for c in naturals]
    if len(set(ranks)) != len(ranks) or len(naturals) + len(jokers) > 13:
        return False
    if not ranks:
        return True
    for ace in (1, 14):
        pos = [ace if r == 1 else r for r in ranks]
        lo, hi = min(pos), max(pos)
        if hi - lo + 1 <= 13 and not (hi == 14 and lo <= 2):
            return True
    return False


def judge(cards: Sequence[int], state: RoundState) -> Verdict:
    cards = tuple(cards)
    try:
        m = new_meld(cards, state.options)
        return Verdict(cards, "green", m.kind, m.value, m.stand_ins)
    except RuleViolation:
        pass
    naturals = [c for c in cards if not is_joker(c)]
    jokers = [c for c in cards if is_joker(c)]
    kinds = tuple(
        k for k, ok in (("set", _set_possible(naturals, jokers)), ("run", _run_possible(naturals, jokers))) if ok
    )
    return Verdict(cards, "neutral" if kinds else "red", possible=kinds)


def evaluate(state: RoundState, seat: int, candidates: Sequence[Sequence[int]]) -> Staging:
    """Judge disjoint candidate melds from ``seat``'s hand."""
    if type(seat) is not int or not 0 <= seat < state.n:
        raise refuse(Code.INVALID_ARGUMENT, f"no seat {seat!r}")
    flat = [c for cand in candidates for c in cand]
    try:
        check_distinct(flat)
    except RuleViolation as exc:
        if exc.code is Code.DUPLICATE_CARD:
            raise refuse(Code.STAGING_OVERLAP, "a card is in two candidates") from None
        raise
    hand = set(state.seats[seat].hand)
    for c in flat:
        if c not in hand:
            raise refuse(Code.CARD_NOT_IN_HAND, "card not in your hand", card=c)
    verdicts = tuple(judge(c, state) for c in candidates)
    total = sum(v.value for v in verdicts if v.colour == "green")
    thr = threshold(state)
    return Staging(verdicts, not is_open(state, seat), total, thr, max(0, thr - total))
