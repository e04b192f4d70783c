"""docs/rules.md §4 — Melds: sets, runs, jokers and their stand-ins, meld values.

Every case is played through ``apply`` on a built position: seat 0 is open
and in the play step, holding the meld's cards plus two spare cards.
"""

from __future__ import annotations

import itertools

import pytest

from hand_engine import Code, LayMelds, LayOff, MeldSpec, Options, format_cards, resolve
from hand_engine.state import Meld, RoundState
from hand_sim.positions import build
from tests.moves_support import c, cs, last_meld, meld_by_id, ok, refused

HAND = resolve("hand")
SAUDI = resolve("saudi")
DECLARED = resolve("hand", {"end_joker": "declared"})
SECOND = resolve("hand", {"jokers_per_meld": "second_by_layoff"})
SECOND_DECLARED = resolve("hand", {"jokers_per_meld": "second_by_layoff", "end_joker": "declared"})
S, H, D, C = 0, 1, 2, 3
JK, JK2 = 104, 105

SPARE_POOL = cs("2S#2 9D#2 4C#2 QS#2 6D#2 8C#2 KD#2 3S#2")


def _spares(used: set[int], k: int, skip: int = 0) -> list[int]:
    return [x for x in SPARE_POOL if x not in used][skip:skip + k]


def position(options: Options, text: str, table: tuple[tuple[int, str], ...] = ()) -> RoundState:
    """Seat 0 open, play step, holding ``text`` and two spare cards; ``table`` melds laid."""
    cards = set(cs(text)) | {x for _, t in table for x in cs(t)}
    mine = format_cards([*cs(text), *_spares(cards, 2)])
    theirs = format_cards(_spares(cards, 2, skip=2))
    return build(options, [mine, theirs], melds=table, opened=[0, 1], phase="play")


def lay(options: Options, text: str, declare=()) -> Meld:
    """Lay ``text`` as one new meld through apply; return the meld on the table."""
    state = position(options, text)
    new = ok(state, 0, LayMelds((MeldSpec(cs(text), tuple(declare)),)))
    meld = last_meld(new)
    assert meld.owner == 0
    assert not set(cs(text)) & set(new.seats[0].hand)
    return meld


def refuse_meld(options: Options, text: str, code: Code, declare=()) -> None:
    state = position(options, text)
    refused(state, 0, LayMelds((MeldSpec(cs(text), tuple(declare)),)), code)


def lay_off(options: Options, table: str, text: str, declare=()) -> Meld:
    state = position(options, text, ((1, table),))
    new = ok(state, 0, LayOff(1, cs(text), tuple(declare)))
    return meld_by_id(new, 1)


def refuse_lay_off(options: Options, table: str, text: str, code: Code, declare=()) -> None:
    state = position(options, text, ((1, table),))
    refused(state, 0, LayOff(1, cs(text), tuple(declare)), code)


# --------------------------------------------------------------- sets
@pytest.mark.parametrize("text", ["9H 9S 9D", "9H 9S 9C", "9S 9D 9C", "9H 9S 9D 9C", "AS AH AD", "KS KH KD KC", "2H#2 2S 2C"])
def test_a_set_is_3_or_4_cards_of_one_rank_all_of_different_suits(text: str) -> None:
    meld = lay(HAND, text)
    assert meld.kind == "set"
    assert meld.rank == cs(text)[0] % 13 + 1
    assert sorted(meld.cards) == sorted(cs(text))


@pytest.mark.parametrize("text", ["9H 9H#2 9S", "9H 9H#2 9S 9D", "9H#2 9H 9S 9D 9C", "KS KS#2 KH KH#2"])
def test_two_identical_cards_are_never_in_one_set(text: str) -> None:
    refuse_meld(HAND, text, Code.INVALID_MELD)


def test_a_set_holds_at_most_4_cards() -> None:
    refuse_meld(HAND, "9H 9S 9D 9C 9H#2", Code.INVALID_MELD)
    refuse_lay_off(HAND, "9H 9S 9D 9C", "9H#2", Code.INVALID_LAYOFF)


