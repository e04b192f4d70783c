"""docs/rules.md §1 — Cards: 106 physical cards, stable ids, text notation, values."""

from __future__ import annotations

import pytest

from hand_engine import (
    Code, Discard, DrawStock, LayMelds, MeldSpec, RuleViolation, format_card, format_cards,
    hand_value, parse_card, parse_cards, resolve,
)
from hand_engine.cards import N_CARDS, copy_of, rank_of, suit_of
from hand_engine.melds import new_meld
from hand_sim.positions import build
from tests.moves_support import c, cs, ok, refused

RANK_TEXT = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUIT_TEXT = "SHDC"
NATURALS = [
    (copy, suit, rank) for copy in (1, 2) for suit in range(4) for rank in range(1, 14)
]


def _text(rank: int, suit: int, copy: int) -> str:
    return RANK_TEXT[rank - 1] + SUIT_TEXT[suit] + ("#2" if copy == 2 else "")


# --------------------------------------------------------------- 106 cards, ids
def test_there_are_106_physical_cards_two_decks_plus_two_jokers() -> None:
    ids = [parse_card(_text(r, s, cp)) for cp, s, r in NATURALS] + [parse_card("JK"), parse_card("JK#2")]
    assert N_CARDS == 106
    assert sorted(ids) == list(range(106))


@pytest.mark.parametrize(("copy", "suit", "rank"), NATURALS)
def test_card_id_is_52_copy_minus_1_plus_13_suit_plus_rank_minus_1(copy: int, suit: int, rank: int) -> None:
    """id = 52·(copy−1) + 13·suit + (rank−1), suits S H D C = 0–3, A = 1 … K = 13."""
    expected = 52 * (copy - 1) + 13 * suit + (rank - 1)
    text = _text(rank, suit, copy)
    assert parse_card(text) == expected
    assert format_card(expected) == text
    assert (rank_of(expected), suit_of(expected), copy_of(expected)) == (rank, suit, copy)


def test_jokers_are_104_and_105() -> None:
    """`JK#1` = 104, `JK#2` = 105."""
    assert parse_card("JK") == 104
    assert parse_card("JK#1") == 104
    assert parse_card("JK#2") == 105
    assert format_card(104) == "JK"
    assert format_card(105) == "JK#2"


def test_the_two_copies_of_a_natural_card_are_different_physical_cards() -> None:
    assert parse_card("9H") != parse_card("9H#2")
    assert parse_card("9H#2") - parse_card("9H") == 52


# --------------------------------------------------------------- notation
@pytest.mark.parametrize("card", range(106))
def test_text_notation_round_trips_for_every_card(card: int) -> None:
    assert parse_card(format_card(card)) == card
    assert parse_card(format_card(card, always_copy=True)) == card


def test_a_card_written_without_a_suffix_is_copy_1() -> None:
    assert parse_card("9H") == parse_card("9H#1") == 13 * 1 + 8
    assert parse_card("AS") == 0
    assert parse_card("KC") == 51
    assert parse_card("KC#2") == 103


def test_copy_1_is_formatted_without_a_suffix_unless_asked() -> None:
    assert format_card(parse_card("9H")) == "9H"
    assert format_card(parse_card("9H"), always_copy=True) == "9H#1"
    assert format_card(104, always_copy=True) == "JK#1"


@pytest.mark.parametrize(
    ("text", "card"),
    [("10H", 22), ("TH", 22), ("th", 22), ("Th", 22), ("10h", 22), ("tH#2", 74), ("AS", 0), ("as", 0),
     ("QD", 37), ("qd", 37), ("jk", 104), ("Jk#2", 105), ("  9c ", 47), ("10C#2", 100)],
)
def test_t_is_accepted_for_10_and_input_is_case_insensitive(text: str, card: int) -> None:
    """Accept `T` for 10 on input; lower case parses too."""
    assert parse_card(text) == card


def test_10_is_always_written_10_never_t() -> None:
    assert format_card(parse_card("TS")) == "10S"
    assert format_card(parse_card("TD#2")) == "10D#2"


def test_a_list_of_cards_parses_with_spaces_or_commas_and_formats_back() -> None:
    text = "10H AS QD 9H#2 JK JK#2"
    ids = parse_cards(text)
    assert ids == (22, 0, 37, 73, 104, 105)
    assert parse_cards("10H,AS, QD  9H#2,JK,JK#2") == ids
    assert format_cards(ids) == text
    assert parse_cards("") == ()


@pytest.mark.parametrize(
    "text",
    ["", " ", "1H", "11H", "0S", "1OH", "ZZ", "AX", "A", "H", "10", "9H#3", "9H#0", "9H#", "JK#3",
     "JK#", "#2", "JKR", "JOKER", "KJK", "9H#1#2", "TT", "T0H", "10HH", "A S", "AS#02", "♥9", "9♥"],
)
def test_garbage_card_text_is_refused_as_unknown_card(text: str) -> None:
    with pytest.raises(RuleViolation) as info:
        parse_card(text)
    assert info.value.code is Code.UNKNOWN_CARD


