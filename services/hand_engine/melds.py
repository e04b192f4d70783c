"""Melds: a new one judged, a lay-off, a joker's retrieval, values and stand-ins; sets here,
runs' positions and placements in ``runs.py`` (docs/rules.md §4, §6).
"""

from __future__ import annotations

from collections.abc import Sequence

from ._fast import evolve
from .actions import Declaration
from .cards import is_joker, rank_of, rank_value, suit_of
from .errors import Code, RuleViolation, refuse
from .options import Options
from .runs import _choose_run, _run_meld, pos_value, run_positions
from .state import Meld, StandIn

def joker_limit_ok(kind: str, n_jokers: int, size: int, options: Options, new: bool) -> bool:
    if n_jokers <= 1:
        return True
    if options.jokers_per_meld == "one" or new or kind != "run":
        return False
    return n_jokers == 2 and size >= 4

# --------------------------------------------------------------------- sets
def _set_stand_ins(rank: int, naturals: Sequence[int], jokers: Sequence[int]) -> tuple[StandIn, ...]:
    if not jokers:
        return ()
    missing = sorted(set(range(4)) - {suit_of(c) for c in naturals})
    suit = missing[0] if len(missing) == 1 else -1
    return ((jokers[0], rank, suit),)


def _set_check(naturals: Sequence[int], jokers: Sequence[int], err: Code) -> int:
    ranks = {rank_of(c) for c in naturals}
    suits = [suit_of(c) for c in naturals]
    if len(ranks) != 1 or len(set(suits)) != len(suits):
        raise refuse(err, "a set needs one rank and different suits")
    if not 3 <= len(naturals) + len(jokers) <= 4:
        raise refuse(err, "a set has 3 or 4 cards")
    return ranks.pop()


def _set_meld(base: Meld, rank: int, naturals: Sequence[int], jokers: Sequence[int]) -> Meld:
    return Meld(
        id=base.id, owner=base.owner, kind="set",
        cards=tuple(sorted([*naturals, *jokers])),
        stand_ins=_set_stand_ins(rank, naturals, jokers), value=0,
        laid_turn=base.laid_turn, rank=rank,
    )


def _check_set_declare(meld: Meld, declare: Sequence[Declaration]) -> None:
    for joker, rank, suit in declare:
        s = meld.stand_in(joker)
        if s is None or rank != meld.rank or (s[2] != -1 and suit != s[2]):
            raise refuse(Code.JOKER_DECLARATION_INVALID, "declaration does not fit the set")
        if s[2] == -1 and suit in {suit_of(c) for c in meld.cards if not is_joker(c)}:
            raise refuse(Code.JOKER_DECLARATION_INVALID, "that suit is already in the set")


# ------------------------------------------------------------------- public
def with_value(meld: Meld, options: Options) -> Meld:
    if meld.kind == "set":
        value = rank_value(meld.rank) * len(meld.cards)
    else:
        value = sum(pos_value(p, options) for p in run_positions(meld))
    return evolve(meld, value=value)  # a fast dataclasses.replace (Meld has no __post_init__)


def new_meld(
    cards: Sequence[int],
    options: Options,
    declare: Sequence[Declaration] = (),
    meld_id: int = 0,
    owner: int = 0,
    turn: int = 0,
) -> Meld:
    """Judge ``cards`` as a new meld; raise :class:`RuleViolation` if illegal."""
    naturals = [c for c in cards if not is_joker(c)]
    jokers = [c for c in cards if is_joker(c)]
    if len(cards) < 3:
        raise refuse(Code.INVALID_MELD, "a meld has at least 3 cards")
    _check_declare_jokers(declare, jokers)
    if not joker_limit_ok("run", len(jokers), len(cards), options, new=True):
        raise refuse(Code.JOKER_LIMIT, "a new meld holds at most one joker")
    base = Meld(id=meld_id, owner=owner, kind="", cards=(), stand_ins=(), value=0, laid_turn=turn)
    if len({rank_of(c) for c in naturals}) == 1 and len(naturals) >= 2:
        rank = _set_check(naturals, jokers, Code.INVALID_MELD)
        meld = _set_meld(base, rank, naturals, jokers)
        _check_set_declare(meld, declare)
        return with_value(meld, options)
    suits = {suit_of(c) for c in naturals}
    if len(suits) != 1 or len(cards) > 13:
        raise refuse(Code.INVALID_MELD, "not a set nor a run of one suit")
    suit = suits.pop()
    cand = _choose_run(suit, {}, naturals, jokers, options, declare, Code.INVALID_MELD)
    return with_value(_run_meld(base, cand, suit, ()), options)


