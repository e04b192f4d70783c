"""Perft-style counts for the meld search (like chess perft: fixed inputs, exact counts).

For a few fixed hands (text notation, ≤ 12 cards) and rule options this file
counts

* the legal new melds ``hand_engine.search.candidates`` lists, and
* the non-empty combinations of pairwise disjoint candidates
  ``hand_engine.search.combos`` yields,

and cross-checks them against an independent brute force that only uses the
meld judge ``hand_engine.melds.new_meld`` / ``try_new_meld`` on every subset of
3..13 cards of the hand. How the two are compared (README.md, "Perft"):

* a **card set** is the frozenset of card ids of a meld;
* a **placement** is the meld ``new_meld`` builds: kind, cards in meld order,
  joker stand-ins and value. The brute force judges each legal card set once
  with no declaration and once per joker per declared card (rank 1..13 × suit
  S H D C); each accepted call gives a placement. A set with a joker has one
  placement (a declared suit does not change the meld); a run has one under
  ``end_joker = lower`` and, under ``declared``, one per end the joker may
  take when the naturals are consecutive;
* ``candidates()`` lists one entry per placement (so under ``declared`` the
  same cards may appear twice, with different declarations), hence
  entries == placements, and its card sets == the brute-force card sets;
* ``combos()`` yields one combination per family of pairwise disjoint
  entries, hence its count == Σ over families of pairwise disjoint legal card
  sets of the product of their placement counts (computed here by a
  recursion over bit masks, not by enumerating combos).

Pinned numbers (``PINNED``) catch any change of either side; regenerate them
with ``.venv/bin/python -m tests.golden.test_perft`` after an intentional rules
change and review the diff.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations

import pytest

from hand_engine import Options, RuleViolation, format_cards, parse_cards, resolve
from hand_engine.cards import is_joker
from hand_engine.melds import new_meld, try_new_meld
from hand_engine.search import candidates, combos

HANDS: dict[str, str] = {
    "kout-51": "KS QS JS 7H 7D 7C 9C 10C JC",
    "sets-dup": "9H 9H#2 9S 9D 9C 9S#2 10H JH QH",
    "aces": "AH 2H 3H QH KH AS AD 2S 3S 4S",
    "aces-joker": "AH 2H 3H QH KH AS AD 2S 3S 4S JK",
    "clubs-2jk": "7C 8C 9C 10C JC 7D 7S 7H JK JK#2 2D 3D",
    "diamonds-2jk": "2D 9D 5D#2 7D#2 8D#2 9D#2 JK JK#2",
    "high-ace-jk": "10D JD QD KD AD JK 5S 5H",
    "straight-12": "AC 2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC",
    "jk-pairs": "5H 6H 9S 10S KD KC 3C 3S AD 2D 8D JK",
}

OPTIONS: dict[str, Options] = {
    "default": resolve(),
    "second_by_layoff": resolve(overrides={"jokers_per_meld": "second_by_layoff"}),
    "declared": resolve(overrides={"end_joker": "declared"}),
    "low_ace_1": resolve(overrides={"low_ace_value": 1}),
}

#: (hand, options) -> (brute force, search), column by column comparable:
#: brute force = (legal card sets, placements, Σ placement values, weighted families);
#: search = (distinct card sets of candidates(), candidates, Σ candidate values, combos())
PINNED: dict[tuple[str, str], tuple[tuple[int, int, int, int], tuple[int, int, int, int]]] = {
    ('kout-51', 'default'): ((3, 3, 80, 7), (3, 3, 80, 7)),
    ('kout-51', 'second_by_layoff'): ((3, 3, 80, 7), (3, 3, 80, 7)),
    ('kout-51', 'declared'): ((3, 3, 80, 7), (3, 3, 80, 7)),
    ('kout-51', 'low_ace_1'): ((3, 3, 80, 7), (3, 3, 80, 7)),
    ('sets-dup', 'default'): ((21, 21, 634, 81), (21, 21, 634, 81)),
    ('sets-dup', 'second_by_layoff'): ((21, 21, 634, 81), (21, 21, 634, 81)),
    ('sets-dup', 'declared'): ((21, 21, 634, 81), (21, 21, 634, 81)),
    ('sets-dup', 'low_ace_1'): ((21, 21, 634, 81), (21, 21, 634, 81)),
    ('aces', 'default'): ((6, 6, 125, 13), (6, 6, 125, 13)),
    ('aces', 'second_by_layoff'): ((6, 6, 125, 13), (6, 6, 125, 13)),
    ('aces', 'declared'): ((6, 6, 125, 13), (6, 6, 125, 13)),
    ('aces', 'low_ace_1'): ((6, 6, 95, 13), (6, 6, 95, 13)),
    ('aces-joker', 'default'): ((30, 30, 655, 111), (30, 30, 655, 111)),
    ('aces-joker', 'second_by_layoff'): ((30, 30, 655, 111), (30, 30, 655, 111)),
    ('aces-joker', 'declared'): ((30, 35, 730, 143), (30, 35, 730, 143)),
    ('aces-joker', 'low_ace_1'): ((30, 30, 505, 111), (30, 30, 505, 111)),
    ('clubs-2jk', 'default'): ((73, 73, 2195, 1013), (73, 73, 2195, 1013)),
    ('clubs-2jk', 'second_by_layoff'): ((73, 73, 2195, 1013), (73, 73, 2195, 1013)),
    ('clubs-2jk', 'declared'): ((73, 95, 2943, 1893), (73, 95, 2943, 1893)),
    ('clubs-2jk', 'low_ace_1'): ((73, 73, 2175, 1013), (73, 73, 2175, 1013)),
    ('diamonds-2jk', 'default'): ((24, 24, 630, 32), (24, 24, 630, 32)),
    ('diamonds-2jk', 'second_by_layoff'): ((24, 24, 630, 32), (24, 24, 630, 32)),
    ('diamonds-2jk', 'declared'): ((24, 34, 922, 50), (24, 34, 922, 50)),
    ('diamonds-2jk', 'low_ace_1'): ((24, 24, 630, 32), (24, 24, 630, 32)),
    ('high-ace-jk', 'default'): ((27, 27, 1044, 35), (27, 27, 1044, 35)),
    ('high-ace-jk', 'second_by_layoff'): ((27, 27, 1044, 35), (27, 27, 1044, 35)),
    ('high-ace-jk', 'declared'): ((27, 33, 1267, 42), (27, 33, 1267, 42)),
    ('high-ace-jk', 'low_ace_1'): ((27, 27, 1044, 35), (27, 27, 1044, 35)),
    ('straight-12', 'default'): ((55, 55, 2206, 350), (55, 55, 2206, 350)),
    ('straight-12', 'second_by_layoff'): ((55, 55, 2206, 350), (55, 55, 2206, 350)),
    ('straight-12', 'declared'): ((55, 55, 2206, 350), (55, 55, 2206, 350)),
    ('straight-12', 'low_ace_1'): ((55, 55, 2106, 350), (55, 55, 2106, 350)),
    ('jk-pairs', 'default'): ((6, 6, 128, 6), (6, 6, 128, 6)),
    ('jk-pairs', 'second_by_layoff'): ((6, 6, 128, 6), (6, 6, 128, 6)),
    ('jk-pairs', 'declared'): ((6, 8, 175, 8), (6, 8, 175, 8)),
    ('jk-pairs', 'low_ace_1'): ((6, 6, 118, 6), (6, 6, 118, 6)),
}

#: Cases where candidates() may miss legal melds (none since the search puts a
#: joker on held ranks of a run too, e.g. 5H JK 7H with 6H in hand). A case
#: listed here is a strict xfail of the cross-check.
KNOWN_GAP: set[tuple[str, str]] = set()

CASES = [(h, o) for h in HANDS for o in OPTIONS]


# ------------------------------------------------------------------ brute force
def _placement(meld) -> tuple:
    return (meld.kind, meld.cards, meld.stand_ins, meld.value)


@lru_cache(maxsize=None)
def brute(hand_name: str, opt_name: str) -> dict[frozenset[int], frozenset[tuple]]:
    """Every legal card set of the hand -> its placements (brute force)."""
    hand = tuple(sorted(parse_cards(HANDS[hand_name])))
    options = OPTIONS[opt_name]
    out: dict[frozenset[int], frozenset[tuple]] = {}
    for size in range(3, min(13, len(hand)) + 1):
        for cards in combinations(hand, size):
            meld = try_new_meld(cards, options)
            if meld is None:
                continue
            found = {_placement(meld)}
            for joker in (c for c in cards if is_joker(c)):
                for rank in range(1, 14):
                    for suit in range(4):
                        try:
                            found.add(_placement(new_meld(cards, options, ((joker, rank, suit),))))
                        except RuleViolation:
                            pass
            out[frozenset(cards)] = frozenset(found)
    return out


def families(sets: dict[frozenset[int], int], hand: tuple[int, ...]) -> int:
    """Non-empty families of pairwise disjoint card sets, each weighted by its count."""
    bit = {c: 1 << i for i, c in enumerate(hand)}
    by_low: dict[int, list[tuple[int, int]]] = {}
    for cards, weight in sets.items():
        mask = sum(bit[c] for c in cards)
        by_low.setdefault(mask & -mask, []).append((mask, weight))

    @lru_cache(maxsize=None)
    def count(avail: int) -> int:  # families (the empty one included) inside avail
        if not avail:
            return 1
        low = avail & -avail
        total = count(avail & ~low)  # the lowest card is in no meld
        for mask, weight in by_low.get(low, ()):
            if mask & ~avail == 0:
                total += weight * count(avail & ~mask)
        return total

    return count((1 << len(hand)) - 1) - 1


def brute_counts(hand_name: str, opt_name: str) -> tuple[int, int, int, int]:
    legal = brute(hand_name, opt_name)
    hand = tuple(sorted(parse_cards(HANDS[hand_name])))
    placements = sum(len(p) for p in legal.values())
    value = sum(pl[3] for p in legal.values() for pl in p)
    fams = families({cards: len(p) for cards, p in legal.items()}, hand)
    return len(legal), placements, value, fams


# ------------------------------------------------------------------ the search
def search_results(hand_name: str, opt_name: str):
    hand = tuple(sorted(parse_cards(HANDS[hand_name])))
    return hand, candidates(hand, OPTIONS[opt_name])


def search_counts(hand_name: str, opt_name: str) -> tuple[int, int, int, int]:
    _, cands = search_results(hand_name, opt_name)
    n_combos = sum(1 for _ in combos(cands))
    return len({frozenset(c.cards) for c in cands}), len(cands), sum(c.value for c in cands), n_combos


# ------------------------------------------------------------------ tests
@pytest.mark.parametrize(("hand", "opts"), CASES)
def test_brute_force_counts_are_pinned(hand: str, opts: str) -> None:
    """The meld judge's verdicts on every subset of the hand, counted."""
    assert brute_counts(hand, opts) == PINNED[hand, opts][0]