@pytest.mark.parametrize("text", ["9H 9S", "9H", "9H 9S 8D", "9H 9S 10S"])
def test_two_cards_or_mixed_ranks_are_not_a_set(text: str) -> None:
    refuse_meld(HAND, text, Code.INVALID_MELD)


def test_a_natural_of_another_rank_cannot_be_laid_off_on_a_set() -> None:
    refuse_lay_off(HAND, "9H 9S 9D", "8C", Code.INVALID_LAYOFF)


def test_the_fourth_suit_can_be_laid_off_on_a_set_of_three() -> None:
    meld = lay_off(HAND, "9H 9S 9D", "9C")
    assert meld.kind == "set" and len(meld.cards) == 4 and meld.value == 36


def test_a_copy_of_a_suit_already_in_the_set_cannot_be_laid_off() -> None:
    refuse_lay_off(HAND, "9H 9S 9D", "9H#2", Code.INVALID_LAYOFF)


# --------------------------------------------------------------- runs
@pytest.mark.parametrize(
    "text",
    ["5H 6H 7H", "5H 6H 7H 8H", "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC", "9D 10D JD QD KD", "10S#2 JS QS"],
)
def test_a_run_is_3_or_more_cards_of_one_suit_in_consecutive_ranks(text: str) -> None:
    meld = lay(HAND, text)
    assert meld.kind == "run"
    assert meld.suit == cs(text)[0] % 52 // 13
    assert len(meld.cards) == len(cs(text))


@pytest.mark.parametrize("text", ["5H 6H", "5H 6S 7H", "5H 7H 8H", "5H 6H 8H", "5H 5H#2 6H", "5H 6H 6H#2 7H"])
def test_a_run_needs_3_consecutive_ranks_of_one_suit(text: str) -> None:
    refuse_meld(HAND, text, Code.INVALID_MELD)


def test_the_ace_is_low_a_2_3() -> None:
    meld = lay(HAND, "AH 2H 3H")
    assert meld.low == 1
    assert meld.cards == cs("AH 2H 3H")


def test_the_ace_is_high_q_k_a() -> None:
    meld = lay(HAND, "QH KH AH")
    assert meld.low == 12
    assert meld.cards == cs("QH KH AH")


@pytest.mark.parametrize("text", ["KH AH 2H", "QH KH AH 2H", "KH AH 2H 3H", "KH JK 2H", "KH AH JK 3H"])
def test_a_run_never_wraps_k_a_2(text: str) -> None:
    refuse_meld(HAND, text, Code.INVALID_MELD)


def test_a_run_never_wraps_by_a_lay_off() -> None:
    refuse_lay_off(HAND, "QH KH AH", "2H", Code.INVALID_LAYOFF)
    refuse_lay_off(HAND, "AH 2H 3H", "KH", Code.INVALID_LAYOFF)


@pytest.mark.parametrize("text", ["AH AH#2 2H", "AH 2H 3H AH#2", "QH KH AH AH#2", "AH JK AH#2"])
def test_a_run_never_holds_two_aces(text: str) -> None:
    refuse_meld(HAND, text, Code.INVALID_MELD)


def test_a_second_ace_cannot_be_laid_off_on_a_run_with_an_ace() -> None:
    refuse_lay_off(HAND, "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH", "KH AH#2", Code.INVALID_LAYOFF)
    refuse_lay_off(HAND, "QH KH AH", "AH#2", Code.INVALID_LAYOFF)


def test_the_13_card_run_of_a_whole_suit_is_a_to_k_with_the_ace_low() -> None:
    text = "KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S AS"
    meld = lay(HAND, text)
    assert meld.low == 1
    assert meld.cards == cs("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS")
    assert meld.value == 11 + sum(range(2, 10)) + 40


def test_a_joker_completing_2_to_k_stands_for_the_low_ace() -> None:
    """An ace is low when the run also holds rank 2: JK + 2…K → the joker is A (low)."""
    meld = lay(HAND, "2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD JK")
    assert meld.stand_ins == ((JK, 1, D),)
    assert meld.low == 1


def test_a_run_is_at_most_13_cards() -> None:
    refuse_meld(HAND, "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS JK", Code.INVALID_MELD)
    refuse_lay_off(HAND, "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS", "JK", Code.INVALID_LAYOFF)


