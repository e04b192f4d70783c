"""docs/rules.md §5 — opening: one atomic submission, the threshold, the recorded
opening total (turn / submission), fixed and escalating thresholds, and
partnership opening by player or by team."""

from __future__ import annotations

import pytest

from hand_engine import (
    Code, Discard, DrawStock, RetrieveJoker, TakeDiscard, apply, next_round, record_round,
    start_match, threshold,
)
from hand_engine.events import MeldsLaid
from hand_sim.positions import build
from tests.rules_support import c, cs, hand_of, lay, layoff, opts, play, refused

OTHER = "2H 3D 6H 9H JD"


def pass_turn(s, seat):
    """Draw from the stock and discard the drawn card."""
    s, _ = apply(s, seat, DrawStock())
    s, _ = apply(s, seat, Discard(s.turn.drawn))
    return s


def drawn(s, seat=0):
    s, _ = apply(s, seat, DrawStock())
    return s


# ------------------------------------------------------------------ worked examples (§14)
def test_kout_example_three_spade_faces_and_three_sevens_open_with_51():
    s = drawn(build(opts(), ["KS QS JS 7H 7D 7C 4C 2S", OTHER]))
    s, events = apply(s, 0, lay("KS QS JS", "7H 7D 7C"))
    (ev,) = events
    assert isinstance(ev, MeldsLaid) and ev.opening and ev.threshold == 51
    assert [m.value for m in ev.melds] == [30, 21]
    assert s.seats[0].opened and s.seats[0].opening_total == 51


def test_dananeer_example_three_kings_and_9_10_J_of_clubs_open_with_59():
    s = drawn(build(opts("dananeer"), ["KS KH KD 9C 10C JC 4D 2S", OTHER]))
    s, _ = apply(s, 0, lay("KS KH KD", "9C 10C JC"))
    assert s.seats[0].opened and s.seats[0].opening_total == 59


# ------------------------------------------------------------------ one atomic submission
def test_a_submission_one_point_short_is_refused_and_the_player_stays_closed():
    s = drawn(build(opts(), ["KS QS JS 2H 3H 4H 5H 6H 7H 4C", "2D 3D 6D 9D JD"]))
    err = refused(s, 0, lay("KS QS JS", "2H 3H 4H 5H 6H"), Code.BELOW_THRESHOLD)
    assert err.params == {"total": 50, "threshold": 51}
    s, _ = apply(s, 0, lay("KS QS JS", "2H 3H 4H 5H 6H 7H"))  # 57
    assert s.seats[0].opened


def test_one_illegal_meld_refuses_the_whole_opening():
    s = drawn(build(opts(), ["KS QS JS 7H 7D 7C 2S 4D 9C", OTHER]))
    refused(s, 0, lay("KS QS JS", "7H 7D 7C", "2S 4D 9C"), Code.INVALID_MELD)
    assert not s.seats[0].opened and s.melds == ()


def test_melds_laid_one_at_a_time_do_not_add_up_to_an_opening():
    """Decision 0107: the threshold is met by one submission; a lone short meld changes nothing."""
    s = drawn(build(opts(), ["KS QS JS 7H 7D 7C 4C 2S", OTHER]))
    refused(s, 0, lay("KS QS JS"), Code.BELOW_THRESHOLD)


def test_before_opening_a_player_may_not_lay_off_or_retrieve_a_joker():
    s = drawn(build(opts(), ["10C 7D 5S 4C 2S", OTHER], melds=[(1, "JC QC KC"), (1, "6D JK 8D")],
                    opened=[1]))
    refused(s, 0, layoff(1, "10C"), Code.NOT_OPEN)
    refused(s, 0, RetrieveJoker(2, c("JK"), cs("7D")), Code.NOT_OPEN)


def test_lay_offs_never_count_toward_the_opening_total():
    s = drawn(build(opts(), ["KS QS JS 7H 7D 7C 10S 4C 2S", OTHER]))
    s, _ = play(s, 0, lay("KS QS JS", "7H 7D 7C"), layoff(1, "10S"))
    assert s.meld(1).value == 40
    assert s.seats[0].opening_total == 51 and s.last_opening_total == 51


# ------------------------------------------------------------------ opening_total
HAND_TOTALS = "KS QS JS 7H 7D 7C 4S 5S 6S 10S 9D 9C 9S 2D 3H"


