"""docs/rules.md §6 — Laying off and retrieving jokers (all through ``apply``)."""

from __future__ import annotations

import pytest

from hand_engine import (
    PRESETS, Code, Discard, DrawStock, LayMelds, LayOff, MeldSpec, Options, RetrieveJoker, resolve,
)
from hand_engine.events import CardsLaidOff, JokerRetrieved
from hand_engine.state import RoundState
from hand_sim.positions import build
from tests.moves_support import c, cs, hand, last_meld, meld_by_id, ok, ok_events, refused

HAND = resolve("hand")
S, H, D, C = 0, 1, 2, 3
JK, JK2 = 104, 105
ONE_CARD = resolve("hand", {"set_joker_retrieval": "one_card"})
BOTH = resolve("hand", {"set_joker_retrieval": "both_missing"})


def table_position(
    options: Options,
    mine: str,
    table: tuple[tuple[int, str], ...],
    *,
    opened=(0, 1, 2),
    n: int = 3,
    **kw,
) -> RoundState:
    """Seat 0 to play (already drew), holding ``mine``; ``table`` melds by owner."""
    others = ["2S#2 3S#2", "2D#2 3D#2", "2C#2 3C#2", "4S#2 5S#2"][: n - 1]
    return build(options, [mine, *others], melds=table, opened=opened, phase="play", **kw)


# --------------------------------------------------------------- lay-off: whose melds
@pytest.mark.parametrize("owner", [0, 1, 2], ids=["own", "opponent", "another opponent"])
def test_an_open_player_may_lay_off_on_any_meld_on_the_table(owner: int) -> None:
    state = table_position(HAND, "8H 9C KD", ((owner, "5H 6H 7H"),))
    new, events = ok_events(state, 0, LayOff(1, cs("8H")))
    meld = meld_by_id(new, 1)
    assert meld.cards == cs("5H 6H 7H 8H") and meld.owner == owner
    assert hand(new, 0) == tuple(sorted(cs("9C KD")))
    assert events == (CardsLaidOff(0, meld, cs("8H")),)


@pytest.mark.parametrize("preset", ["partnership", "eram-partnership"])
def test_an_open_player_may_lay_off_on_the_partners_meld(preset: str) -> None:
    state = table_position(resolve(preset), "8H 9C KD", ((2, "5H 6H 7H"),), opened=(0, 2), n=4)
    new = ok(state, 0, LayOff(1, cs("8H")))
    assert meld_by_id(new, 1).owner == 2 and len(meld_by_id(new, 1).cards) == 4


def test_one_lay_off_may_add_several_cards_judged_as_a_whole_meld() -> None:
    state = table_position(HAND, "JK 9H KD", ((1, "5H 6H 7H"),))
    new = ok(state, 0, LayOff(1, cs("JK 9H")))
    assert meld_by_id(new, 1).stand_ins == ((JK, 8, H),)


@pytest.mark.parametrize(
    ("table", "cards"),
    [("5H 6H 7H", "9H"), ("5H 6H 7H", "8S"), ("9H 9S 9D 9C", "9C#2"), ("9H 9S 9D", "9D#2"), ("9H 9S 9D", "10C")],
)
def test_a_lay_off_whose_result_is_not_a_legal_meld_is_refused(table: str, cards: str) -> None:
    state = table_position(HAND, f"{cards} KD QC", ((1, table),))
    refused(state, 0, LayOff(1, cs(cards)), Code.INVALID_LAYOFF)


def test_a_lay_off_is_judged_with_the_jokers_already_in_the_meld_unchanged() -> None:
    state = table_position(HAND, "3H 4H 7H KD QC", ((1, "5H 6H JK"),))  # JK = 4♥
    refused(state, 0, LayOff(1, cs("4H")), Code.INVALID_LAYOFF)  # would need the joker to move
    new = ok(state, 0, LayOff(1, cs("3H")))
    assert meld_by_id(new, 1).stand_ins == ((JK, 4, H),)
    new = ok(new, 0, LayOff(1, cs("7H")))
    assert meld_by_id(new, 1).cards == cs("3H JK 5H 6H 7H")