def test_a_12_card_run_may_end_with_a_high_ace() -> None:
    meld = lay(HAND, "3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS")
    assert meld.low == 3 and len(meld.cards) == 12


def test_an_ace_can_be_laid_off_low_or_high() -> None:
    assert lay_off(HAND, "2H 3H 4H", "AH").low == 1
    assert lay_off(HAND, "JH QH KH", "AH").cards[-1] == c("AH")


# --------------------------------------------------------------- order is meaningless
@pytest.mark.parametrize("base", ["7H 5H JK 6H", "9C 9H JK", "AD 2D 3D", "QS AS KS"])
def test_the_order_in_which_a_client_lists_the_cards_means_nothing(base: str) -> None:
    cards = cs(base)
    results = set()
    for perm in itertools.permutations(cards):
        state = position(HAND, base)
        meld = last_meld(ok(state, 0, LayMelds((MeldSpec(tuple(perm)),))))
        results.add((meld.kind, meld.cards, meld.stand_ins, meld.value, meld.low))
    assert len(results) == 1


def test_the_order_of_lay_off_cards_means_nothing() -> None:
    a = lay_off(HAND, "5H 6H 7H", "9H JK")
    b = lay_off(HAND, "5H 6H 7H", "JK 9H")
    assert a == b
    assert a.stand_ins == ((JK, 8, H),)


# --------------------------------------------------------------- jokers per meld
@pytest.mark.parametrize("options", [HAND, SECOND], ids=["one", "second_by_layoff"])
@pytest.mark.parametrize("text", ["5H 6H JK JK#2", "5H JK JK#2", "9H 9S JK JK#2", "5H 6H 7H JK JK#2"])
def test_a_new_meld_holds_at_most_one_joker(options: Options, text: str) -> None:
    """jokers_per_meld = one and second_by_layoff: a newly laid meld holds at most one joker."""
    refuse_meld(options, text, Code.JOKER_LIMIT)


def test_one_no_second_joker_even_by_lay_off() -> None:
    """jokers_per_meld = one: at most one joker per meld, ever."""
    refuse_lay_off(HAND, "5H 6H 7H JK", "JK#2", Code.JOKER_LIMIT)
    refuse_lay_off(HAND, "5H 6H JK", "JK#2", Code.JOKER_LIMIT)
    refuse_lay_off(HAND, "5H 6H 7H", "JK JK#2", Code.JOKER_LIMIT)


def test_second_by_layoff_a_second_joker_may_be_laid_off_on_a_run_of_3() -> None:
    """The result has 4 cards: allowed. Each joker keeps its own stand-in."""
    meld = lay_off(SECOND, "5H 6H JK", "JK#2")
    assert len(meld.cards) == 4
    assert dict((j, (r, s)) for j, r, s in meld.stand_ins) == {JK: (4, H), JK2: (3, H)}
    assert meld.value == 3 + 4 + 5 + 6


def test_second_by_layoff_a_second_joker_may_be_laid_off_on_a_longer_run() -> None:
    meld = lay_off(SECOND, "5H 6H 7H JK", "JK#2")
    assert len(meld.stand_ins) == 2
    assert meld.stand_in(JK) == (JK, 4, H)


def test_second_by_layoff_two_jokers_may_be_laid_off_together_on_a_natural_run() -> None:
    meld = lay_off(SECOND, "5H 6H 7H", "JK JK#2")
    assert len(meld.cards) == 5
    assert sorted((r, s) for _, r, s in meld.stand_ins) == [(3, H), (4, H)]


@pytest.mark.parametrize("table", ["9H 9S JK", "9H 9S 9D JK"])
def test_second_by_layoff_a_set_never_holds_two_jokers(table: str) -> None:
    refuse_lay_off(SECOND, table, "JK#2", Code.JOKER_LIMIT)


def test_second_by_layoff_two_jokers_onto_a_natural_set_are_refused() -> None:
    state = position(SECOND, "JK JK#2", ((1, "9H 9S 9D"),))
    refused(state, 0, LayOff(1, (JK, JK2)), Code.JOKER_LIMIT)


