"""docs/rules.md §3 — a turn: draw, take obligations, returns and the no-dead-end rule.

Every position is built in the draw phase and reached through ``apply``;
every refused move is checked to leave the state unchanged.
"""

from __future__ import annotations

import pytest

from hand_engine import (
    Code, Discard, DrawStock, LayOff, RetrieveJoker, ReturnTake, TakeDiscard, apply,
    position_to_dict,
)
from hand_engine.events import CardDiscarded, DiscardTaken, StockDrawn, TakeReturned
from hand_sim.positions import build
from tests.rules_support import c, cs, hand_of, lay, layoff, opts, play, refused

OTHER = "2H 3D 6H 9H JD"  # seat 1's hand: never used by seat 0's melds
PILE = "5D 7C"  # bottom first: 7C is the top

# a closed hand that opens 51 with the taken 7C: KS QS JS (30) + 7H 7D 7C (21)
CLOSED_WITH_CARD = "KS QS JS 7H 7D 4C 9D 2S"
# a closed hand that opens 60 without 7C (KS QS JS + 10H 10D 10C) and can meld 7H 7D 7C later
CLOSED_BOTH = "KS QS JS 10H 10D 10C 7H 7D 4C 2S"
# an open hand: 7H 7D 7C with the taken card, or 5S 6S 7S without it
OPEN_HAND = "7H 7D 5S 6S 7S 4C 2S"
TABLE = [(1, "8C 9C 10C")]  # seat 1's run, for lay-offs


def closed(hand: str, preset: str = "hand", **options):
    return build(opts(preset, **options), [hand, OTHER], pile=PILE)


def opened(hand: str, preset: str = "hand", melds=TABLE, **options):
    return build(opts(preset, **options), [hand, OTHER], pile=PILE, melds=melds, opened=[0, 1])


def take(state):
    state, _ = apply(state, 0, TakeDiscard())
    return state


# ------------------------------------------------------------------ drawing
def test_drawing_from_the_stock_gives_its_top_card_and_moves_to_the_play_step():
    s = closed(CLOSED_WITH_CARD)
    top = s.stock[0]
    s2, events = apply(s, 0, DrawStock())
    assert events == (StockDrawn(0, top),)
    assert top in hand_of(s2, 0) and len(hand_of(s2, 0)) == len(hand_of(s, 0)) + 1
    assert s2.stock == s.stock[1:] and s2.pile == s.pile
    assert s2.turn.phase == "play" and s2.turn.drawn == top and s2.turn.taken is None


def test_taking_gives_the_top_card_of_the_pile_and_only_that_card():
    s = closed(CLOSED_WITH_CARD)
    s2, events = apply(s, 0, TakeDiscard())
    assert events == (DiscardTaken(0, c("7C")),)
    assert c("7C") in hand_of(s2, 0) and c("5D") not in hand_of(s2, 0)
    assert s2.pile == cs("5D") and s2.stock == s.stock
    assert s2.turn.taken == c("7C") and s2.turn.took and s2.turn.drawn is None


@pytest.mark.parametrize("first", [DrawStock(), TakeDiscard()], ids=["stock", "pile"])
@pytest.mark.parametrize("second", [DrawStock(), TakeDiscard()], ids=["stock", "pile"])
def test_exactly_one_card_is_drawn_per_turn(first, second):
    s, _ = apply(closed(CLOSED_WITH_CARD), 0, first)
    refused(s, 0, second, Code.WRONG_PHASE)


@pytest.mark.parametrize(
    "action",
    [Discard(c("4C")), lay("KS QS JS", "7H 7D 4C"), LayOff(1, cs("JC")), ReturnTake()],
    ids=["discard", "meld", "layoff", "return"],
)
def test_before_drawing_no_other_move_is_accepted(action):
    s = build(opts(), ["KS QS JS 7H 7D 4C JC", OTHER], pile=PILE, melds=TABLE, opened=[0, 1])
    code = Code.NO_ACTIVE_TAKE if isinstance(action, ReturnTake) else Code.WRONG_PHASE
    refused(s, 0, action, code)


def test_taking_from_an_empty_pile_is_refused():
    s = build(opts(), [CLOSED_WITH_CARD, OTHER])
    refused(s, 0, TakeDiscard(), Code.DISCARD_PILE_EMPTY)


