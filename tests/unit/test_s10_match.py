"""docs/rules.md §10 — the match: a fixed number of rounds, running totals (which
may go negative), dealer rotation, and the tie-break for the lowest total
(most_outs, playoff, shared), in individual and partnership play."""

from __future__ import annotations

from dataclasses import replace

import pytest

from hand_engine import (
    Code, RoundResult, RuleViolation, SeatResult, apply, next_auto_action, next_round,
    record_round, standings, start_match, start_round,
)
from hand_engine.match import running_totals
from tests.rules_support import opts


def play_out(state):
    """Play a round to its end with automatic turns (exhaustion under a small max_turns)."""
    while not state.over:
        state, _ = apply(state, state.turn.seat, next_auto_action(state))
    return state


def finish(match, scores, winner=None, kind=None):
    """Deal the next round and record it with the given per-seat scores."""
    state, _ = next_round(match)
    kind = kind or ("normal" if winner is not None else "exhausted")
    mult = 2 if kind == "hand" else 1
    lines = tuple(SeatResult(i, True, 51, (), max(x, 0), x) for i, x in enumerate(scores))
    teams = (scores[0] + scores[2], scores[1] + scores[3]) if match.options.partnership else ()
    return record_round(match, replace(state, result=RoundResult(kind, winner, mult, lines, teams)))


def totals(match):
    return [s.total for s in standings(match)]


# ------------------------------------------------------------------ rounds and dealers
@pytest.mark.parametrize("rounds", [1, 3, 5, 7, 9])
def test_a_match_has_the_fixed_number_of_rounds(rounds):
    m = start_match(opts(rounds=rounds, max_turns=1), 3, seed=2)
    for k in range(rounds):
        assert not m.over
        state, _ = next_round(m)
        assert state.round_no == k + 1
        m = record_round(m, play_out(state))
    assert m.over and len(m.results) == rounds
    with pytest.raises(RuleViolation) as info:
        next_round(m)
    assert info.value.code is Code.MATCH_OVER


def test_the_default_match_has_five_rounds():
    assert opts().rounds == 5


def test_round_one_dealer_comes_from_the_seed_then_the_dealer_moves_one_seat_each_round():
    o = opts(rounds=9, max_turns=1)
    m = start_match(o, 4, seed=77)
    first, _ = next_round(m)
    assert first.dealer == start_round(o, 4, seed=77)[0].dealer
    dealers = []
    while not m.over:
        state, _ = next_round(m)
        dealers.append(state.dealer)
        m = record_round(m, play_out(state))  # exhausted rounds count and move the dealer too
    assert all(r.finish == "exhausted" for r in m.results)
    assert dealers == [(first.dealer + k) % 4 for k in range(9)]
    assert m.dealers == tuple(dealers)


def test_void_rounds_count_as_rounds_and_the_dealer_moves_on():
    m = start_match(opts(rounds=3, max_turns=1, exhausted_round="void"), 2, seed=4)
    dealers = []
    while not m.over:
        state, _ = next_round(m)
        dealers.append(state.dealer)
        m = record_round(m, play_out(state))
    assert [r.finish for r in m.results] == ["void"] * 3
    assert dealers[1] == (dealers[0] + 1) % 2 and dealers[2] == dealers[0]


def test_an_unfinished_round_cannot_be_recorded():
    m = start_match(opts(), 2, seed=1)
    state, _ = next_round(m)
    with pytest.raises(RuleViolation) as info:
        record_round(m, state)
    assert info.value.code is Code.INVALID_ARGUMENT


def test_nothing_is_recorded_after_the_match_is_over():
    m = finish(start_match(opts(rounds=1), 2), [-30, 40], winner=0)
    assert m.over and m.winners == (0,)
    state, _ = start_round(opts(rounds=1), 2, seed=0)
    with pytest.raises(RuleViolation) as info:
        record_round(m, replace(state, result=m.results[0]))
    assert info.value.code is Code.MATCH_OVER


# ------------------------------------------------------------------ totals
def test_totals_accumulate_and_may_go_negative_lowest_wins():
    m = start_match(opts(rounds=3), 3)
    m = finish(m, [-30, 40, 100], winner=0)
    m = finish(m, [-60, 80, 200], winner=0, kind="hand")
    assert totals(m) == [-90, 120, 300] and not m.over
    m = finish(m, [15, -30, 100], winner=1)
    assert totals(m) == [-75, 90, 400]
    assert m.over and m.winners == (0,)
    assert running_totals(m) == [{0: -30, 1: 40, 2: 100}, {0: -90, 1: 120, 2: 300},
                                 {0: -75, 1: 90, 2: 400}]


def test_standings_count_outs_and_penalty_points():
    m = start_match(opts(rounds=5), 2)
    m = finish(m, [-30, 40], winner=0)
    m = finish(m, [-60, 80], winner=0, kind="hand")  # a Hand counts once
    m = finish(m, [100, 100])  # exhausted: nobody went out
    m = finish(m, [0, 0], kind="void")
    a, b = standings(m)
    assert (a.unit, a.total, a.outs, a.penalty_points) == (0, 10, 2, 100)
    assert (b.unit, b.total, b.outs, b.penalty_points) == (1, 220, 0, 220)


