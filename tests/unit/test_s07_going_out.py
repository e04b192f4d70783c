"""docs/rules.md §7 — going out (discard_required / meld_out_allowed), the first
turn (out_on_first_turn), the Hand finish (new_melds_only / own_melds_ok),
hand_needs_threshold and hand_multiplier."""

from __future__ import annotations

import pytest

from hand_engine import (
    Code, Discard, DrawStock, RetrieveJoker, TakeDiscard, apply, parse_cards, start_round,
)
from hand_engine.events import CardDiscarded, RoundEnded
from hand_sim.positions import build
from tests.rules_support import c, cs, hand_of, lay, layoff, opts, play, refused

OTHER = "2H 3C 8H 9H KD"


def drawn(s, seat=0):
    s, _ = apply(s, seat, DrawStock())
    return s


def open_player(hand, stock, melds=(), **o):
    """Seat 0 is open (laid earlier), has drawn ``stock`` and may act."""
    s = build(opts(**o), [hand, OTHER], opened=[0, 1], stock=stock, melds=melds)
    return drawn(s)


def fresh_player(hand, stock, melds=(), n=2, others=None, **o):
    """Seat 0 has laid nothing this round, has drawn ``stock`` and may act."""
    hands = [hand, *(others or [OTHER])]
    s = build(opts(**o), hands, stock=stock, melds=melds, opened=[m[0] for m in melds])
    assert s.turn.fresh
    return drawn(s)


# ------------------------------------------------------------------ going_out
def test_discard_required_a_player_goes_out_by_discarding_the_last_card():
    s = open_player("5S 6S 7S", "4C")
    s, _ = apply(s, 0, lay("5S 6S 7S"))
    s, events = apply(s, 0, Discard(c("4C")))
    assert events[0] == CardDiscarded(0, c("4C")) and isinstance(events[-1], RoundEnded)
    assert s.over and s.result.winner == 0 and s.result.finish == "normal"
    assert s.result.seats[0].score == -30


def test_discard_required_emptying_the_hand_by_melding_is_refused():
    s = open_player("5S 6S 7S", "8S")
    refused(s, 0, lay("5S 6S 7S 8S"), Code.MUST_DISCARD_TO_GO_OUT)


def test_discard_required_emptying_the_hand_by_laying_off_is_refused():
    s = open_player("8C", "9C", melds=[(1, "5C 6C 7C")])
    refused(s, 0, layoff(1, "8C 9C"), Code.LAYOFF_LEAVES_TOO_FEW)


def test_meld_out_allowed_emptying_the_hand_by_melding_ends_the_round_at_once():
    s = open_player("5S 6S 7S", "8S", going_out="meld_out_allowed")
    s, events = apply(s, 0, lay("5S 6S 7S 8S"))
    assert isinstance(events[-1], RoundEnded) and not any(isinstance(e, CardDiscarded) for e in events)
    assert s.over and s.result.winner == 0 and s.result.finish == "normal"
    assert s.pile == () and hand_of(s, 0) == ()
    refused(s, 0, Discard(c("4C")), Code.ROUND_OVER)
    refused(s, 1, DrawStock(), Code.ROUND_OVER)


def test_meld_out_allowed_emptying_the_hand_by_laying_off_ends_the_round():
    s = open_player("8C", "9C", melds=[(1, "5C 6C 7C")], going_out="meld_out_allowed")
    s, _ = apply(s, 0, layoff(1, "8C 9C"))
    assert s.over and s.result.winner == 0


def test_meld_out_allowed_the_player_may_still_go_out_by_discarding():
    s = open_player("5S 6S 7S", "4C", going_out="meld_out_allowed")
    s, _ = play(s, 0, lay("5S 6S 7S"), Discard(c("4C")))
    assert s.over and s.result.winner == 0