@pytest.mark.parametrize("rule, after_turn", [("turn", 66), ("submission", 51)])
def test_the_recorded_opening_total_by_option(rule, after_turn):
    """turn: every new meld of the opening turn, at its value when laid; submission: the opening
    alone. Lay-offs never count, nor melds of later turns."""
    s = drawn(build(opts(opening_total=rule), [HAND_TOTALS, OTHER]))
    s, _ = apply(s, 0, lay("KS QS JS", "7H 7D 7C"))
    assert s.seats[0].opening_total == 51
    s, _ = apply(s, 0, layoff(1, "10S"))  # a lay-off: never counted
    assert s.seats[0].opening_total == 51 and s.meld(1).value == 40
    s, _ = apply(s, 0, lay("4S 5S 6S"))  # 15, same turn
    assert s.seats[0].opening_total == after_turn and s.last_opening_total == after_turn
    s, _ = apply(s, 0, Discard(c("2D")))
    s = pass_turn(s, 1)
    s = drawn(s)
    s, _ = apply(s, 0, lay("9D 9C 9S"))  # a later turn: never counted
    assert s.seats[0].opening_total == after_turn


# ------------------------------------------------------------------ fixed / escalating
THREE = [
    "KS QS JS 7H 7D 7C 4C 2S",  # 51
    "KH QH JH 10H 10D 10C 3C 2D",  # 60
    "KD QD JD 10D#2 10S 10C#2 10H#2 3S 5C",  # 60 without 10D#2, 70 with it
]


def open_in_turn(s, seat, *melds):
    s = drawn(s, seat)
    s, _ = apply(s, seat, lay(*melds))
    return apply(s, seat, Discard(hand_of(s, seat)[0]))[0]


def test_fixed_threshold_is_the_same_for_everyone_all_round():
    s = build(opts(opening="fixed"), THREE)
    s = open_in_turn(s, 0, "KS QS JS", "7H 7D 7C")
    assert threshold(s) == 51
    s = open_in_turn(s, 1, "KH QH JH", "10H 10D 10C")
    assert s.seats[1].opening_total == 60 and threshold(s) == 51
    s = drawn(s, 2)
    s, _ = apply(s, 2, lay("KD QD JD", "10S 10C#2 10H#2"))
    assert s.seats[2].opened


def test_escalating_kout_example_51_then_60_then_the_third_opener_needs_61():
    s = build(opts(opening="escalating"), THREE)
    assert threshold(s) == 51
    s = open_in_turn(s, 0, "KS QS JS", "7H 7D 7C")
    assert threshold(s) == 52
    s = open_in_turn(s, 1, "KH QH JH", "10H 10D 10C")
    assert threshold(s) == 61
    s = drawn(s, 2)
    err = refused(s, 2, lay("KD QD JD", "10S 10C#2 10H#2"), Code.BELOW_THRESHOLD)
    assert err.params == {"total": 60, "threshold": 61}
    s, events = apply(s, 2, lay("10D#2 JD QD KD", "10S 10C#2 10H#2"))
    assert events[0].threshold == 61 and s.seats[2].opening_total == 70 and threshold(s) == 71


def test_escalating_uses_the_most_recent_recorded_total():
    s = build(opts(opening="escalating", opening_total="turn"),
              ["KS QS JS 7H 7D 7C 3S 4S 5S 2H 9C", "KH QH JH 10H 10D 10C 3C 2D"])
    s = drawn(s)
    s, _ = play(s, 0, lay("KS QS JS", "7H 7D 7C"), lay("3S 4S 5S"))  # 51 + 12 = 63
    assert threshold(s) == 64
    s, _ = apply(s, 0, Discard(c("2H")))
    s = drawn(s, 1)
    refused(s, 1, lay("KH QH JH", "10H 10D 10C"), Code.BELOW_THRESHOLD)


def test_escalating_resets_each_round_a_new_round_starts_at_the_base_threshold():
    o = opts(opening="escalating")
    match = start_match(o, 2, seed=3)
    first, _ = next_round(match)
    # the round's end: seat 0 opened with 70 and goes out now
    end = build(o, ["4C", "KH QH JH 10H 10D 10C 3C 2D"], opened={0: 70}, phase="play",
                dealer=first.dealer)
    assert threshold(end) == 71
    end, _ = apply(end, 0, Discard(c("4C")))
    assert end.over
    match = record_round(match, end)
    second, _ = next_round(match)
    assert second.round_no == 2 and second.last_opening_total is None and threshold(second) == 51


# ------------------------------------------------------------------ partnership
P_HANDS = [
    "KS QS JS 7H 7D 7C 4C 2S",  # seat 0: opens 51
    "2H 3D 6H 5C 4H AD",  # seat 1
    "8S 8H 8D 3S 4S 5S 10S 2C",  # seat 2, partner of seat 0: 8s (24), 3-4-5S (12), 10S fits seat 0's run
    "2D 4D 9D QC KC 6C",  # seat 3
]