@pytest.mark.parametrize(
    "action",
    [DrawStock(), TakeDiscard(), ReturnTake(), Discard(c("2H")), lay("2H 3D 8S"), LayOff(1, cs("JD")),
     RetrieveJoker(1, 104, cs("JD"))],
    ids=["draw", "take", "return", "discard", "meld", "layoff", "retrieve"],
)
def test_only_the_player_to_move_may_move(action):
    s = opened(OPEN_HAND)
    refused(s, 1, action, Code.NOT_YOUR_TURN)
    s2 = take(s)
    refused(s2, 1, action, Code.NOT_YOUR_TURN)


def test_a_refused_move_changes_nothing_in_the_state():
    s = take(opened(OPEN_HAND))
    text = position_to_dict(s)
    for action, code in [
        (Discard(c("7C")), Code.TAKEN_CARD_NOT_DISCARDABLE),
        (Discard(c("4C")), Code.OBLIGATION_UNMET),
        (LayOff(1, cs("7C")), Code.TAKEN_CARD_RESTRICTED),
        (lay("7H 7D 4C"), Code.INVALID_MELD),
        (TakeDiscard(), Code.WRONG_PHASE),
        (Discard(c("KH")), Code.CARD_NOT_IN_HAND),
    ]:
        refused(s, 0, action, code)
    assert position_to_dict(s) == text


# ------------------------------------------------------------------ the taken card
@pytest.mark.parametrize(
    "policy, position",
    [
        ("meld_with_card", lambda o: opened(OPEN_HAND, **o)),  # obligation pending
        ("open_required", lambda o: opened(OPEN_HAND, **o)),  # open: no obligation
        ("meld_required", lambda o: opened(OPEN_HAND, **o)),
        ("use_if_opening", lambda o: closed(CLOSED_WITH_CARD, **o)),
    ],
)
def test_the_taken_card_cannot_be_discarded_in_the_same_turn(policy, position):
    s = take(position({"discard_take": policy}))
    refused(s, 0, Discard(c("7C")), Code.TAKEN_CARD_NOT_DISCARDABLE)


def test_the_taken_card_cannot_be_discarded_even_after_the_obligation_is_met():
    """meld_required met by a meld without the card: the card stays in hand, undiscardable."""
    s = take(opened(OPEN_HAND, discard_take="meld_required"))
    s, _ = apply(s, 0, lay("5S 6S 7S"))
    assert s.turn.take_met
    refused(s, 0, Discard(c("7C")), Code.TAKEN_CARD_NOT_DISCARDABLE)
    s, events = apply(s, 0, Discard(c("4C")))
    assert CardDiscarded(0, c("4C")) in events and s.turn.seat == 1


# ------------------------------------------------------------------ discard_take = meld_with_card
def test_meld_with_card_an_open_player_meets_it_with_a_new_meld_holding_the_card():
    s = take(opened(OPEN_HAND))
    assert not s.turn.take_met
    s, _ = apply(s, 0, lay("7H 7D 7C"))
    assert s.turn.take_met and s.turn.take_final
    s, _ = apply(s, 0, Discard(c("4C")))
    assert s.turn.seat == 1 and s.pile[-1] == c("4C")


def test_meld_with_card_a_joker_from_the_hand_counts_as_a_hand_card():
    s = take(opened("7H JK 5S 4C 2S"))
    s, _ = apply(s, 0, lay("7H JK 7C"))
    assert s.turn.take_met


def test_meld_with_card_a_new_meld_without_the_card_does_not_meet_it():
    s = take(opened(OPEN_HAND))
    s, _ = apply(s, 0, lay("5S 6S 7S"))
    assert not s.turn.take_met
    refused(s, 0, Discard(c("4C")), Code.OBLIGATION_UNMET)


def test_meld_with_card_the_turn_cannot_end_while_the_obligation_is_unmet():
    s = take(opened(OPEN_HAND))
    err = refused(s, 0, Discard(c("4C")), Code.OBLIGATION_UNMET)
    assert err.code is Code.OBLIGATION_UNMET


def test_meld_with_card_a_closed_player_must_also_open():
    s = take(closed(CLOSED_WITH_CARD))
    refused(s, 0, lay("7H 7D 7C"), Code.BELOW_THRESHOLD)  # 21 < 51


def test_meld_with_card_the_card_may_be_part_of_the_opening():
    s = take(closed(CLOSED_WITH_CARD))
    s, _ = apply(s, 0, lay("KS QS JS", "7H 7D 7C"))
    assert s.seats[0].opened and s.turn.take_met
    s, _ = apply(s, 0, Discard(c("4C")))
    assert s.turn.seat == 1