def test_second_by_layoff_the_dananeer_preset_uses_it() -> None:
    assert resolve("dananeer").jokers_per_meld == "second_by_layoff"
    meld = lay_off(resolve("dananeer"), "5H 6H JK", "JK#2")
    assert len(meld.stand_ins) == 2


def test_a_second_joker_is_never_moved_by_later_lay_offs() -> None:
    state = position(SECOND, "JK#2 7H", ((1, "5H 6H JK"),))
    state = ok(state, 0, LayOff(1, (JK2,)))
    state = ok(state, 0, LayOff(1, (c("7H"),)))
    meld = meld_by_id(state, 1)
    assert dict((j, r) for j, r, _ in meld.stand_ins) == {JK: 4, JK2: 3}


# --------------------------------------------------------------- stand-ins in runs
@pytest.mark.parametrize(
    ("text", "rank"),
    [("5H JK 7H", 6), ("5H JK 7H 8H", 6), ("AH JK 3H", 2), ("QH JK AH", 13), ("2H 3H 4H JK 6H 7H", 5)],
)
@pytest.mark.parametrize("options", [HAND, DECLARED], ids=["lower", "declared"])
def test_a_joker_stands_for_the_rank_missing_inside_the_span(options: Options, text: str, rank: int) -> None:
    meld = lay(options, text)
    assert meld.stand_ins == ((JK, rank, H),)


def test_declared_a_declaration_outside_the_span_is_refused_when_there_is_a_gap() -> None:
    refuse_meld(DECLARED, "5H JK 7H", Code.JOKER_DECLARATION_INVALID, declare=((JK, 4, H),))
    refuse_meld(DECLARED, "5H JK 7H", Code.JOKER_DECLARATION_INVALID, declare=((JK, 8, H),))
    assert lay(DECLARED, "5H JK 7H", declare=((JK, 6, H),)).stand_ins == ((JK, 6, H),)


@pytest.mark.parametrize("options", [HAND, DECLARED], ids=["lower", "declared"])
def test_a_joker_at_an_end_with_only_one_possible_end_takes_it(options: Options) -> None:
    assert lay(options, "AH 2H JK").stand_ins == ((JK, 3, H),)
    assert lay(options, "JK KH AH").stand_ins == ((JK, 12, H),)


# end_joker = lower: the §4 examples
@pytest.mark.parametrize(
    ("options", "text", "rank", "total"),
    [
        (HAND, "5H 6H JK", 4, 15),
        (SAUDI, "5H 6H JK", 4, 15),
        (HAND, "QH KH JK", 11, 30),
        (SAUDI, "QH KH JK", 11, 30),
        (HAND, "2H 3H JK", 1, 16),
        (SAUDI, "2H 3H JK", 1, 6),
    ],
    ids=["5-6-JK=4 (ace 11)", "5-6-JK=4 (ace 1)", "Q-K-JK=J (ace 11)", "Q-K-JK=J (ace 1)",
         "2-3-JK=A total 16 (ace 11)", "2-3-JK=A total 6 (ace 1)"],
)
def test_lower_a_joker_at_an_open_end_stands_for_the_candidate_of_the_lower_rank(
    options: Options, text: str, rank: int, total: int
) -> None:
    """Examples (lower, ruling on decision 0101: the lower rank, the low ace lowest):
    5♥6♥JK → 4♥, 15; Q♥K♥JK → J♥; 2♥3♥JK → A♥: 16 with ace 11, 6 with ace 1."""
    meld = lay(options, text)
    assert meld.stand_ins == ((JK, rank, H),)
    assert meld.value == total


def test_lower_goes_to_the_lower_rank_whatever_the_values() -> None:
    """J-Q-K + JK: 10♥ and A♥ (high) — values 10 and 11; 10-J-Q + JK: 9♥ (9) vs K♥ (10)."""
    assert lay(HAND, "JH QH KH JK").stand_ins == ((JK, 10, H),)
    assert lay(HAND, "10H JH QH JK").stand_ins == ((JK, 9, H),)
    # J♥ Q♥ JK → 10♥ (value 10) or K♥ (value 10): a tie, the lower rank wins
    assert lay(HAND, "JH QH JK").stand_ins == ((JK, 10, H),)