def test_partnership_totals_are_team_totals_and_a_partners_out_counts_for_the_team():
    m = start_match(opts("partnership", rounds=3), 4)
    m = finish(m, [20, 0, 30, -30], winner=3)
    m = finish(m, [0, 60, -30, 100], winner=2)
    m = finish(m, [5, 5, 5, 6])  # exhausted
    a, b = standings(m)
    assert (a.unit, a.total, a.outs) == (0, 30, 1) and (b.unit, b.total, b.outs) == (1, 141, 1)
    assert m.over and m.winners == (0,)


# ------------------------------------------------------------------ tie_break = most_outs
def test_most_outs_the_tied_player_with_more_outs_wins():
    m = start_match(opts(rounds=3, tie_break="most_outs"), 3)
    m = finish(m, [-30, 10, 5], winner=0)
    m = finish(m, [-30, 10, 5], winner=0)
    m = finish(m, [50, -30, 5], winner=1)
    assert totals(m) == [-10, -10, 15]
    assert m.over and m.winners == (0,)


def test_most_outs_then_fewer_penalty_points():
    # equal totals and one out each; seat 0's out was a Hand (-60) so it collected more penalties
    m = start_match(opts(rounds=3, tie_break="most_outs"), 2)
    m = finish(m, [-60, 200], winner=0, kind="hand")
    m = finish(m, [230, -30], winner=1)
    m = finish(m, [10, 10])  # exhausted
    a, b = standings(m)
    assert a.total == b.total == 180 and a.outs == b.outs == 1
    assert (a.penalty_points, b.penalty_points) == (240, 210)
    assert m.over and m.winners == (1,)


def test_most_outs_still_tied_is_shared():
    m = start_match(opts(rounds=3, tie_break="most_outs"), 3)
    m = finish(m, [-30, 20, 70], winner=0)
    m = finish(m, [20, -30, 70], winner=1)
    m = finish(m, [10, 10, 10])  # exhausted
    a, b, _ = standings(m)
    assert (a.total, a.outs, a.penalty_points) == (b.total, b.outs, b.penalty_points) == (0, 1, 30)
    assert m.over and m.winners == (0, 1)


def test_most_outs_exhausted_and_void_rounds_give_no_out():
    m = start_match(opts(rounds=3, tie_break="most_outs"), 2)
    m = finish(m, [-30, 10], winner=0)
    m = finish(m, [40, 0])  # exhausted
    m = finish(m, [0, 0], kind="void")
    assert totals(m) == [10, 10]
    assert m.over and m.winners == (0,)


def test_most_outs_in_partnership_counts_either_partners_outs():
    m = start_match(opts("partnership", rounds=3, tie_break="most_outs"), 4)
    m = finish(m, [-30, 20, 0, 20], winner=0)
    m = finish(m, [0, 20, -30, 20], winner=2)  # team 0's second out, by the other partner
    m = finish(m, [60, -30, 50, 0], winner=1)
    a, b = standings(m)
    assert (a.total, b.total) == (50, 50) and (a.outs, b.outs) == (2, 1)
    assert m.over and m.winners == (0,)


# ------------------------------------------------------------------ tie_break = playoff
def test_playoff_a_tie_for_the_lowest_total_sends_only_the_tied_to_a_deciding_round():
    m = start_match(opts(rounds=1, tie_break="playoff"), 3, seed=9)
    m = finish(m, [10, 10, 50])
    assert not m.over and m.contenders == (0, 1) and m.playoff
    state, _ = next_round(m)
    assert state.round_no == 2 and state.dealer == (m.dealers[-1] + 1) % 3  # rotation goes on
    # every seat plays and scores; seat 2 has the lowest total afterwards but does not contend
    m = finish(m, [25, 20, -60], winner=2, kind="hand")
    assert totals(m) == [35, 30, -10]
    assert m.over and m.winners == (1,)


def test_playoff_is_repeated_until_the_tie_is_broken():
    m = start_match(opts(rounds=1, tie_break="playoff"), 3)
    m = finish(m, [10, 10, 10])
    assert m.contenders == (0, 1, 2)
    m = finish(m, [5, 5, 20])  # seat 2 drops out; 0 and 1 still tied
    assert not m.over and m.contenders == (0, 1)
    m = finish(m, [20, 20, -30], winner=2)  # contenders still tied
    assert not m.over and m.contenders == (0, 1)
    m = finish(m, [7, -30, 30], winner=1)
    assert m.over and m.winners == (1,) and len(m.results) == 4


def test_playoff_is_not_played_without_a_tie():
    m = start_match(opts(rounds=1, tie_break="playoff"), 2)
    m = finish(m, [-30, 10], winner=0)
    assert m.over and m.winners == (0,) and m.contenders == ()


def test_playoff_between_teams():
    m = start_match(opts("partnership", rounds=1, tie_break="playoff"), 4)
    m = finish(m, [10, 10, 20, 20])
    assert not m.over and m.contenders == (0, 1)
    m = finish(m, [-30, 10, 0, 10], winner=0)
    assert m.over and m.winners == (0,)


# ------------------------------------------------------------------ tie_break = shared
def test_shared_the_tied_players_share_the_win():
    m = start_match(opts(rounds=3, tie_break="shared"), 3)
    m = finish(m, [-30, 20, 70], winner=0)
    m = finish(m, [20, -30, 70], winner=1)
    m = finish(m, [0, 0, 0], kind="void")
    assert totals(m) == [-10, -10, 140] and m.over and m.winners == (0, 1)
    m = start_match(opts(rounds=1, tie_break="shared"), 3)
    m = finish(m, [30, 30, 30])
    assert m.over and m.winners == (0, 1, 2)