def test_meld_with_card_the_meld_with_the_card_may_be_laid_later_in_the_same_turn():
    s = take(closed(CLOSED_BOTH))
    s, _ = apply(s, 0, lay("KS QS JS", "10H 10D 10C"))  # the opening, without the card
    assert s.seats[0].opened and not s.turn.take_met
    refused(s, 0, Discard(c("4C")), Code.OBLIGATION_UNMET)
    s, _ = apply(s, 0, lay("7H 7D 7C"))  # no threshold now: the player is open
    assert s.turn.take_met
    s, _ = apply(s, 0, Discard(c("4C")))
    assert s.turn.seat == 1


def test_meld_with_card_a_lay_off_of_the_taken_card_is_refused_while_unmet():
    s = take(opened(OPEN_HAND))
    refused(s, 0, LayOff(1, cs("7C")), Code.TAKEN_CARD_RESTRICTED)  # 7C fits 8C 9C 10C


def test_a_joker_retrieval_with_the_taken_card_is_refused_while_unmet():
    s = take(opened(OPEN_HAND, melds=[(1, "6C JK 8C")]))  # the joker stands for 7C
    assert s.melds[0].stand_ins == ((104, 7, 3),)
    refused(s, 0, RetrieveJoker(1, 104, cs("7C")), Code.TAKEN_CARD_RESTRICTED)


@pytest.mark.parametrize("policy", ["open_required", "use_if_opening"])
def test_a_take_with_no_obligation_leaves_the_card_free_to_lay_off(policy):
    s = take(opened(OPEN_HAND, discard_take=policy))
    s, _ = apply(s, 0, LayOff(1, cs("7C")))
    assert s.meld(1).cards == cs("7C 8C 9C 10C")


# ------------------------------------------------------------------ discard_take = open_required
def test_open_required_a_closed_player_must_open_this_turn():
    s = take(closed(CLOSED_BOTH, discard_take="open_required"))
    refused(s, 0, Discard(c("4C")), Code.OBLIGATION_UNMET)
    s, _ = apply(s, 0, lay("KS QS JS", "10H 10D 10C"))  # the card need not be in the opening
    assert s.turn.take_met and s.turn.take_final
    refused(s, 0, ReturnTake(), Code.TAKE_NOT_RETURNABLE)
    s, _ = apply(s, 0, Discard(c("4C")))
    assert s.turn.seat == 1


def test_open_required_the_card_may_be_in_the_opening():
    s = take(closed(CLOSED_WITH_CARD, discard_take="open_required"))
    s, _ = apply(s, 0, lay("KS QS JS", "7H 7D 7C"))
    assert s.turn.take_met


def test_open_required_an_open_player_takes_with_no_obligation_and_the_take_is_final():
    s = take(opened(OPEN_HAND, discard_take="open_required"))
    assert s.turn.take_met and s.turn.take_final
    refused(s, 0, ReturnTake(), Code.TAKE_NOT_RETURNABLE)
    s, _ = apply(s, 0, Discard(c("4C")))
    assert s.turn.seat == 1


def test_open_required_once_opened_the_taken_card_may_be_laid_off():
    """Decision 0104: the restriction lasts only while the obligation is unmet."""
    s = build(opts(discard_take="open_required"), [CLOSED_BOTH, OTHER], pile=PILE,
              melds=[(1, "8C 9C 10C#2")], opened=[1])
    s = take(s)
    s, _ = apply(s, 0, lay("KS QS JS", "10H 10D 10C"))
    s, _ = apply(s, 0, LayOff(1, cs("7C")))
    assert c("7C") in s.meld(1).cards


# ------------------------------------------------------------------ discard_take = meld_required
def test_meld_required_a_closed_players_meld_is_the_opening():
    s = take(closed(CLOSED_BOTH, discard_take="meld_required"))
    refused(s, 0, lay("7H 7D 7C"), Code.BELOW_THRESHOLD)
    refused(s, 0, Discard(c("4C")), Code.OBLIGATION_UNMET)
    s, _ = apply(s, 0, lay("KS QS JS", "10H 10D 10C"))
    assert s.turn.take_met


def test_meld_required_an_open_player_meets_it_with_any_new_meld():
    s = take(opened(OPEN_HAND, discard_take="meld_required"))
    refused(s, 0, Discard(c("4C")), Code.OBLIGATION_UNMET)
    refused(s, 0, LayOff(1, cs("7C")), Code.TAKEN_CARD_RESTRICTED)
    s, _ = apply(s, 0, lay("5S 6S 7S"))
    assert s.turn.take_met
    s, _ = apply(s, 0, Discard(c("4C")))
    assert s.turn.seat == 1


