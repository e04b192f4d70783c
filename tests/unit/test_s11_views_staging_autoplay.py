"""docs/rules.md §11 — what players see (views and event redaction), the staging
helper (green / neutral / red, the opening counter) and the automatic turn."""

from __future__ import annotations

from dataclasses import fields

import pytest

from hand_engine import (
    Code, Discard, DrawStock, LayMelds, ReturnTake, RuleViolation, SeatView, TakeDiscard, apply,
    auto_turn, evaluate_staging, hand_value, next_auto_action, position_to_dict, redact,
    start_round, view,
)
from hand_engine.events import (
    DiscardTaken, RoundStarted, StockDrawn, StockRebuilt, TakeReturned,
)
from hand_sim.positions import build
from tests.rules_support import c, cs, hand_of, lay, opts, play

OTHER = "2H 3C 8H 9H KD"


# ------------------------------------------------------------------ views
def mid_game():
    s = build(opts(), ["KS QS JS 7H 7D 7C 4C 2S", OTHER, "5S 6S 7S 9C"], pile="10D",
              melds=[(2, "8D JK 10D#2")], opened=[2], stock="AS")
    s, _ = play(s, 0, DrawStock(), lay("KS QS JS", "7H 7D 7C"))
    return s


def cards_in(v):
    """Every card a view shows: own hand, pile, melds, the taken and drawn cards."""
    shown = {*v.hand, *v.pile, v.turn.taken, v.turn.drawn}
    for m in v.melds:
        shown.update(m.cards)
    return shown - {None}


def test_a_seat_sees_its_own_hand_and_no_other():
    s = mid_game()
    for seat in range(3):
        v = view(s, seat)
        assert isinstance(v, SeatView) and v.seat == seat and v.hand == hand_of(s, seat)
        for other in range(3):
            if other != seat:
                assert not cards_in(v) & set(hand_of(s, other))
        assert not cards_in(v) & set(s.stock)


def test_views_carry_no_hidden_fields():
    v = view(mid_game(), 1)
    hidden = {"stock", "deck", "seed", "rebuild_orders", "hands", "order"}
    for part in (v, v.turn, v.seats[0]):
        assert not {f.name for f in fields(part)} & hidden
    assert {"stock_size", "rebuilds", "hand"} <= {f.name for f in fields(SeatView)}
    assert {f.name for f in fields(v.seats[0])} >= {"seat", "hand_size", "opened", "opening_total"}


def test_the_stock_card_drawn_this_turn_is_shown_to_the_drawer_only():
    s = mid_game()
    assert view(s, 0).turn.drawn == c("AS")
    assert view(s, 1).turn.drawn is None and view(s, None).turn.drawn is None


def test_a_spectator_view_has_no_hand():
    v = view(mid_game(), None)
    assert v.seat is None and v.hand == ()


def test_the_public_part_of_a_view():
    s = mid_game()
    v = view(s, 1)
    assert [p.hand_size for p in v.seats] == [len(x.hand) for x in s.seats]
    assert [(p.opened, p.opening_total) for p in v.seats] == [(True, 51), (False, None), (True, 51)]
    assert v.pile == s.pile and v.melds == s.melds
    assert v.melds[0].owner == 2 and v.melds[0].stand_ins == ((c("JK"), 9, 2),)
    assert v.threshold == 51 and v.stock_size == len(s.stock) and v.rebuilds == 0
    assert v.dealer == s.dealer and v.round_no == s.round_no
    assert v == view(s, 1)


def test_the_current_threshold_is_public_under_escalating():
    s = build(opts(opening="escalating"), ["KS QS JS 4C", OTHER], opened={1: 64})
    assert view(s, 0).threshold == 65 and view(s, None).threshold == 65


def test_a_taken_card_is_public():
    s = build(opts(), ["7H 7D 4C 2S", OTHER], pile="7C", opened=[0])
    s, _ = apply(s, 0, TakeDiscard())
    assert view(s, 1).turn.taken == c("7C") and view(s, 1).turn.take_pending