@pytest.mark.parametrize(("options", "rank"), [(HAND, 4), (resolve("hand", {"end_joker": "declared"}), 4)])
def test_a_joker_laid_off_at_an_end_gets_its_stand_in_by_end_joker(options: Options, rank: int) -> None:
    state = table_position(options, "JK KD QC", ((1, "5H 6H 7H"),))
    assert meld_by_id(ok(state, 0, LayOff(1, (JK,))), 1).stand_ins == ((JK, rank, H),)


def test_declared_a_joker_laid_off_may_name_the_other_end() -> None:
    options = resolve("hand", {"end_joker": "declared"})
    state = table_position(options, "JK KD QC", ((1, "5H 6H 7H"),))
    new = ok(state, 0, LayOff(1, (JK,), ((JK, 8, H),)))
    assert meld_by_id(new, 1).stand_ins == ((JK, 8, H),)


def test_lower_a_joker_laid_off_may_not_name_the_other_end() -> None:
    state = table_position(HAND, "JK KD QC", ((1, "5H 6H 7H"),))
    refused(state, 0, LayOff(1, (JK,), ((JK, 8, H),)), Code.JOKER_DECLARATION_INVALID)


def test_a_lay_off_on_a_meld_that_does_not_exist_is_refused() -> None:
    state = table_position(HAND, "8H KD QC", ((1, "5H 6H 7H"),))
    refused(state, 0, LayOff(7, cs("8H")), Code.UNKNOWN_MELD)


def test_a_lay_off_of_a_card_not_in_hand_is_refused() -> None:
    state = table_position(HAND, "KD QC 2H", ((1, "5H 6H 7H"),))
    refused(state, 0, LayOff(1, cs("8H")), Code.CARD_NOT_IN_HAND)


# --------------------------------------------------------------- not before opening
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_closed_player_may_not_lay_off(preset: str) -> None:
    """Before opening a player may not lay off (all four sources)."""
    state = table_position(resolve(preset), "8H KD QC", ((1, "5H 6H 7H"),), opened=(1,), n=4)
    refused(state, 0, LayOff(1, cs("8H")), Code.NOT_OPEN)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_closed_player_may_not_retrieve_a_joker(preset: str) -> None:
    state = table_position(resolve(preset), "4H KD QC", ((1, "5H 6H JK"),), opened=(1,), n=4)
    refused(state, 0, RetrieveJoker(1, JK, cs("4H")), Code.NOT_OPEN)


def _partner_opens_then_my_turn(preset: str) -> RoundState:
    """Seat 2 opens (K♠Q♠J♠ + 7♥7♦7♣ + 9♣10♣JK), seat 3 passes, seat 0 has drawn."""
    state = build(
        resolve(preset),
        ["8C 10S 4D 5D", "2S#2 3S#2", "KS QS JS 7H 7D 7C 9C 10C JK 2H 3H", "2D#2 3D#2"],
        turn_seat=2, phase="play", stock="AC#2 AD#2",
    )
    state = ok(state, 2, LayMelds((MeldSpec(cs("KS QS JS")), MeldSpec(cs("7H 7D 7C")), MeldSpec(cs("9C 10C JK")))))
    state = ok(state, 2, Discard(c("2H")))
    state = ok(state, 3, DrawStock())
    state = ok(state, 3, Discard(c("AC#2")))
    return ok(state, 0, DrawStock())


def test_player_opening_a_partners_opening_does_not_open_the_player() -> None:
    """partnership_opening = player: each player must open personally."""
    state = _partner_opens_then_my_turn("partnership")
    assert not state.seats[0].opened
    refused(state, 0, LayOff(1, cs("10S")), Code.NOT_OPEN)
    refused(state, 0, RetrieveJoker(3, JK, cs("8C")), Code.NOT_OPEN)


def test_team_opening_a_partners_opening_lets_the_player_lay_off_and_retrieve() -> None:
    """partnership_opening = team: both partners are open for every purpose."""
    state = _partner_opens_then_my_turn("eram-partnership")
    assert state.seats[0].opened
    state = ok(state, 0, RetrieveJoker(3, JK, cs("8C")))
    state = ok(state, 0, LayOff(1, cs("10S")))
    assert JK in hand(state, 0)
    assert meld_by_id(state, 1).cards == cs("10S JS QS KS")