def _check_declare_jokers(declare: Sequence[Declaration], jokers: Sequence[int]) -> None:
    seen = set()
    for d in declare:
        if len(d) != 3 or d[0] not in jokers or d[0] in seen:
            raise refuse(Code.JOKER_DECLARATION_INVALID, "a declaration must name a joker of the move")
        if not (1 <= d[1] <= 13 and 0 <= d[2] <= 3):
            raise refuse(Code.JOKER_DECLARATION_INVALID, "a declared card needs rank 1..13 and suit 0..3")
        seen.add(d[0])


def lay_off(meld: Meld, cards: Sequence[int], options: Options, declare: Sequence[Declaration] = ()) -> Meld:
    """The meld after adding ``cards``; jokers already in it keep their stand-ins."""
    naturals = [c for c in cards if not is_joker(c)]
    jokers = [c for c in cards if is_joker(c)]
    if not cards:
        raise refuse(Code.INVALID_LAYOFF, "nothing to lay off")
    _check_declare_jokers(declare, jokers)
    total_jokers = len(jokers) + len(meld.stand_ins)
    size = len(meld.cards) + len(cards)
    if not joker_limit_ok(meld.kind, total_jokers, size, options, new=False):
        raise refuse(Code.JOKER_LIMIT, "too many jokers in that meld")
    if meld.kind == "set":
        all_nat = [c for c in meld.cards if not is_joker(c)] + naturals
        all_jok = [c for c in meld.cards if is_joker(c)] + jokers
        if any(rank_of(c) != meld.rank for c in naturals):
            raise refuse(Code.INVALID_LAYOFF, "wrong rank for that set")
        _set_check(all_nat, all_jok, Code.INVALID_LAYOFF)
        old = meld.stand_ins[0] if meld.stand_ins else None
        if old and old[2] != -1 and old[2] in {suit_of(c) for c in naturals}:
            raise refuse(Code.INVALID_LAYOFF, "that suit is held by the joker; retrieve it instead")
        out = _set_meld(meld, meld.rank, all_nat, all_jok)
        _check_set_declare(out, declare)
        return with_value(out, options)
    if any(suit_of(c) != meld.suit for c in naturals):
        raise refuse(Code.INVALID_LAYOFF, "wrong suit for that run")
    cand = _choose_run(meld.suit, run_positions(meld), naturals, jokers, options, declare, Code.INVALID_LAYOFF)
    return with_value(_run_meld(meld, cand, meld.suit, meld.stand_ins), options)


def retrieve(meld: Meld, joker: int, cards: Sequence[int], options: Options) -> Meld:
    """The meld after swapping ``joker`` out for the natural ``cards``."""
    stand = meld.stand_in(joker)
    if stand is None:
        raise refuse(Code.INVALID_RETRIEVAL, "that joker is not in the meld")
    if any(is_joker(c) for c in cards) or not cards:
        raise refuse(Code.INVALID_RETRIEVAL, "retrieve with natural cards")
    if meld.kind == "run":
        if len(cards) != 1 or rank_of(cards[0]) != stand[1] or suit_of(cards[0]) != meld.suit:
            raise refuse(Code.INVALID_RETRIEVAL, "give exactly the card the joker stands for")
        pos = run_positions(meld)
        for p, c in pos.items():
            if c == joker:
                pos[p] = cards[0]
        return with_value(_run_meld(meld, pos, meld.suit, [s for s in meld.stand_ins if s[0] != joker]), options)
    naturals = [c for c in meld.cards if not is_joker(c)]
    present = {suit_of(c) for c in naturals}
    missing = set(range(4)) - present
    if any(rank_of(c) != meld.rank for c in cards) or len({suit_of(c) for c in cards}) != len(cards):
        raise refuse(Code.INVALID_RETRIEVAL, "wrong cards for that set")
    if not {suit_of(c) for c in cards} <= missing:
        raise refuse(Code.INVALID_RETRIEVAL, "a suit already in the set")
    if len(naturals) == 3:
        need = 1
    elif options.set_joker_retrieval == "both_missing":
        need = 2
    else:
        need = 1
    if len(cards) != need:
        raise refuse(Code.INVALID_RETRIEVAL, f"retrieving this joker takes {need} card(s)")
    all_nat = naturals + list(cards)
    out = _set_meld(meld, meld.rank, all_nat, [j for j in meld.cards if is_joker(j) and j != joker])
    return with_value(out, options)


def try_new_meld(cards: Sequence[int], options: Options) -> Meld | None:
    try:
        return new_meld(cards, options)
    except RuleViolation:
        return None
