"""Duplicate scoring (decision 0029): matchpoints per deal and seat position, ties worth
1/2, the raw total as the tie-break — against sums worked out by hand."""

from __future__ import annotations

import random

from hand_ledger.tournament_scoring import Result, compare, matchpoints, standings


def test_one_matchpoint_per_beaten_score_and_a_half_per_tie() -> None:
    assert matchpoints(10, [20, 10, 5]) == 1.5  # beats 20, ties 10, loses to 5
    assert matchpoints(-51, [0, 0]) == 2.0  # lower penalty points are better
    assert matchpoints(7, []) == 0.0


def test_three_tables_two_deals_by_hand() -> None:
    # deal 1, seat 0: tables score 10, 30, 10 -> 1.5, 0, 1.5; seat 1: 50, 20, 40 -> 0, 2, 1
    # deal 2, seat 0: 0, 0, 0 -> 1 each; seat 1: -51, 100, 100 -> 2, 0.5, 0.5
    scores = {(1, 1, 0): 10, (2, 1, 0): 30, (3, 1, 0): 10, (1, 1, 1): 50, (2, 1, 1): 20, (3, 1, 1): 40,
              (1, 2, 0): 0, (2, 2, 0): 0, (3, 2, 0): 0, (1, 2, 1): -51, (2, 2, 1): 100, (3, 2, 1): 100}
    compared = compare(Result(t, d, s, v) for (t, d, s), v in scores.items())
    assert [x.matchpoints for x in compared[(1, 0)]] == [1.5, 0.0, 1.5]
    assert [x.matchpoints for x in compared[(1, 1)]] == [0.0, 2.0, 1.0]
    assert [x.matchpoints for x in compared[(2, 0)]] == [1.0, 1.0, 1.0]
    assert [x.matchpoints for x in compared[(2, 1)]] == [2.0, 0.5, 0.5]
    lines = {(s.table, s.seat): (s.place, s.matchpoints, s.raw_total) for s in standings(compared)}
    # table 1 seat 0: 2.5 mp, raw 10; table 3 seat 0: 2.5 mp, raw 10 -> the same place
    # table 2 seat 1: 2.5 mp, raw 120; table 1 seat 1: 2 mp, raw -1; table 3 seat 1: 1.5, raw 140
    assert lines == {(1, 0): (1, 2.5, 10), (3, 0): (1, 2.5, 10), (2, 1): (3, 2.5, 120),
                     (1, 1): (4, 2.0, -1), (3, 1): (5, 1.5, 140), (2, 0): (6, 1.0, 30)}


def test_the_raw_total_breaks_a_tie_in_matchpoints_lower_first() -> None:
    compared = compare([Result(1, 1, 0, 5), Result(2, 1, 0, 5), Result(1, 2, 0, 0), Result(2, 2, 0, 0),
                        Result(1, 3, 0, 1), Result(2, 3, 0, 9), Result(1, 4, 0, 7), Result(2, 4, 0, 2)])
    lines = standings(compared)
    assert [(s.table, s.place, s.matchpoints, s.raw_total) for s in lines] == [(1, 1, 2.0, 13), (2, 2, 2.0, 16)]


def test_matchpoints_of_every_group_add_up_to_the_pairs_it_holds() -> None:
    """Each pair of tables shares exactly 1 matchpoint: n tables hold n(n-1)/2."""
    rng = random.Random(5)
    results = [Result(t, d, s, rng.choice([0, 10, 20, -51])) for t in range(1, 6) for d in (1, 2) for s in (0, 1, 2)]
    for scored in compare(results).values():
        assert sum(x.matchpoints for x in scored) == 5 * 4 / 2