@pytest.mark.parametrize("action", ["lay_off", "retrieve"])
def test_lay_offs_and_retrievals_are_allowed_in_the_turn_of_the_opening(action: str) -> None:
    state = table_position(
        HAND, "KS QS JS 7H 7D 7C 8H 4D 9S", ((1, "5H 6H 7H#2"), (1, "5D 6D JK")), opened=(1,),
    )
    state = ok(state, 0, LayMelds((MeldSpec(cs("KS QS JS")), MeldSpec(cs("7H 7D 7C")))))
    assert state.seats[0].opened
    if action == "lay_off":
        state = ok(state, 0, LayOff(1, cs("8H")))
        assert len(meld_by_id(state, 1).cards) == 4
    else:
        state = ok(state, 0, RetrieveJoker(2, JK, cs("4D")))
        assert JK in hand(state, 0)
    assert state.seats[0].opening_total == 51  # lay-offs and retrievals never count


# --------------------------------------------------------------- cards left after a lay-off
def test_discard_required_a_lay_off_must_leave_at_least_one_card() -> None:
    """min_hand_after_layoff = 0 under going_out = discard_required: at least 1 remains."""
    state = table_position(HAND, "7H 8H", ((1, "4H 5H 6H"),))
    refused(state, 0, LayOff(1, cs("7H 8H")), Code.LAYOFF_LEAVES_TOO_FEW)
    state = ok(state, 0, LayOff(1, cs("7H")))
    state = ok(state, 0, Discard(c("8H")))
    assert state.result is not None and state.result.winner == 0


def test_meld_out_allowed_with_min_0_a_lay_off_may_empty_the_hand() -> None:
    options = resolve("hand", {"going_out": "meld_out_allowed", "min_hand_after_layoff": 0})
    state = table_position(options, "7H 8H", ((1, "4H 5H 6H"),))
    state = ok(state, 0, LayOff(1, cs("7H 8H")))
    assert state.result is not None and state.result.winner == 0
    assert state.pile == ()


@pytest.mark.parametrize("going_out", ["discard_required", "meld_out_allowed"])
def test_min_hand_after_layoff_2_a_lay_off_must_leave_two_cards(going_out: str) -> None:
    options = resolve("dananeer", {"going_out": going_out})
    assert options.min_hand_after_layoff == 2
    state = table_position(options, "7H 8H 9C", ((1, "4H 5H 6H"),))
    refused(state, 0, LayOff(1, cs("7H 8H")), Code.LAYOFF_LEAVES_TOO_FEW)
    state = ok(state, 0, LayOff(1, cs("7H")))
    assert hand(state, 0) == cs("8H 9C")
    refused(state, 0, LayOff(1, cs("8H")), Code.LAYOFF_LEAVES_TOO_FEW)


def test_min_hand_after_layoff_2_does_not_limit_new_melds() -> None:
    """A Dananeer player goes out with a meld, never with a lay-off, as the last shedding move."""
    options = resolve("dananeer")
    state = table_position(options, "7H 8H 9H KC", ())
    state = ok(state, 0, LayMelds((MeldSpec(cs("7H 8H 9H")),)))
    state = ok(state, 0, Discard(c("KC")))
    assert state.result is not None and state.result.winner == 0


@pytest.mark.parametrize("min_hand", [0, 2])
def test_min_hand_after_layoff_never_applies_to_retrievals(min_hand: int) -> None:
    """both_missing shrinks the hand by one; even to a single card, the retrieval stands."""
    options = resolve("dananeer", {"set_joker_retrieval": "both_missing", "min_hand_after_layoff": min_hand})
    state = table_position(options, "9C 9D", ((1, "9H 9S JK"),))
    state = ok(state, 0, RetrieveJoker(1, JK, cs("9C 9D")))
    assert hand(state, 0) == (JK,)
    state = ok(state, 0, Discard(JK))
    assert state.result is not None and state.result.winner == 0


def test_the_no_dead_end_rule_applies_to_retrievals() -> None:
    """On a first turn (going out forbidden) a retrieval may not leave exactly one card."""
    state = table_position(BOTH, "9C 9D", ((1, "9H 9S JK"),), first_turn=True)
    refused(state, 0, RetrieveJoker(1, JK, cs("9C 9D")), Code.DEAD_END)