def test_lower_a_declaration_of_the_other_end_is_refused() -> None:
    refuse_meld(HAND, "5H 6H JK", Code.JOKER_DECLARATION_INVALID, declare=((JK, 7, H),))
    refuse_meld(HAND, "QH KH JK", Code.JOKER_DECLARATION_INVALID, declare=((JK, 1, H),))
    refuse_meld(SAUDI, "2H 3H JK", Code.JOKER_DECLARATION_INVALID, declare=((JK, 4, H),))
    refuse_meld(HAND, "2H 3H JK", Code.JOKER_DECLARATION_INVALID, declare=((JK, 4, H),))


def test_lower_a_declaration_naming_the_lower_end_itself_is_accepted() -> None:
    assert lay(HAND, "5H 6H JK", declare=((JK, 4, H),)).stand_ins == ((JK, 4, H),)


def test_lower_a_joker_laid_off_on_a_natural_run_takes_the_lower_end() -> None:
    assert lay_off(HAND, "5H 6H 7H", "JK").stand_ins == ((JK, 4, H),)
    assert lay_off(SAUDI, "2H 3H 4H", "JK").stand_ins == ((JK, 1, H),)
    assert lay_off(HAND, "2H 3H 4H", "JK").stand_ins == ((JK, 1, H),)
    refuse_lay_off(HAND, "5H 6H 7H", "JK", Code.JOKER_DECLARATION_INVALID, declare=((JK, 8, H),))


# end_joker = declared
@pytest.mark.parametrize(
    ("options", "text", "declared", "total"),
    [
        (DECLARED, "5H 6H JK", (7, H), 18),
        (DECLARED, "5H 6H JK", (4, H), 15),
        (DECLARED, "QH KH JK", (1, H), 31),
        (DECLARED, "QH KH JK", (11, H), 30),
        (DECLARED, "2H 3H JK", (1, H), 16),
        (DECLARED, "2H 3H JK", (4, H), 9),
        (resolve("saudi", {"end_joker": "declared"}), "2H 3H JK", (1, H), 6),
        (resolve("saudi", {"end_joker": "declared"}), "2H 3H JK", (4, H), 9),
    ],
)
def test_declared_the_client_names_which_end_the_joker_stands_for(
    options: Options, text: str, declared: tuple[int, int], total: int
) -> None:
    meld = lay(options, text, declare=((JK, *declared),))
    assert meld.stand_ins == ((JK, *declared),)
    assert meld.value == total


@pytest.mark.parametrize(
    ("text", "rank"), [("5H 6H JK", 4), ("QH KH JK", 11), ("2H 3H JK", 1)]
)
def test_declared_without_a_declaration_lower_applies(text: str, rank: int) -> None:
    assert lay(DECLARED, text).stand_ins == ((JK, rank, H),)


@pytest.mark.parametrize(
    "declaration",
    [(JK, 8, H), (JK, 3, H), (JK, 7, S), (JK, 6, H), (JK, 0, H), (JK, 14, H), (JK, 7, 4), (JK, 7, -1), (JK2, 7, H)],
    ids=["8H beyond", "3H beyond", "wrong suit", "a natural's rank", "rank 0", "rank 14", "suit 4", "suit -1",
         "not this joker"],
)
def test_declared_an_impossible_declaration_is_refused(declaration: tuple[int, int, int]) -> None:
    refuse_meld(DECLARED, "5H 6H JK", Code.JOKER_DECLARATION_INVALID, declare=(declaration,))


def test_declared_a_declaration_must_name_a_joker_of_the_move() -> None:
    refuse_meld(DECLARED, "5H 6H 7H", Code.JOKER_DECLARATION_INVALID, declare=((JK, 8, H),))
    refuse_meld(DECLARED, "5H 6H JK", Code.JOKER_DECLARATION_INVALID, declare=((JK, 7, H), (JK, 7, H)))