@pytest.mark.parametrize(
    "going_out, minimum, floor",
    [("discard_required", 0, 1), ("discard_required", 2, 2), ("meld_out_allowed", 0, 0),
     ("meld_out_allowed", 2, 2)],
)
def test_cards_left_after_a_lay_off_are_the_option_or_one_under_discard_required(
        going_out, minimum, floor):
    s = open_player("8C 9C", "10C", melds=[(1, "5C 6C 7C")], going_out=going_out,
                    min_hand_after_layoff=minimum)
    for shed, left in [("8C 9C 10C", 0), ("8C 9C", 1), ("8C", 2)]:
        if left >= floor:
            after, _ = apply(s, 0, layoff(1, shed))
            assert len(hand_of(after, 0)) == left and after.over is (left == 0)
        else:
            refused(s, 0, layoff(1, shed), Code.LAYOFF_LEAVES_TOO_FEW)


# ------------------------------------------------------------------ out_on_first_turn
def first_turn_deck(starter_cards: str, seat1_cards: str, seat1_draw: str, starter_draw: str):
    """A 2-seat deck with dealer 1: the starter (seat 0) gets d[0], d[2], … d[28]."""
    a, b = list(parse_cards(starter_cards)), list(parse_cards(seat1_cards))
    assert len(a) == 15 and len(b) == 14
    d = [0] * 31
    d[0:29:2], d[1:29:2] = a, b
    d[29], d[30] = parse_cards(seat1_draw)[0], parse_cards(starter_draw)[0]
    return d + [x for x in range(106) if x not in d]


STARTER = "2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS 5H 5D JH"
SEAT1 = "2H 3H 4H 6H 7H 8H 9H 10H 2D 3D 4D 6D 7D 8D"


def starters_first_drawing_turn(**o):
    deck = first_turn_deck(STARTER, SEAT1, "9C", "5C")
    s, _ = start_round(opts(**o), 2, dealer=1, deck=deck)
    assert s.turn.seat == 0 and s.turn.opening_discard and not s.turn.first_turn
    s, _ = apply(s, 0, Discard(c("JH")))  # the starter's opening discard
    assert s.turn.seat == 1 and s.turn.first_turn
    s, _ = play(s, 1, DrawStock(), Discard(c("9C")))
    assert s.turn.seat == 0 and s.turn.first_turn  # the opening discard did not count
    s, _ = apply(s, 0, DrawStock())
    assert s.turn.drawn == c("5C")
    return s


def test_the_first_turn_is_the_first_turn_in_which_the_player_draws():
    s = starters_first_drawing_turn()
    s, _ = apply(s, 0, Discard(c("5C")))
    assert s.turn.seat == 1 and not s.turn.first_turn
    s, _ = play(s, 1, DrawStock(), Discard(s.stock[0]))
    assert s.turn.seat == 0 and not s.turn.first_turn


def test_out_on_first_turn_forbidden_refuses_going_out_on_the_first_drawing_turn():
    s = starters_first_drawing_turn(out_on_first_turn="forbidden")
    refused(s, 0, lay("2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS", "5H 5D 5C"), Code.DEAD_END)


def test_out_on_first_turn_forbidden_refuses_a_hand_emptied_by_melds():
    s = starters_first_drawing_turn(out_on_first_turn="forbidden", going_out="meld_out_allowed")
    refused(s, 0, lay("2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS", "5H 5D 5C"), Code.GOING_OUT_FORBIDDEN)


def test_out_on_first_turn_forbidden_refuses_discarding_the_last_card():
    s = build(opts(), ["4C", OTHER], phase="play", first_turn=True, opened=[0])
    refused(s, 0, Discard(c("4C")), Code.GOING_OUT_FORBIDDEN)


def test_out_on_first_turn_forbidden_does_not_forbid_opening():
    s = starters_first_drawing_turn(out_on_first_turn="forbidden")
    s, _ = play(s, 0, lay("2S 3S 4S 5S 6S 7S 8S 9S 10S", "5H 5D 5C"), Discard(c("JS")))
    assert s.seats[0].opened and hand_of(s, 0) == cs("QS KS")


def test_out_on_first_turn_allowed_a_hand_on_the_first_drawing_turn():
    s = starters_first_drawing_turn(out_on_first_turn="allowed")
    s, _ = play(s, 0, lay("2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS", "5H 5D 5C"), Discard(c("KS")))
    assert s.over and s.result.winner == 0 and s.result.finish == "hand"