def test_the_no_dead_end_rule_applies_to_lay_offs() -> None:
    state = table_position(HAND, "7H KC", ((1, "4H 5H 6H"),), first_turn=True)
    refused(state, 0, LayOff(1, cs("7H")), Code.DEAD_END)


# --------------------------------------------------------------- retrieval in runs
@pytest.mark.parametrize("card", ["4H", "4H#2"])
def test_run_retrieval_takes_exactly_the_card_the_joker_stands_for(card: str) -> None:
    state = table_position(HAND, f"{card} KD QC", ((1, "5H 6H JK"),))  # JK = 4♥
    new, events = ok_events(state, 0, RetrieveJoker(1, JK, cs(card)))
    meld = meld_by_id(new, 1)
    assert meld.cards == cs(f"{card} 5H 6H") and meld.stand_ins == ()
    assert meld.value == 15
    assert hand(new, 0) == tuple(sorted((JK, *cs("KD QC"))))
    assert events == (JokerRetrieved(0, meld, JK, cs(card)),)


@pytest.mark.parametrize("card", ["7H", "3H", "4S", "4D", "5H#2"])
def test_run_retrieval_with_any_other_card_is_refused(card: str) -> None:
    state = table_position(HAND, f"{card} KD QC", ((1, "5H 6H JK"),))
    refused(state, 0, RetrieveJoker(1, JK, cs(card)), Code.INVALID_RETRIEVAL)


def test_run_retrieval_with_two_cards_is_refused() -> None:
    state = table_position(HAND, "4H 3H KD QC", ((1, "5H 6H JK"),))
    refused(state, 0, RetrieveJoker(1, JK, cs("4H 3H")), Code.INVALID_RETRIEVAL)


def test_run_retrieval_of_an_inside_joker() -> None:
    state = table_position(HAND, "6H KD QC", ((2, "5H JK 7H 8H"),))
    new = ok(state, 0, RetrieveJoker(1, JK, cs("6H")))
    assert meld_by_id(new, 1).cards == cs("5H 6H 7H 8H")


def test_declared_run_retrieval_follows_the_declared_stand_in() -> None:
    options = resolve("hand", {"end_joker": "declared"})
    state = table_position(options, "5H 6H JK 7H 4H KD", ())
    state = ok(state, 0, LayMelds((MeldSpec(cs("5H 6H JK"), ((JK, 7, H),)),)))
    meld_id = last_meld(state).id
    refused(state, 0, RetrieveJoker(meld_id, JK, cs("4H")), Code.INVALID_RETRIEVAL)
    state = ok(state, 0, RetrieveJoker(meld_id, JK, cs("7H")))
    assert meld_by_id(state, meld_id).cards == cs("5H 6H 7H")


def test_second_by_layoff_two_jokers_are_retrieved_one_at_a_time() -> None:
    options = resolve("dananeer")
    state = table_position(options, "JK#2 3H 4H KD QC", ((1, "5H 6H JK"),))
    state = ok(state, 0, LayOff(1, (JK2,)))  # JK#2 = 3♥, JK = 4♥
    refused(state, 0, RetrieveJoker(1, JK, cs("3H 4H")), Code.INVALID_RETRIEVAL)
    refused(state, 0, RetrieveJoker(1, JK, cs("3H")), Code.INVALID_RETRIEVAL)
    state = ok(state, 0, RetrieveJoker(1, JK, cs("4H")))
    meld = meld_by_id(state, 1)
    assert meld.stand_ins == ((JK2, 3, H),)
    assert meld.cards == cs("JK#2 4H 5H 6H")
    state = ok(state, 0, RetrieveJoker(1, JK2, cs("3H")))
    assert meld_by_id(state, 1).cards == cs("3H 4H 5H 6H")
    assert {JK, JK2} <= set(hand(state, 0))


