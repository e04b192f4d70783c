"""Runs (docs/rules.md §4): positions 1..14 (1 a low ace, 14 a high ace), their values, every
legal placement of naturals and jokers, the choice among them (``end_joker``, declarations),
and the run meld built from one."""

from __future__ import annotations

from collections.abc import Sequence

from .actions import Declaration
from .cards import is_joker, rank_of
from .errors import Code, refuse
from .options import Options
from .state import Meld, StandIn


def pos_rank(pos: int) -> int:
    return 1 if pos == 14 else pos


def pos_value(pos: int, options: Options) -> int:
    if pos == 1:
        return options.low_ace_value
    if pos == 14:
        return 11
    return min(pos, 10)


def _run_ok(lo: int, hi: int) -> bool:
    """A span of positions is a legal run shape (3..13 long checked by caller)."""
    return lo >= 1 and hi <= 14 and hi - lo + 1 <= 13 and not (hi == 14 and lo <= 2)


def _run_candidates(
    suit: int, fixed: dict[int, int], naturals: Sequence[int], jokers: Sequence[int]
) -> list[dict[int, int]]:
    """Every legal placement of ``naturals`` and ``jokers`` around ``fixed`` positions."""
    aces = [c for c in naturals if rank_of(c) == 1]
    others = [c for c in naturals if rank_of(c) != 1]
    if len(aces) > 1:
        return []
    ace_options = [[]] if not aces else [[(1, aces[0])], [(14, aces[0])]]
    out: list[dict[int, int]] = []
    for ace in ace_options:
        occ = dict(fixed)
        ok = True
        for pos, card in [*ace, *((rank_of(c), c) for c in others)]:
            if pos in occ:
                ok = False
                break
            occ[pos] = card
        if not ok or not occ:
            continue
        if any(p in occ for p in (1,)) and 14 in occ:
            continue
        lo, hi = min(occ), max(occ)
        gaps = [p for p in range(lo, hi + 1) if p not in occ]
        extra = len(jokers) - len(gaps)
        if extra < 0:
            continue
        for below in range(extra + 1):
            above = extra - below
            nlo, nhi = lo - below, hi + above
            if not _run_ok(nlo, nhi):
                continue
            spots = gaps + list(range(nlo, lo)) + list(range(hi + 1, nhi + 1))
            for perm in _assign(sorted(jokers), sorted(spots)):
                cand = dict(occ)
                cand.update(perm)
                out.append(cand)
    return out


def _assign(jokers: list[int], spots: list[int]) -> list[dict[int, int]]:
    if len(jokers) <= 1:
        return [dict(zip(spots, jokers))]
    # two jokers: both assignments (they are distinguishable by declaration)
    return [dict(zip(spots, jokers)), dict(zip(spots, reversed(jokers)))]


def _run_value(cand: dict[int, int], options: Options) -> int:
    return sum(pos_value(p, options) for p in cand)


def _matches(cand: dict[int, int], suit: int, declare: Sequence[Declaration]) -> bool:
    for joker, rank, dsuit in declare:
        hit = [p for p, c in cand.items() if c == joker]
        if not hit or pos_rank(hit[0]) != rank or dsuit != suit:
            return False
    return True


def _choose_run(
    suit: int,
    fixed: dict[int, int],
    naturals: Sequence[int],
    jokers: Sequence[int],
    options: Options,
    declare: Sequence[Declaration],
    err: Code,
) -> dict[int, int]:
    cands = _run_candidates(suit, fixed, naturals, jokers)
    if not cands:
        raise refuse(err, "the cards do not form a run")
    # end_joker = lower: the candidate whose jokers stand for the lower ranks (docs/rules.md §4,
    # ruling on decision 0101: "the lower card" is the lower rank, the low ace lowest)
    key = lambda c: (sorted(p for p, x in c.items() if is_joker(x) and x in jokers), _run_value(c, options))
    cands.sort(key=key)
    if declare and options.end_joker == "declared":
        ok = [c for c in cands if _matches(c, suit, declare)]
        if not ok:
            raise refuse(Code.JOKER_DECLARATION_INVALID, "no legal place for the declared joker")
        return ok[0]
    best = cands[0]
    if declare and not _matches(best, suit, declare):
        raise refuse(Code.JOKER_DECLARATION_INVALID, "the joker stands for the lower end here")
    return best


def _run_meld(base: Meld, cand: dict[int, int], suit: int, keep: Sequence[StandIn]) -> Meld:
    positions = sorted(cand)
    cards = tuple(cand[p] for p in positions)
    kept = {s[0]: s for s in keep}
    stand = tuple(
        kept.get(cand[p], (cand[p], pos_rank(p), suit)) for p in positions if is_joker(cand[p])
    )
    return Meld(
        id=base.id, owner=base.owner, kind="run", cards=cards, stand_ins=stand, value=0,
        laid_turn=base.laid_turn, suit=suit, low=positions[0],
    )


def run_positions(meld: Meld) -> dict[int, int]:
    return {meld.low + i: c for i, c in enumerate(meld.cards)}