def partnership(rule, hands=P_HANDS, **o):
    """Seat 0 opens 51 and discards, seat 1 passes: seat 2 (seat 0's partner) to move."""
    s = build(opts("partnership", partnership_opening=rule, **o), hands)
    s = open_in_turn(s, 0, "KS QS JS", "7H 7D 7C")
    return pass_turn(s, 1)


def test_partnership_opening_player_each_player_must_open_personally():
    s = partnership("player")
    assert s.seats[0].opened and not s.seats[2].opened
    s = drawn(s, 2)
    refused(s, 2, lay("8S 8H 8D"), Code.BELOW_THRESHOLD)
    refused(s, 2, layoff(1, "10S"), Code.NOT_OPEN)


def test_partnership_opening_team_the_partner_is_open_at_once_and_melds_without_threshold():
    s = partnership("team")
    assert s.seats[2].opened and s.seats[2].opening_total == 51
    s = drawn(s, 2)
    s, events = apply(s, 2, lay("8S 8H 8D"))  # 24 points: no threshold applies
    assert not events[0].opening and events[0].threshold is None
    s, _ = play(s, 2, lay("3S 4S 5S"), layoff(1, "10S"))
    assert s.seats[2].opening_total == 51 and s.seats[0].opening_total == 51


def test_partnership_opening_team_the_partner_may_retrieve_a_joker():
    hands = list(P_HANDS)
    hands[2] = "7S 8H 8D 3S 4S 2C"
    s = build(opts("partnership", partnership_opening="team"), hands, melds=[(3, "6S JK 8S")])
    s = open_in_turn(s, 0, "KS QS JS", "7H 7D 7C")
    s = pass_turn(s, 1)
    s = drawn(s, 2)
    s, _ = apply(s, 2, RetrieveJoker(1, c("JK"), cs("7S")))
    assert c("JK") in hand_of(s, 2)


@pytest.mark.parametrize("rule, final", [("team", True), ("player", False)])
def test_partnership_opening_team_the_partner_takes_as_an_open_player(rule, final):
    s = partnership(rule, discard_take="open_required")
    s, _ = apply(s, 2, TakeDiscard())  # the top is seat 1's discard
    assert s.turn.take_final is final and s.turn.take_met is final


def test_partnership_opening_team_escalating_records_one_total_per_team():
    s = partnership("team", opening="escalating")
    assert threshold(s) == 52
    s = drawn(s, 2)
    s, _ = play(s, 2, lay("8S 8H 8D"), Discard(c("2C")))
    assert threshold(s) == 52
    assert s.seats[0].opening_total == s.seats[2].opening_total == 51


def test_partnership_escalating_every_opener_counts():
    hands = list(P_HANDS)
    hands[2] = "KD QD JD 10S 10C 10D 9H 3S"
    s = partnership("player", hands, opening="escalating")
    s = drawn(s, 2)
    refused(s, 2, lay("KD QD JD"), Code.BELOW_THRESHOLD)
    s, _ = apply(s, 2, lay("KD QD JD", "10S 10C 10D"))
    assert s.seats[2].opening_total == 60 and threshold(s) == 61


def test_partnership_opening_team_the_partner_may_still_finish_with_a_hand():
    """ERAM: the Hand has no threshold; a partner who laid nothing yet may go out at once."""
    hands = list(P_HANDS)
    hands[2] = "8S 8H 8D 3S 4S 5S"
    s = partnership("team", hands)
    s = drawn(s, 2)
    s, _ = play(s, 2, lay("8S 8H 8D", "3S 4S 5S"), Discard(s.turn.drawn))
    assert s.over and s.result.finish == "hand" and s.result.winner == 2


@pytest.mark.parametrize("rule, counted", [("team", True), ("player", False)])
def test_partnership_opening_scoring_counts_the_partner_as_opened_only_under_team(rule, counted):
    hands = ["KS QS JS 7H 7D 7C 4C 2S", "5C 5D 5H", "8S 8H 8D 9S 9H AC", "2D 4D 9D QC KC 6C"]
    s = build(opts("partnership", partnership_opening=rule), hands, opened={1: 60})
    s = open_in_turn(s, 0, "KS QS JS", "7H 7D 7C")
    s = drawn(s, 1)
    s, _ = play(s, 1, lay("5C 5D 5H"), Discard(s.turn.drawn))
    r = s.result
    assert r.winner == 1 and r.finish == "normal"
    line = r.seats[2]
    assert line.cards_value == 8 + 8 + 8 + 9 + 9 + 11
    assert line.opened is counted
    assert line.score == (53 if counted else 100)
    assert r.team_scores == (r.seats[0].score + line.score, -30)