def test_a_retrieval_names_a_joker_that_is_in_the_meld() -> None:
    state = table_position(HAND, "4H KD QC", ((1, "5H 6H JK"), (1, "9C 10C JK#2")))
    refused(state, 0, RetrieveJoker(1, JK2, cs("4H")), Code.INVALID_RETRIEVAL)
    refused(state, 0, RetrieveJoker(9, JK, cs("4H")), Code.UNKNOWN_MELD)
    refused(state, 0, RetrieveJoker(1, 106, cs("4H")), Code.UNKNOWN_CARD)


def test_a_retrieval_uses_natural_cards_from_the_hand() -> None:
    state = table_position(HAND, "JK#2 KD QC", ((1, "5H 6H JK"),))
    refused(state, 0, RetrieveJoker(1, JK, (JK2,)), Code.INVALID_RETRIEVAL)
    refused(state, 0, RetrieveJoker(1, JK, cs("4H")), Code.CARD_NOT_IN_HAND)
    refused(state, 0, RetrieveJoker(1, JK, ()), Code.INVALID_RETRIEVAL)


# --------------------------------------------------------------- retrieval in sets
@pytest.mark.parametrize("options", [ONE_CARD, BOTH], ids=["one_card", "both_missing"])
def test_set_of_4_retrieval_takes_the_one_missing_suit(options: Options) -> None:
    state = table_position(options, "9C 9H#2 KD QC", ((1, "9H 9S 9D JK"),))  # JK = 9♣
    refused(state, 0, RetrieveJoker(1, JK, cs("9H#2")), Code.INVALID_RETRIEVAL)
    new = ok(state, 0, RetrieveJoker(1, JK, cs("9C")))
    assert meld_by_id(new, 1).cards == tuple(sorted(cs("9H 9S 9D 9C")))
    assert JK in hand(new, 0)


def test_set_of_4_the_missing_suit_is_a_retrieval_not_a_lay_off() -> None:
    state = table_position(HAND, "9C KD QC", ((1, "9H 9S 9D JK"),))
    refused(state, 0, LayOff(1, cs("9C")), Code.INVALID_LAYOFF)


@pytest.mark.parametrize("missing", ["9C", "9D"])
def test_one_card_one_natural_of_a_missing_suit_frees_a_set_of_3_joker(missing: str) -> None:
    """set_joker_retrieval = one_card: leaves three naturals."""
    state = table_position(ONE_CARD, f"{missing} KD QC", ((1, "9H 9S JK"),))
    new = ok(state, 0, RetrieveJoker(1, JK, cs(missing)))
    meld = meld_by_id(new, 1)
    assert meld.cards == tuple(sorted(cs(f"9H 9S {missing}")))
    assert meld.stand_ins == () and meld.value == 27
    assert len(hand(new, 0)) == 3


def test_one_card_adding_the_other_missing_suit_is_a_separate_lay_off() -> None:
    state = table_position(ONE_CARD, "9C 9D KD QC", ((1, "9H 9S JK"),))
    refused(state, 0, RetrieveJoker(1, JK, cs("9C 9D")), Code.INVALID_RETRIEVAL)
    state = ok(state, 0, RetrieveJoker(1, JK, cs("9C")))
    state = ok(state, 0, LayOff(1, cs("9D")))
    assert len(meld_by_id(state, 1).cards) == 4


@pytest.mark.parametrize("cards", ["9H#2", "9S#2", "9C 9H#2", "8C"])
def test_set_of_3_retrieval_with_a_suit_already_in_the_set_or_another_rank_is_refused(cards: str) -> None:
    for options in (ONE_CARD, BOTH):
        state = table_position(options, f"{cards} KD QC", ((1, "9H 9S JK"),))
        refused(state, 0, RetrieveJoker(1, JK, cs(cards)), Code.INVALID_RETRIEVAL)


@pytest.mark.parametrize("options", [BOTH, resolve("saudi"), resolve("r2019")], ids=["both_missing", "saudi", "r2019"])
def test_both_missing_only_both_missing_suits_together_free_a_set_of_3_joker(options: Options) -> None:
    """The hand shrinks by one (two naturals in, the joker back)."""
    state = table_position(options, "9C 9D KD QC", ((1, "9H 9S JK"),))
    refused(state, 0, RetrieveJoker(1, JK, cs("9C")), Code.INVALID_RETRIEVAL)
    refused(state, 0, RetrieveJoker(1, JK, cs("9D")), Code.INVALID_RETRIEVAL)
    new = ok(state, 0, RetrieveJoker(1, JK, cs("9C 9D")))
    assert meld_by_id(new, 1).cards == tuple(sorted(cs("9H 9S 9D 9C")))
    assert hand(new, 0) == tuple(sorted((JK, *cs("KD QC"))))