# ------------------------------------------------------------------ redaction
def test_redact_hides_the_card_of_another_seats_stock_draw():
    ev = StockDrawn(0, c("AS"))
    assert redact(ev, 0) == ev
    assert redact(ev, 1).card is None and redact(ev, 1).seat == 0
    assert redact(ev, None).card is None


def test_redact_hides_the_deck_order_and_the_seed_from_everyone():
    _, events = start_round(opts(), 2, seed=99)
    started = events[0]
    assert isinstance(started, RoundStarted) and started.deck
    for seat in (0, 1, None):
        r = redact(started, seat)
        assert r.deck == () and r.seed is None
        assert (r.dealer, r.starter, r.n_seats) == (started.dealer, started.starter, started.n_seats)


def test_redact_hides_rebuild_orders_from_everyone():
    ev = StockRebuilt(1, 3, cs("4C 5D 6D"))
    for seat in (0, 1, None):
        assert redact(ev, seat) == StockRebuilt(1, 3, ())


@pytest.mark.parametrize("event", [DiscardTaken(0, 45), TakeReturned(0, 45)])
def test_takes_and_returns_show_the_card_to_everyone(event):
    for seat in (0, 1, None):
        assert redact(event, seat) == event


# ------------------------------------------------------------------ staging
HAND = "7H 7D 7C 5S 6S 7S 8S KH KD 4C 9H JK 10S JS QS KS"


def staging(cands, opened=(), **o):
    s = build(opts(**o), [HAND, "2H 3C 8H#2 9H#2 KD#2"], opened=opened)
    before = position_to_dict(s)
    result = evaluate_staging(s, 0, [cs(x) for x in cands])
    assert position_to_dict(s) == before  # staged cards stay in the hand
    return result


def test_staging_green_candidates_carry_kind_value_and_stand_ins():
    r = staging(["KS QS JS", "7H 7D JK", "5S 6S 7S 8S"])
    a, b, d = r.verdicts
    assert (a.colour, a.kind, a.value, a.stand_ins) == ("green", "run", 30, ())
    assert (b.colour, b.kind, b.value, b.stand_ins) == ("green", "set", 21, ((c("JK"), 7, -1),))
    assert (d.colour, d.kind, d.value) == ("green", "run", 26)


def test_staging_a_run_joker_stand_in():
    (v,) = staging(["5S 6S JK"]).verdicts
    assert v.colour == "green" and v.stand_ins == ((c("JK"), 4, 0),) and v.value == 15


@pytest.mark.parametrize(
    "cards, kinds",
    [
        ("", ("set", "run")),  # an empty candidate is neutral
        ("7H", ("set", "run")),
        ("JK", ("set", "run")),
        ("7H 7D", ("set",)),
        ("5S 6S", ("run",)),
        ("5S 8S", ("run",)),  # 6S and 7S exist somewhere in the deck
        ("KH 9H", ("run",)),
        ("7H JK", ("set", "run")),
        ("KD JK", ("set", "run")),
    ],
)
def test_staging_neutral_candidates_list_the_kinds_still_possible(cards, kinds):
    (v,) = staging([cards]).verdicts
    assert v.colour == "neutral" and v.possible == kinds and v.value == 0


@pytest.mark.parametrize(
    "cards",
    ["7H 5S", "7H 8S 9H", "7H 7D 7C 5S", "KH KD 4C", "5S 7S 10S JS QS KS 8S 9H"],
)
def test_staging_red_candidates_can_never_become_legal(cards):
    (v,) = staging([cards]).verdicts
    assert v.colour == "red" and v.possible == ()


