"""docs/rules.md §9 — scoring a round: −30 for going out, +100 flat for an unopened
player, the cards left otherwise; a Hand multiplies every score once;
partnership team scores; every recorded field of a round result."""

from __future__ import annotations

import pytest

from hand_engine import Discard, DrawStock, RoundResult, SeatResult
from hand_sim.positions import build
from tests.rules_support import c, cs, lay, opts, play

B = "KS#2 4D JK"  # 10 + 4 + 15 = 29
C = "AS AH"  # 22
D = "2C 3C 9D KD"  # never opened: +100 whatever the cards


def go_out(o, hands, *, hand_finish: bool, opened=(), stock="4C"):
    """Seat 0 goes out this turn: with a Hand (fresh, 51 opening) or normally (already open)."""
    if hand_finish:
        hands = ["KS QS JS 7H 7D 7C", *hands]
        s = build(o, hands, opened=opened, stock=stock)
        assert s.turn.fresh
        s, _ = play(s, 0, DrawStock(), lay("KS QS JS", "7H 7D 7C"), Discard(c(stock)))
    else:
        hands = ["5S 6S 7S", *hands]
        s = build(o, hands, opened=[0, *opened], stock=stock)
        s, _ = play(s, 0, DrawStock(), lay("5S 6S 7S"), Discard(c(stock)))
    assert s.over and s.result.winner == 0
    return s.result


# ------------------------------------------------------------------ the Kout example (§14)
@pytest.mark.parametrize(
    "hand_finish, scores", [(False, [-30, 29, 22, 100]), (True, [-60, 58, 44, 200])],
    ids=["normal", "hand"],
)
def test_kout_scoring_example(hand_finish, scores):
    r = go_out(opts(), [B, C, D], hand_finish=hand_finish, opened=[1, 2])
    assert [line.score for line in r.seats] == scores
    assert r.finish == ("hand" if hand_finish else "normal")
    assert r.multiplier == (2 if hand_finish else 1)


# ------------------------------------------------------------------ individual play
@pytest.mark.parametrize("cards, value", [("2C", 2), ("JK#2 AD AC KH QH JH 10H 10C 10D 9H 9C 9D#2", 124)])
def test_an_unopened_player_scores_100_flat_whatever_the_cards(cards, value):
    r = go_out(opts(), [cards], hand_finish=False)
    line = r.seats[1]
    assert not line.opened and line.cards_value == value and line.score == 100


def test_an_opened_player_scores_the_value_of_the_cards_left():
    # A 11, joker 15, 10/J/Q/K 10, others face value
    r = go_out(opts(), ["AD JK#2 QH 10C 9D 2C"], hand_finish=False, opened=[1])
    assert r.seats[1].cards_value == 11 + 15 + 10 + 10 + 9 + 2
    assert r.seats[1].score == 57


def test_the_scoring_constants_are_options():
    o = opts(winner_bonus=-50, unopened_penalty=150, joker_in_hand=20)
    r = go_out(o, ["JK 2C", "9D"], hand_finish=False, opened=[1])
    assert [line.score for line in r.seats] == [-50, 22, 150]
    r = go_out(o, ["JK 2C", "9D"], hand_finish=True, opened=[1])
    assert [line.score for line in r.seats] == [-100, 44, 300]


def test_a_hand_multiplies_every_score_once_never_minus_120():
    r = go_out(opts(hand_multiplier=2), [B, D], hand_finish=True, opened=[1])
    assert r.seats[0].score == -60 and r.multiplier == 2


def test_every_seat_result_field_is_recorded():
    r = go_out(opts(), [B, D], hand_finish=False, opened=[1])
    assert isinstance(r, RoundResult) and r.team_scores == ()
    assert (r.finish, r.winner, r.multiplier) == ("normal", 0, 1)
    assert r.seats[0] == SeatResult(0, True, 51, (), 0, -30)
    assert r.seats[1] == SeatResult(1, True, 51, tuple(sorted(cs(B))), 29, 29)
    assert r.seats[2] == SeatResult(2, False, None, tuple(sorted(cs(D))), 2 + 3 + 9 + 10, 100)
    assert r.score_of(2) == 100


def test_the_recorded_opening_total_is_the_players_own():
    s = build(opts(), ["5S 6S 7S", B, D], opened={0: 51, 1: 64}, stock="4C")
    s, _ = play(s, 0, DrawStock(), lay("5S 6S 7S"), Discard(c("4C")))
    assert [line.opening_total for line in s.result.seats] == [51, 64, None]


# ------------------------------------------------------------------ partnership
P = ["2H 3D 6H 9H", "AS 8S 8H 8D", "2D 4D 9S QC"]  # seats 1, 2 (partner of 0), 3


@pytest.mark.parametrize("partner_opened", [False, True])
def test_partnership_the_partner_of_the_winner_scores_zero_even_if_unopened(partner_opened):
    opened = [1, 2] if partner_opened else [1]
    r = go_out(opts("partnership"), P, hand_finish=False, opened=opened)
    assert r.seats[0].score == -30 and r.seats[2].score == 0
    assert r.seats[2].cards_value == 11 + 8 + 8 + 8 and r.seats[2].opened is partner_opened
    assert r.seats[1].score == 2 + 3 + 6 + 9 and r.seats[3].score == 100
    assert r.team_scores == (-30, 20 + 100)


def test_partnership_a_hand_against_a_team_where_neither_opened_costs_400():
    """Kout: −60 for the winning team (never −120), +400 for the other."""
    r = go_out(opts("partnership"), P, hand_finish=True)
    assert [line.score for line in r.seats] == [-60, 200, 0, 200]
    assert r.team_scores == (-60, 400) and r.multiplier == 2 and r.finish == "hand"


def test_partnership_a_hand_doubles_an_opened_opponents_cards():
    r = go_out(opts("partnership"), P, hand_finish=True, opened=[1])
    assert r.team_scores == (-60, 2 * 20 + 200)