# ------------------------------------------------------------------ the Hand finish
OPENING = ("KS QS JS", "7H 7D 7C")


@pytest.mark.parametrize("rule", ["new_melds_only", "own_melds_ok"])
def test_going_out_in_one_turn_with_new_melds_only_is_a_hand(rule):
    s = fresh_player("KS QS JS 7H 7D 7C", "4C", hand_finish=rule)
    s, _ = play(s, 0, lay(*OPENING), Discard(c("4C")))
    r = s.result
    assert r.finish == "hand" and r.multiplier == 2 and r.seats[0].score == -60


@pytest.mark.parametrize("rule, finish", [("new_melds_only", "normal"), ("own_melds_ok", "hand")])
def test_a_lay_off_on_an_own_meld_laid_this_turn(rule, finish):
    """new_melds_only: no lay-off at all (the finish is then normal, Decision 0109);
    own_melds_ok: lay-offs on melds laid in that same turn keep the Hand."""
    s = fresh_player("KS QS JS 7H 7D 7C 10S", "4C", hand_finish=rule)
    s, _ = play(s, 0, lay(*OPENING), layoff(1, "10S"), Discard(c("4C")))
    assert s.result.winner == 0 and s.result.finish == finish


@pytest.mark.parametrize("rule, finish", [("new_melds_only", "normal"), ("own_melds_ok", "hand")])
def test_a_retrieval_from_an_own_meld_laid_this_turn(rule, finish):
    s = fresh_player("KS QS JS 7H 7D 7C 5D 6D JK", "4D", hand_finish=rule)
    s, _ = play(s, 0, lay(*OPENING), lay("5D 6D JK"))
    assert s.meld(3).stand_ins == ((c("JK"), 4, 2),)  # the joker stands for 4D
    s, _ = play(s, 0, RetrieveJoker(3, c("JK"), cs("4D")), Discard(c("JK")))
    assert s.result.winner == 0 and s.result.finish == finish


@pytest.mark.parametrize("rule", ["new_melds_only", "own_melds_ok"])
def test_a_retrieval_from_an_opponents_meld_is_never_a_hand(rule):
    s = fresh_player("KS QS JS 7H 7D 7C 9C 5H 6H", "4C", melds=[(1, "8C JK 10C")], hand_finish=rule)
    s, _ = play(s, 0, lay(*OPENING), RetrieveJoker(1, c("JK"), cs("9C")), lay("5H 6H JK"),
                Discard(c("4C")))
    assert s.result.winner == 0 and s.result.finish == "normal"


@pytest.mark.parametrize("rule", ["new_melds_only", "own_melds_ok"])
def test_a_lay_off_on_a_partners_meld_is_never_a_hand(rule):
    hands = ["KS QS JS 7H 7D 7C JD", "2H 3D 6H 9H", "AS AH AD 4S", "2C 3C 6C 9C"]
    s = build(opts("partnership", hand_finish=rule), hands, melds=[(2, "8D 9D 10D")], opened=[2],
              stock="4C")
    assert s.turn.fresh
    s = drawn(s)
    s, _ = play(s, 0, lay(*OPENING), layoff(1, "JD"), Discard(c("4C")))
    assert s.result.winner == 0 and s.result.finish == "normal" and s.result.multiplier == 1


@pytest.mark.parametrize("rule", ["new_melds_only", "own_melds_ok"])
def test_a_lay_off_on_an_opponents_meld_is_never_a_hand(rule):
    s = fresh_player("KS QS JS 7H 7D 7C JD", "4C", melds=[(1, "8D 9D 10D")], hand_finish=rule)
    s, _ = play(s, 0, lay(*OPENING), layoff(1, "JD"), Discard(c("4C")))
    assert s.result.finish == "normal"


def test_a_player_who_laid_something_earlier_in_the_round_does_not_finish_with_a_hand():
    s = open_player("KS QS JS 7H 7D 7C", "4C")
    s, _ = play(s, 0, lay(*OPENING), Discard(c("4C")))
    assert s.result.finish == "normal" and s.result.multiplier == 1