def test_staging_the_joker_limit_is_respected():
    s = build(opts(), ["JK JK#2 5S", "2H 3C"])
    (v,) = evaluate_staging(s, 0, [cs("JK JK#2")]).verdicts
    assert v.colour == "red"
    s2 = build(opts(jokers_per_meld="second_by_layoff"), ["JK JK#2 5S", "2H 3C"])
    (v2,) = evaluate_staging(s2, 0, [cs("JK JK#2 5S")]).verdicts
    assert v2.colour == "red"  # a newly laid meld holds at most one joker


def test_staging_candidates_must_be_disjoint():
    s = build(opts(), [HAND, "2H 3C"])
    with pytest.raises(RuleViolation) as info:
        evaluate_staging(s, 0, [cs("7H 7D 7C"), cs("7C 5S")])
    assert info.value.code is Code.STAGING_OVERLAP


def test_staging_cards_must_be_in_the_seats_hand():
    s = build(opts(), [HAND, "2H 3C"])
    with pytest.raises(RuleViolation) as info:
        evaluate_staging(s, 0, [cs("7H 7D 2H")])
    assert info.value.code is Code.CARD_NOT_IN_HAND


def test_staging_counter_eram_example_47_of_51_four_more_needed():
    r = staging(["7H 7D 7C", "5S 6S 7S 8S", "KH KD", "4C 9H"])
    assert [v.colour for v in r.verdicts] == ["green", "green", "neutral", "red"]
    assert r.show_counter and (r.total, r.threshold, r.missing) == (47, 51, 4)


def test_staging_counter_escalating_example_61_of_65():
    r = staging(["7H 7D 7C", "10S JS QS KS"], opened={1: 64}, opening="escalating")
    assert r.show_counter and (r.total, r.threshold, r.missing) == (61, 65, 4)


def test_staging_counter_missing_is_never_negative():
    r = staging(["7H 7D 7C", "10S JS QS KS", "5S 6S JK"])
    assert (r.total, r.missing) == (76, 0)


def test_staging_counter_is_shown_only_before_the_player_is_open():
    assert not staging(["7H 7D 7C"], opened=[0]).show_counter


@pytest.mark.parametrize("rule, shown", [("team", False), ("player", True)])
def test_staging_counter_is_hidden_once_the_team_is_open(rule, shown):
    s = build(opts("partnership", partnership_opening=rule),
              ["KS QS JS 7H 7D 7C 4C 2S", "2H 3C", "5S 6S 7S 9C", "2D 3D"], opened=[])
    s, _ = play(s, 0, DrawStock(), lay("KS QS JS", "7H 7D 7C"))
    r = evaluate_staging(s, 2, [cs("5S 6S 7S")])
    assert r.show_counter is shown


# ------------------------------------------------------------------ the automatic turn
def test_auto_opening_discard_is_the_card_of_highest_hand_value_ties_lowest_id():
    s = build(opts(), ["AH 9C QD 2C AS", OTHER], phase="play", opening_discard=True)
    assert next_auto_action(s) == Discard(c("AS"))  # AS (id 0) before AH (id 13), both 11
    s = build(opts(), ["AH 9C QD 2C AS JK#2", OTHER], phase="play", opening_discard=True)
    assert next_auto_action(s) == Discard(c("JK#2"))  # a joker in hand is worth 15


def test_auto_opening_discard_in_a_real_deal():
    s, _ = start_round(opts(), 3, seed=21)
    hand = hand_of(s, s.turn.seat)
    best = min(hand, key=lambda x: (-hand_value(x), x))
    assert auto_turn(s) == [Discard(best)]


def test_auto_draws_from_the_stock_and_discards_the_drawn_card_laying_nothing():
    s = build(opts(), ["KS QS JS 7H 7D 7C 4C AS", OTHER], pile="7S", stock="2D")
    assert next_auto_action(s) == DrawStock()
    assert auto_turn(s) == [DrawStock(), Discard(c("2D"))]