def test_meld_required_the_card_may_leave_the_hand_in_the_meld_that_meets_it():
    s = take(opened(OPEN_HAND, discard_take="meld_required"))
    s, _ = apply(s, 0, lay("7H 7D 7C"))
    assert s.turn.take_met


def test_meld_required_a_lay_off_without_the_card_does_not_meet_it():
    s = take(opened("JC 5S 6S 7S 4C 2S", discard_take="meld_required"))
    s, _ = apply(s, 0, layoff(1, "JC"))
    assert not s.turn.take_met
    refused(s, 0, Discard(c("4C")), Code.OBLIGATION_UNMET)


# ------------------------------------------------------------------ discard_take = use_if_opening
def test_use_if_opening_a_take_obliges_nothing_and_is_final():
    s = take(closed(CLOSED_WITH_CARD, discard_take="use_if_opening"))
    assert s.turn.take_met and s.turn.take_final
    refused(s, 0, ReturnTake(), Code.TAKE_NOT_RETURNABLE)
    s, _ = apply(s, 0, Discard(c("4C")))  # no meld, no opening: fine
    assert s.turn.seat == 1 and not s.seats[0].opened


def test_use_if_opening_an_opening_this_turn_must_contain_the_taken_card():
    s = take(closed(CLOSED_BOTH, discard_take="use_if_opening"))
    refused(s, 0, lay("KS QS JS", "10H 10D 10C"), Code.TAKEN_CARD_NOT_IN_OPENING)
    s, _ = apply(s, 0, lay("KS QS JS", "10H 10D 10C", "7H 7D 7C"))
    assert s.seats[0].opened


def test_use_if_opening_an_open_player_melds_freely():
    s = take(opened(OPEN_HAND, discard_take="use_if_opening"))
    s, _ = apply(s, 0, lay("5S 6S 7S"))
    s, _ = apply(s, 0, Discard(c("4C")))
    assert s.turn.seat == 1


# ------------------------------------------------------------------ take_return = until_met
def test_until_met_a_return_puts_the_card_back_and_only_the_stock_may_be_drawn():
    s0 = closed(CLOSED_WITH_CARD)
    s = take(s0)
    s, events = apply(s, 0, ReturnTake())
    assert events == (TakeReturned(0, c("7C")),)
    assert s.pile == s0.pile and hand_of(s, 0) == hand_of(s0, 0)
    assert s.turn.phase == "draw" and s.turn.taken is None and s.turn.took
    refused(s, 0, TakeDiscard(), Code.TAKE_NOT_ALLOWED)
    refused(s, 0, ReturnTake(), Code.NO_ACTIVE_TAKE)
    s, _ = apply(s, 0, DrawStock())
    s, _ = apply(s, 0, Discard(c("4C")))  # a returned take imposes nothing
    assert s.turn.seat == 1


def test_until_met_moves_made_before_the_return_stand_and_count_as_laid_this_turn():
    s = take(opened(OPEN_HAND))
    s, events = apply(s, 0, lay("5S 6S 7S"))
    meld_id = events[0].melds[0].id
    s, _ = apply(s, 0, ReturnTake())
    assert s.meld(meld_id) is not None and meld_id in s.turn.laid
    assert s.pile[-1] == c("7C") and c("7C") not in hand_of(s, 0)
    s, _ = play(s, 0, DrawStock(), Discard(c("4C")))
    assert s.turn.seat == 1 and s.meld(meld_id).cards == cs("5S 6S 7S")


def test_until_met_an_opening_made_before_the_return_stands():
    s = take(closed(CLOSED_BOTH))
    s, _ = apply(s, 0, lay("KS QS JS", "10H 10D 10C"))
    s, _ = apply(s, 0, ReturnTake())
    assert s.seats[0].opened and s.seats[0].opening_total == 60
    assert s.turn.phase == "draw"


@pytest.mark.parametrize("policy, meld", [("meld_with_card", "7H 7D 7C"), ("meld_required", "5S 6S 7S")])
def test_until_met_once_the_obligation_is_met_the_take_is_final(policy, meld):
    s = take(opened(OPEN_HAND, discard_take=policy))
    s, _ = apply(s, 0, lay(meld))
    assert s.turn.take_final
    refused(s, 0, ReturnTake(), Code.TAKE_NOT_RETURNABLE)