def test_declared_a_joker_laid_off_on_a_natural_run_may_take_either_end() -> None:
    assert lay_off(DECLARED, "5H 6H 7H", "JK", declare=((JK, 8, H),)).stand_ins == ((JK, 8, H),)
    assert lay_off(DECLARED, "5H 6H 7H", "JK", declare=((JK, 4, H),)).stand_ins == ((JK, 4, H),)
    assert lay_off(DECLARED, "5H 6H 7H", "JK").stand_ins == ((JK, 4, H),)
    refuse_lay_off(DECLARED, "5H 6H 7H", "JK", Code.JOKER_DECLARATION_INVALID, declare=((JK, 9, H),))


def test_declared_a_second_joker_laid_off_may_be_declared() -> None:
    meld = lay_off(SECOND_DECLARED, "5H 6H JK", "JK#2", declare=((JK2, 7, H),))
    assert meld.stand_in(JK2) == (JK2, 7, H)
    assert meld.stand_in(JK) == (JK, 4, H)


# a lay-off never moves a joker already on the table
@pytest.mark.parametrize("options", [HAND, DECLARED], ids=["lower", "declared"])
def test_a_lay_off_never_moves_a_joker_already_on_the_table(options: Options) -> None:
    meld = lay_off(options, "5H 6H JK", "7H")
    assert meld.stand_ins == ((JK, 4, H),)
    assert meld.cards == cs("JK 5H 6H 7H")
    meld = lay_off(options, "5H 6H JK", "3H")
    assert meld.stand_ins == ((JK, 4, H),)
    refuse_lay_off(options, "5H 6H JK", "4H", Code.INVALID_LAYOFF)


def test_declared_a_joker_declared_at_the_top_stays_there_when_the_run_grows() -> None:
    state = position(DECLARED, "5H 6H JK 4H 8H")
    state = ok(state, 0, LayMelds((MeldSpec(cs("5H 6H JK"), ((JK, 7, H),)),)))
    meld_id = last_meld(state).id
    state = ok(state, 0, LayOff(meld_id, cs("4H")))
    state = ok(state, 0, LayOff(meld_id, cs("8H")))
    meld = meld_by_id(state, meld_id)
    assert meld.stand_ins == ((JK, 7, H),)
    assert meld.cards == cs("4H 5H 6H JK 8H")


def test_a_natural_for_the_jokers_place_is_not_a_lay_off() -> None:
    """A move that adds a natural card to a meld holding a joker says which it is: a lay-off cannot retrieve."""
    refuse_lay_off(HAND, "5H JK 7H", "6H", Code.INVALID_LAYOFF)


# --------------------------------------------------------------- stand-ins in sets
@pytest.mark.parametrize("options", [HAND, DECLARED, SAUDI], ids=["hand", "declared", "saudi"])
def test_in_a_set_of_3_the_joker_stands_for_the_rank_with_undetermined_suit(options: Options) -> None:
    meld = lay(options, "9H 9S JK")
    assert meld.stand_ins == ((JK, 9, -1),)
    assert meld.value == 27


@pytest.mark.parametrize(("text", "suit"), [("9H 9S 9D JK", C), ("9S 9D 9C JK", H), ("JK KH KD KC", S)])
def test_in_a_set_of_4_the_joker_stands_for_the_one_missing_suit(text: str, suit: int) -> None:
    meld = lay(HAND, text)
    rank = meld.rank
    assert meld.stand_ins == ((JK, rank, suit),)


def test_a_joker_laid_off_on_a_set_of_3_takes_the_missing_suit() -> None:
    assert lay_off(HAND, "9H 9S 9D", "JK").stand_ins == ((JK, 9, C),)


@pytest.mark.parametrize(("natural", "remaining"), [("9C", D), ("9D", C)])
def test_a_fourth_natural_laid_off_fixes_the_set_jokers_suit(natural: str, remaining: int) -> None:
    meld = lay_off(HAND, "9H 9S JK", natural)
    assert meld.stand_ins == ((JK, 9, remaining),)
    assert meld.value == 36


def test_a_set_with_a_joker_accepts_no_card_of_the_jokers_suit_as_a_lay_off() -> None:
    refuse_lay_off(HAND, "9H 9S 9D JK", "9C", Code.INVALID_LAYOFF)