def test_garbage_inside_a_card_list_is_refused_as_unknown_card() -> None:
    with pytest.raises(RuleViolation) as info:
        parse_cards("AS 9H XX")
    assert info.value.code is Code.UNKNOWN_CARD


@pytest.mark.parametrize("card", [-1, 106, 1000, True, 1.0, "AS", None])
def test_formatting_a_non_card_id_is_refused_as_unknown_card(card: object) -> None:
    with pytest.raises(RuleViolation) as info:
        format_card(card)  # type: ignore[arg-type]
    assert info.value.code is Code.UNKNOWN_CARD


def test_moves_refer_to_cards_by_id_and_refuse_unknown_ids() -> None:
    """Events, replays and clients refer to cards by id: an id outside 0..105 is unknown."""
    state = build(resolve("hand"), ["5H 6H", "2C 3C"], phase="play")
    refused(state, 0, Discard(106), Code.UNKNOWN_CARD)
    refused(state, 0, Discard(-1), Code.UNKNOWN_CARD)


# --------------------------------------------------------------- values
VALUE_TABLE = [
    ("2", 2), ("3", 3), ("4", 4), ("5", 5), ("6", 6), ("7", 7), ("8", 8), ("9", 9),
    ("10", 10), ("J", 10), ("Q", 10), ("K", 10), ("A", 11),
]


@pytest.mark.parametrize(("rank", "value"), VALUE_TABLE)
@pytest.mark.parametrize("suit", SUIT_TEXT)
@pytest.mark.parametrize("copy", ["", "#2"])
def test_values_table_2_to_9_face_10_j_q_k_ten_ace_eleven(rank: str, value: int, suit: str, copy: str) -> None:
    assert hand_value(parse_card(rank + suit + copy)) == value


@pytest.mark.parametrize("joker", ["JK", "JK#2"])
def test_a_joker_left_in_hand_is_worth_15(joker: str) -> None:
    assert hand_value(parse_card(joker)) == 15
    assert hand_value(parse_card(joker), joker_in_hand=20) == 20


@pytest.mark.parametrize(("text", "value"), [("5H 6H JK", 15), ("9H 9S JK", 27), ("JK QH KH", 30), ("9H JK JH", 29)])
def test_a_joker_inside_a_meld_is_worth_the_card_it_stands_for(text: str, value: int) -> None:
    assert new_meld(cs(text), resolve("hand")).value == value


@pytest.mark.parametrize(("low_ace_value", "run_value"), [(11, 16), (1, 6)])
def test_low_ace_value_applies_only_to_an_ace_at_the_bottom_of_a_run(low_ace_value: int, run_value: int) -> None:
    options = resolve("hand", {"low_ace_value": low_ace_value})
    assert new_meld(cs("AH 2H 3H"), options).value == run_value
    assert new_meld(cs("QH KH AH"), options).value == 31
    assert new_meld(cs("AH AS AD"), options).value == 33
    assert hand_value(c("AH")) == 11


def _finish_round(options, loser_hand: str):
    """Seat 0 (open) goes out; seat 1 (open) keeps ``loser_hand``."""
    state = build(options, ["5C 6C 7C 9D", loser_hand], opened=[0, 1], phase="play")
    state = ok(state, 0, LayMelds((MeldSpec(cs("5C 6C 7C")),)))
    state = ok(state, 0, Discard(c("9D")))
    assert state.result is not None
    return state.result


@pytest.mark.parametrize("preset", ["hand", "saudi", "r2019"])
def test_an_ace_left_in_hand_scores_11_whatever_low_ace_value(preset: str) -> None:
    """In hand an ace is always 11 (§4), even where an ace low in a run is 1."""
    result = _finish_round(resolve(preset), "AS AH#2 4D")
    assert result.seats[1].cards_value == 26
    assert result.seats[1].score == 26


@pytest.mark.parametrize(("joker_in_hand", "score"), [(15, 15 + 10 + 4), (20, 20 + 10 + 4)])
def test_a_joker_left_in_hand_scores_joker_in_hand(joker_in_hand: int, score: int) -> None:
    result = _finish_round(resolve("hand", {"joker_in_hand": joker_in_hand}), "KS 4D JK")
    assert result.seats[1].score == score


def test_a_drawn_card_keeps_its_id_in_the_hand() -> None:
    """Stable identity: the card drawn from the stock is the same id in the hand."""
    state = build(resolve("hand"), ["5H 6H", "2C 3C"], stock="9H#2")
    state = ok(state, 0, DrawStock())
    assert c("9H#2") in state.seats[0].hand
    assert state.turn.drawn == 73