@pytest.mark.parametrize("options", [ONE_CARD, BOTH], ids=["one_card", "both_missing"])
@pytest.mark.parametrize("first", ["9C", "9D"])
def test_laying_one_missing_suit_off_then_retrieving_with_the_other_comes_to_the_same(options: Options, first: str) -> None:
    second = "9D" if first == "9C" else "9C"
    start = table_position(options, "9C 9D KD QC", ((1, "9H 9S JK"),))
    state = ok(start, 0, LayOff(1, cs(first)))
    assert meld_by_id(state, 1).stand_ins == ((JK, 9, D if first == "9C" else C),)
    state = ok(state, 0, RetrieveJoker(1, JK, cs(second)))
    assert meld_by_id(state, 1).cards == tuple(sorted(cs("9H 9S 9D 9C")))
    assert hand(state, 0) == tuple(sorted((JK, *cs("KD QC"))))
    if options.set_joker_retrieval == "both_missing":
        direct = ok(start, 0, RetrieveJoker(1, JK, cs("9C 9D")))
        assert direct.melds == state.melds and direct.seats == state.seats


# --------------------------------------------------------------- the joker in the retriever's hand
def test_the_retrieved_joker_may_be_used_in_a_new_meld_the_same_turn() -> None:
    state = table_position(HAND, "4H 10C JC KD", ((1, "5H 6H JK"),))
    state = ok(state, 0, RetrieveJoker(1, JK, cs("4H")))
    state = ok(state, 0, LayMelds((MeldSpec(cs("10C JC JK")),)))
    assert last_meld(state).stand_ins == ((JK, 9, C),)
    assert hand(state, 0) == cs("KD")


def test_the_retrieved_joker_may_be_laid_off_the_same_turn() -> None:
    state = table_position(HAND, "4H KD QC", ((1, "5H 6H JK"), (2, "9S 10S JS")))
    state = ok(state, 0, RetrieveJoker(1, JK, cs("4H")))
    state = ok(state, 0, LayOff(2, (JK,)))
    assert meld_by_id(state, 2).stand_ins == ((JK, 8, S),)


@pytest.mark.parametrize("joker", ["JK", "JK#2"])
def test_jokers_may_be_discarded_like_any_card(joker: str) -> None:
    state = table_position(HAND, f"{joker} KD QC", ())
    state = ok(state, 0, Discard(c(joker)))
    assert state.pile[-1] == c(joker)
    assert state.turn.seat == 1


def test_a_retrieved_joker_may_be_discarded_the_same_turn() -> None:
    state = table_position(HAND, "4H KD QC", ((1, "5H 6H JK"),))
    state = ok(state, 0, RetrieveJoker(1, JK, cs("4H")))
    state = ok(state, 0, Discard(JK))
    assert state.pile[-1] == JK


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset_lets_an_open_player_retrieve_and_keeps_the_table_legal(preset: str) -> None:
    options = resolve(preset)
    state = build(
        options, ["4H KD QC", "2S#2 3S#2", "2D#2 3D#2", "2C#2 3C#2"], melds=((1, "5H 6H JK"),),
        opened=(0, 1), phase="play",
    )
    state = ok(state, 0, RetrieveJoker(1, JK, cs("4H")))
    assert meld_by_id(state, 1).cards == cs("4H 5H 6H")


def test_a_retrieval_does_not_end_the_turn() -> None:
    """A retrieval does not end the turn: the player still discards, then the next seat draws."""
    state = table_position(HAND, "4H KD QC", ((1, "5H 6H JK"),))
    state = ok(state, 0, RetrieveJoker(1, JK, cs("4H")))
    state = ok(state, 0, Discard(c("KD")))
    state = ok(state, 1, DrawStock())
    assert state.turn.seat == 1 and state.turn.phase == "play"