def test_a_set_of_3_with_a_joker_takes_only_one_more_card() -> None:
    refuse_lay_off(HAND, "9H 9S JK", "9C 9D", Code.INVALID_LAYOFF)


def test_a_set_joker_declaration_must_fit_the_set() -> None:
    refuse_meld(DECLARED, "9H 9S JK", Code.JOKER_DECLARATION_INVALID, declare=((JK, 9, H),))
    refuse_meld(DECLARED, "9H 9S JK", Code.JOKER_DECLARATION_INVALID, declare=((JK, 8, D),))
    refuse_meld(DECLARED, "9H 9S 9D JK", Code.JOKER_DECLARATION_INVALID, declare=((JK, 9, D),))
    assert lay(DECLARED, "9H 9S 9D JK", declare=((JK, 9, C),)).stand_ins == ((JK, 9, C),)


def test_a_set_of_3_joker_stays_undetermined_whatever_is_declared() -> None:
    """§4: in a set of 3 the joker's missing suit is not yet determined."""
    assert lay(DECLARED, "9H 9S JK", declare=((JK, 9, D),)).stand_ins == ((JK, 9, -1),)


@pytest.mark.parametrize("text", ["9H 9H#2 JK", "9H JK 8S"])
def test_a_joker_does_not_make_an_illegal_set_legal(text: str) -> None:
    refuse_meld(HAND, text, Code.INVALID_MELD)


# --------------------------------------------------------------- meld values
@pytest.mark.parametrize(
    ("text", "ace11", "ace1"),
    [
        ("AH 2H 3H", 16, 6),
        ("AH 2H 3H 4H", 20, 10),
        ("JK 2H 3H", 16, 6),  # lower: A♥ (the lower rank) with ace 11 and with ace 1
        ("AH JK 3H", 16, 6),
        ("QH KH AH", 31, 31),
        ("JH QH KH AH", 41, 41),
        ("AS AH AD", 33, 33),
        ("AS AH AD AC", 44, 44),
        ("AS AH JK", 33, 33),
        ("KS QS JS", 30, 30),
        ("7H 7D 7C", 21, 21),
        ("9C 10C JC", 29, 29),
        ("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS", 95, 85),
    ],
)
def test_a_melds_value_is_the_sum_of_its_cards_values(text: str, ace11: int, ace1: int) -> None:
    """low_ace_value 11 or 1: an ace low in a run counts 1 with 1; high ace and aces in sets are 11."""
    assert lay(resolve("hand", {"low_ace_value": 11}), text).value == ace11
    assert lay(resolve("hand", {"low_ace_value": 1}), text).value == ace1


def test_low_ace_value_1_a_joker_declared_as_the_low_ace_is_worth_1() -> None:
    options = resolve("saudi", {"end_joker": "declared"})
    assert lay(options, "JK 2H 3H", declare=((JK, 1, H),)).value == 6
    assert lay(options, "JK KH QH", declare=((JK, 1, H),)).value == 31


def test_meld_value_follows_a_lay_off() -> None:
    assert lay_off(SAUDI, "2H 3H 4H", "AH").value == 10
    assert lay_off(HAND, "2H 3H 4H", "AH").value == 20
    assert lay_off(HAND, "QH KH AH", "JH").value == 41


# --------------------------------------------------------------- one card, one meld
def test_the_same_card_is_never_in_two_melds_of_one_submission() -> None:
    state = position(HAND, "5H 6H 7H 7D 7C")
    refused(
        state, 0,
        LayMelds((MeldSpec(cs("5H 6H 7H")), MeldSpec(cs("7H 7D 7C")))),
        Code.DUPLICATE_CARD,
    )


def test_a_meld_belongs_to_its_layer_and_anyone_open_may_extend_it() -> None:
    state = position(HAND, "8H", ((1, "5H 6H 7H"),))
    state = ok(state, 0, LayOff(1, cs("8H")))
    assert meld_by_id(state, 1).owner == 1
    assert len(meld_by_id(state, 1).cards) == 4


def test_r2019_takes_cannot_be_returned() -> None:
    """Ruling on decision 0103 (docs/rules.md §12): r2019's duty to meld after a take has no undo."""
    assert resolve("r2019").take_return == "never"