@pytest.mark.parametrize(("hand", "opts"), CASES)
def test_search_counts_are_pinned(hand: str, opts: str) -> None:
    """candidates() and combos() counts, pinned for regression."""
    assert search_counts(hand, opts) == PINNED[hand, opts][1]


@pytest.mark.parametrize(("hand", "opts"), CASES)
def test_candidates_are_legal_and_distinct(hand: str, opts: str) -> None:
    """Each candidate is a legal meld of hand cards, its value is new_meld's, its
    mask matches its cards, and no two candidates are the same placement."""
    cards_of_hand, cands = search_results(hand, opts)
    legal = brute(hand, opts)
    seen = set()
    for c in cands:
        meld = new_meld(c.cards, OPTIONS[opts], c.declare)
        pl = _placement(meld)
        assert pl in legal[frozenset(c.cards)], format_cards(c.cards)
        assert c.value == meld.value
        assert c.mask == sum(1 << cards_of_hand.index(x) for x in c.cards)
        assert pl not in seen, f"{format_cards(c.cards)} listed twice"
        seen.add(pl)


def _cross_check(hand: str, opts: str) -> None:
    _, cands = search_results(hand, opts)
    legal = brute(hand, opts)
    by_set: dict[frozenset[int], set[tuple]] = {}
    for c in cands:
        by_set.setdefault(frozenset(c.cards), set()).add(
            _placement(new_meld(c.cards, OPTIONS[opts], c.declare))
        )
    missing = sorted(format_cards(sorted(s)) for s in legal if s not in by_set)
    assert not missing, f"candidates() misses {len(missing)} legal card set(s): {missing[:8]}"
    fewer = sorted(format_cards(sorted(s)) for s in legal if by_set[s] != legal[s])
    assert not fewer, f"candidates() misses placements of {fewer[:8]}"
    families_count = brute_counts(hand, opts)[3]
    assert families_count < 200_000, "combos() stops at max_combos: pick a smaller hand"
    assert sum(1 for _ in combos(cands)) == families_count