@pytest.mark.parametrize(
    "position",
    [
        lambda: closed(CLOSED_WITH_CARD, discard_take="use_if_opening"),
        lambda: opened(OPEN_HAND, discard_take="open_required"),
    ],
    ids=["use_if_opening", "open_player_open_required"],
)
def test_until_met_a_take_with_no_obligation_is_final_at_once(position):
    s = take(position())
    assert s.turn.take_final
    refused(s, 0, ReturnTake(), Code.TAKE_NOT_RETURNABLE)


# ------------------------------------------------------------------ take_return = by_discard
@pytest.mark.parametrize("policy", ["meld_with_card", "open_required", "meld_required", "use_if_opening"])
def test_by_discard_discarding_the_taken_card_is_a_return(policy):
    s0 = opened(OPEN_HAND, take_return="by_discard", discard_take=policy)
    s = take(s0)
    s, events = apply(s, 0, Discard(c("7C")))
    assert events == (TakeReturned(0, c("7C")),)
    assert s.turn.seat == 0 and s.turn.phase == "draw" and s.pile == s0.pile
    assert hand_of(s, 0) == hand_of(s0, 0)
    refused(s, 0, TakeDiscard(), Code.TAKE_NOT_ALLOWED)
    s, _ = play(s, 0, DrawStock(), Discard(c("4C")))
    assert s.turn.seat == 1


def test_by_discard_the_return_is_possible_at_any_time_even_after_the_obligation_is_met():
    s = take(closed(CLOSED_BOTH, take_return="by_discard", discard_take="open_required"))
    s, _ = apply(s, 0, lay("KS QS JS", "10H 10D 10C"))
    assert s.turn.take_met
    s, events = apply(s, 0, Discard(c("7C")))
    assert events == (TakeReturned(0, c("7C")),)
    assert s.seats[0].opened and s.turn.phase == "draw"


# ------------------------------------------------------------------ take_return = never
def test_never_a_take_that_cannot_be_met_is_refused():
    s = closed("KS QS JS 7H 4C 9D 2S 5H", take_return="never")  # 7C makes no meld
    refused(s, 0, TakeDiscard(), Code.TAKE_CANNOT_BE_MET)


def test_never_under_meld_with_card_the_card_must_be_in_a_possible_opening():
    # an opening exists (60) but none holds 7C
    s = closed("KS QS JS 10H 10D 10C 7H 4C 2S", take_return="never")
    refused(s, 0, TakeDiscard(), Code.TAKE_CANNOT_BE_MET)


def test_never_a_take_that_can_be_met_is_accepted_final_and_met_only_in_the_opening():
    s = take(closed(CLOSED_BOTH, take_return="never"))
    assert s.turn.take_final and not s.turn.take_met
    refused(s, 0, ReturnTake(), Code.TAKE_NOT_RETURNABLE)
    refused(s, 0, lay("KS QS JS", "10H 10D 10C"), Code.TAKEN_CARD_NOT_IN_OPENING)
    s, _ = apply(s, 0, lay("KS QS JS", "7H 7D 7C"))
    assert s.turn.take_met
    s, _ = apply(s, 0, Discard(c("4C")))
    assert s.turn.seat == 1


def test_never_open_required_needs_some_opening_and_accepts_one_without_the_card():
    refused(closed("KS QS JS 7H 4C 9D 2S 5H", take_return="never", discard_take="open_required"),
            0, TakeDiscard(), Code.TAKE_CANNOT_BE_MET)
    s = take(closed("KS QS JS 10H 10D 10C 7H 4C 2S", take_return="never", discard_take="open_required"))
    s, _ = apply(s, 0, lay("KS QS JS", "10H 10D 10C"))
    assert s.turn.take_met
    s, _ = apply(s, 0, Discard(c("4C")))
    assert s.turn.seat == 1


def test_never_meld_required_an_open_player_needs_some_new_meld():
    refused(opened("2S 5H 9D KH 4C", take_return="never", discard_take="meld_required"),
            0, TakeDiscard(), Code.TAKE_CANNOT_BE_MET)
    s = take(opened("5S 6S 7S 9D 4C", take_return="never", discard_take="meld_required"))
    s, _ = apply(s, 0, lay("5S 6S 7S"))
    assert s.turn.take_met


def test_never_use_if_opening_checks_nothing_at_the_take():
    s = take(closed("KS 7H 4C 9D 2S 5H", take_return="never", discard_take="use_if_opening"))
    assert s.turn.taken == c("7C")
    s, _ = apply(s, 0, Discard(c("4C")))
    assert s.turn.seat == 1