def test_a_hand_is_the_opening_so_the_threshold_applies_by_default():
    s = fresh_player("5S 6S 7S 2D 3D 4D", "4C")
    refused(s, 0, lay("5S 6S 7S", "2D 3D 4D"), Code.BELOW_THRESHOLD)


# ------------------------------------------------------------------ hand_needs_threshold = false
LOW = ("5S 6S 7S", "2D 3D 4D")  # 18 + 9 = 27, below 51


def test_hand_needs_threshold_false_a_short_submission_must_leave_a_single_card():
    s = fresh_player("5S 6S 7S 2D 3D 4D 9C", "4C", hand_needs_threshold=False)
    refused(s, 0, lay(*LOW), Code.BELOW_THRESHOLD)  # two cards would be left


def test_hand_needs_threshold_false_then_only_the_discard_is_allowed_and_the_finish_is_a_hand():
    s = fresh_player("5S 6S 7S 2D 3D 4D", "4C", melds=[(1, "5C 6C 7C")], hand_needs_threshold=False)
    s, events = apply(s, 0, lay(*LOW))
    assert events[0].opening and s.seats[0].opened and s.seats[0].opening_total == 27
    assert s.turn.discard_only
    refused(s, 0, layoff(1, "4C"), Code.ONLY_DISCARD_ALLOWED)
    refused(s, 0, lay("2D 3D 4D"), Code.ONLY_DISCARD_ALLOWED)
    s, _ = apply(s, 0, Discard(c("4C")))
    assert s.over and s.result.finish == "hand" and s.result.winner == 0
    assert s.result.seats[0].score == -60


def test_hand_needs_threshold_false_with_meld_out_allowed_a_short_submission_may_empty_the_hand():
    s = fresh_player("5S 6S 7S 2D 3D", "4D", hand_needs_threshold=False, going_out="meld_out_allowed")
    s, _ = apply(s, 0, lay(*LOW))
    assert s.over and s.result.finish == "hand"


@pytest.mark.parametrize("rule", ["forbidden", "allowed"])
def test_hand_needs_threshold_false_needs_going_out_to_be_allowed_this_turn(rule):
    s = build(opts(hand_needs_threshold=False, out_on_first_turn=rule), ["5S 6S 7S 2D 3D 4D", OTHER],
              stock="4C", first_turn=True)
    s = drawn(s)
    if rule == "forbidden":
        refused(s, 0, lay(*LOW), Code.BELOW_THRESHOLD)
    else:
        s, _ = play(s, 0, lay(*LOW), Discard(c("4C")))
        assert s.result.finish == "hand"


@pytest.mark.parametrize("take_return", ["until_met", "never"])
def test_hand_needs_threshold_false_the_short_submission_meets_a_take_obligation(take_return):
    s = build(opts(hand_needs_threshold=False, take_return=take_return), ["5S 6S 7S 2D 3D 9C", OTHER],
              pile="4D")
    s, _ = apply(s, 0, TakeDiscard())  # under never this take is checked, and accepted
    s, _ = apply(s, 0, lay(*LOW))
    assert s.turn.take_met
    s, _ = apply(s, 0, Discard(c("9C")))
    assert s.result.finish == "hand"


# ------------------------------------------------------------------ hand_multiplier
@pytest.mark.parametrize("multiplier", [2, 1])
def test_hand_multiplier_multiplies_every_score_of_a_hand_round(multiplier):
    hands = ["KS QS JS 7H 7D 7C", "2H 3D 6H 9H JD", "AS AH 5D"]
    s = build(opts(hand_multiplier=multiplier), hands, opened=[1], stock="4C")
    s = drawn(s)
    s, _ = play(s, 0, lay(*OPENING), Discard(c("4C")))
    r = s.result
    assert r.finish == "hand" and r.multiplier == multiplier
    assert [x.score for x in r.seats] == [-30 * multiplier, 30 * multiplier, 100 * multiplier]