@pytest.mark.parametrize(
    ("hand", "opts"),
    [
        pytest.param(
            h, o,
            marks=pytest.mark.xfail(
                strict=True, reason="engine bug: search._runs never puts a joker on a rank the hand holds",
            ),
        ) if (h, o) in KNOWN_GAP else (h, o)
        for h, o in CASES
    ],
)
def test_search_equals_brute_force(hand: str, opts: str) -> None:
    """The fast search finds exactly the brute force's card sets and placements,
    and combos() counts exactly the weighted families of disjoint card sets."""
    _cross_check(hand, opts)


def test_known_gap_is_exactly_the_held_rank_joker_runs() -> None:
    """Characterise the known gap: every legal card set candidates() misses is a
    run whose joker stands for a rank of the same suit the hand holds (as a
    natural), and every placement missed is of that kind too."""
    from hand_engine.melds import new_meld as judge

    for hand, opts in CASES:
        cards_of_hand, cands = search_results(hand, opts)
        got = {_placement(judge(c.cards, OPTIONS[opts], c.declare)) for c in cands}
        for placements in brute(hand, opts).values():
            for kind, cards, stand_ins, _ in placements - got:
                assert kind == "run", (hand, opts, format_cards(cards))
                ((joker, rank, suit),) = stand_ins
                held = {(x % 13 + 1, (x % 52) // 13) for x in cards_of_hand if not is_joker(x)}
                assert (rank, suit) in held, (hand, opts, format_cards(cards))


def test_a_legal_take_under_eram_is_accepted_when_the_joker_stands_for_a_held_rank() -> None:
    """The gap in play: under ERAM (take_return = never) a closed player's take
    must be refused only if no legal opening follows. Here one does (it is
    accepted under until_met), yet can_meet() finds none in candidates()."""
    from hand_engine import LayMelds, MeldSpec, TakeDiscard, apply
    from hand_sim.positions import build

    hand = "2D 9D 5D#2 7D#2 8D#2 9D#2 JK JK#2 KS 6C 3H QH 10C"
    opening = LayMelds((
        MeldSpec(parse_cards("7D#2 JK 9D")),  # the joker is 8D; 8D#2 is in the hand
        MeldSpec(parse_cards("8D#2 9D#2 JK#2"), ((105, 10, 2),)),  # the joker declared 10D
    ))
    lenient = build(resolve("eram-hand", {"take_return": "until_met"}), [hand, "AS 2S 3S"], pile="4D")
    try:
        state, _ = apply(lenient, 0, TakeDiscard())
        _, events = apply(state, 0, opening)
    except RuleViolation as exc:  # not the expected failure: fail for real
        raise AssertionError(f"the opening itself is refused: {exc}") from None
    assert events[0].opening and events[0].opening_total == 51
    strict = build(resolve("eram-hand"), [hand, "AS 2S 3S"], pile="4D")
    state, _ = apply(strict, 0, TakeDiscard())  # the obligation can be met: the take stands
    assert state.turn.taken == parse_cards("4D")[0]


def _table() -> str:
    lines = ["PINNED = {"]
    for h, o in CASES:
        lines.append(f"    ({h!r}, {o!r}): ({brute_counts(h, o)}, {search_counts(h, o)}),")
    lines.append("}")
    gaps = []
    for h, o in CASES:
        try:
            _cross_check(h, o)
        except AssertionError:
            gaps.append((h, o))
    lines.append("KNOWN_GAP = {")
    lines.extend(f"    {g!r}," for g in gaps)
    lines.append("}")
    return "\n".join(lines)


if __name__ == "__main__":
    print(_table())