def test_never_a_move_after_which_the_obligation_could_not_be_met_is_refused():
    # 7C can be melded with 7H 7D; laying 7D off, or melding it, would make that impossible
    s = take(opened("7H 7D 8D 9D 3D#2 5S 4C 2S", take_return="never", melds=[(1, "4D 5D#2 6D")]))
    s, _ = apply(s, 0, layoff(1, "3D#2"))  # a move that keeps the obligation possible is fine
    refused(s, 0, layoff(1, "7D"), Code.OBLIGATION_WOULD_FAIL)
    refused(s, 0, lay("7D 8D 9D"), Code.OBLIGATION_WOULD_FAIL)
    s, _ = apply(s, 0, lay("7H 7D 7C"))  # meeting it is fine
    s, _ = apply(s, 0, Discard(c("4C")))
    assert s.turn.seat == 1


def test_never_the_check_counts_the_going_out_rules():
    hand = "7H 7D"  # the only meld with 7C empties the hand
    refused(opened(hand, take_return="never"), 0, TakeDiscard(), Code.TAKE_CANNOT_BE_MET)
    s = take(opened(hand, take_return="never", going_out="meld_out_allowed"))
    s, _ = apply(s, 0, lay("7H 7D 7C"))
    assert s.over and s.result.winner == 0


@pytest.mark.parametrize("rule, ok", [("forbidden", False), ("allowed", True)])
def test_never_the_check_counts_the_first_turn_and_the_no_dead_end_rule(rule, ok):
    # the only opening with 7C leaves one card: a dead end on a first turn where going out is forbidden
    s = build(opts(take_return="never", out_on_first_turn=rule), ["KS QS JS 7H 7D 4C", OTHER],
              pile=PILE, first_turn=True)
    if not ok:
        refused(s, 0, TakeDiscard(), Code.TAKE_CANNOT_BE_MET)
        return
    s = take(s)
    s, _ = play(s, 0, lay("KS QS JS", "7H 7D 7C"), Discard(c("4C")))
    assert s.over and s.result.finish == "hand"


# ------------------------------------------------------------------ no dead ends
def test_no_dead_end_a_meld_may_not_leave_only_the_taken_card():
    s = take(opened("5S 6S 7S 2S", discard_take="use_if_opening"))
    s, _ = apply(s, 0, lay("5S 6S 7S"))  # leaves 2S and 7C: fine
    assert hand_of(s, 0) == tuple(sorted(cs("2S 7C")))
    s2 = take(opened("5S 6S 7S", discard_take="use_if_opening"))
    refused(s2, 0, lay("5S 6S 7S"), Code.DEAD_END)


def test_no_dead_end_a_lay_off_may_not_leave_only_the_taken_card():
    s = take(opened("JC QC", discard_take="use_if_opening"))
    refused(s, 0, layoff(1, "JC QC"), Code.DEAD_END)
    s, _ = apply(s, 0, layoff(1, "JC"))  # leaves QC and 7C
    assert len(hand_of(s, 0)) == 2


@pytest.mark.parametrize("rule", ["forbidden", "allowed"])
def test_no_dead_end_one_card_left_on_a_turn_where_going_out_is_forbidden(rule):
    s = build(opts(out_on_first_turn=rule), ["KS QS JS 7H 7D 7S", OTHER], pile=PILE,
              stock="4C", first_turn=True)
    s, _ = apply(s, 0, DrawStock())
    if rule == "forbidden":
        refused(s, 0, lay("KS QS JS", "7H 7D 7S"), Code.DEAD_END)
    else:
        s, _ = play(s, 0, lay("KS QS JS", "7H 7D 7S"), Discard(c("4C")))
        assert s.over


def test_no_dead_end_a_lay_off_leaving_one_card_on_a_first_turn_is_refused():
    s = build(opts(), ["KS QS JS 7H 7D 7S 10S 9S 4H", OTHER], pile=PILE, stock="8S", first_turn=True)
    s, _ = play(s, 0, DrawStock(), lay("KS QS JS", "7H 7D 7S"))  # opening: 4 cards left
    refused(s, 0, LayOff(s.turn.laid[0], cs("10S 9S 8S")), Code.DEAD_END)
    s, _ = apply(s, 0, LayOff(s.turn.laid[0], cs("10S 9S")))
    assert hand_of(s, 0) == tuple(sorted(cs("8S 4H")))