def test_auto_returns_a_returnable_take_then_draws_from_the_stock():
    s = build(opts(), ["KS QS JS 7H 7D 4C AS", OTHER], pile="7C", stock="2D")
    s, _ = apply(s, 0, TakeDiscard())
    assert next_auto_action(s) == ReturnTake()
    assert auto_turn(s) == [ReturnTake(), DrawStock(), Discard(c("2D"))]


def test_auto_under_by_discard_returns_the_take():
    s = build(opts("dananeer"), ["KS QS JS 7H 7D 4C AS", OTHER], pile="7C", stock="2D")
    s, _ = apply(s, 0, TakeDiscard())
    assert auto_turn(s) == [ReturnTake(), DrawStock(), Discard(c("2D"))]


def test_auto_keeps_a_final_take_and_discards_the_highest_other_card():
    s = build(opts(discard_take="use_if_opening"), ["AD 2C 4C", OTHER], pile="JK", opened=[0])
    s, _ = apply(s, 0, TakeDiscard())
    assert auto_turn(s) == [Discard(c("AD"))]  # not the taken joker


def test_auto_discards_the_highest_card_when_the_drawn_card_is_no_longer_held():
    s = build(opts(), ["5S 6S AD AC 9D", OTHER], opened=[0], stock="7S")
    s, _ = play(s, 0, DrawStock(), lay("5S 6S 7S"))
    assert next_auto_action(s) == Discard(c("AD"))  # AD (id 26) before AC (id 39)


def melds_of(action):
    assert isinstance(action, LayMelds)
    return sorted(tuple(sorted(m.cards)) for m in action.melds)


def test_auto_meets_an_unreturnable_obligation_leaving_the_lowest_hand_value():
    s = build(opts(take_return="never"), ["KS QS JS 7H 7D 10H 10D 10C 9S 2D", OTHER], pile="7C")
    s, _ = apply(s, 0, TakeDiscard())
    action = next_auto_action(s)
    assert melds_of(action) == sorted(tuple(sorted(cs(m))) for m in ["KS QS JS", "7H 7D 7C", "10H 10D 10C"])
    actions = auto_turn(s)
    assert actions[0] == action and actions[-1] == Discard(c("9S"))


def test_auto_an_open_players_submission_may_hold_several_melds():
    """The submission that meets the obligation and leaves the lowest hand value: both melds."""
    s = build(opts(take_return="never", discard_take="meld_required"),
              ["2C 3C 4C 9H 9D 9S KS 5D", "2H 8H 7D JD"], pile="AH", opened=[0])
    s, _ = apply(s, 0, TakeDiscard())
    assert melds_of(next_auto_action(s)) == sorted(tuple(sorted(cs(m))) for m in ["2C 3C 4C", "9H 9D 9S"])


def test_auto_obligation_ties_on_value_go_to_fewest_cards_left():
    # the joker makes 2D 3D JK 5D or 4S JK 6S: both leave 10 points, the first in two cards
    s = build(opts(take_return="never", discard_take="meld_required"),
              ["2D 3D 5D 4S 6S JK 9C", "2H 8H 9H KD"], pile="KH", opened=[0])
    s, _ = apply(s, 0, TakeDiscard())
    assert melds_of(next_auto_action(s)) == [tuple(sorted(cs("2D 3D 5D JK")))]


def test_auto_obligation_ties_on_value_and_count_go_to_the_lowest_sorted_ids_left():
    # KH KD JK or QS QC JK: laying the kings leaves QS QC (ids 11, 50), not KH KD (25, 38)
    s = build(opts(take_return="never", discard_take="meld_required"),
              ["KH KD QS QC JK 2S 3D", "2H 8H 9H 7C"], pile="5C", opened=[0])
    s, _ = apply(s, 0, TakeDiscard())
    action = next_auto_action(s)
    assert melds_of(action) == [tuple(sorted(cs("KH KD JK")))]
    assert auto_turn(s) == [action, Discard(c("QS"))]
