"""bench/bots_duplicate.py: the rounds split by the sides' unopened seats."""

from __future__ import annotations

from tests.bench_support import load_bench

duplicate = load_bench("bots_duplicate")
one_deal, openings = duplicate.one_deal, duplicate.openings


def test_openings_splits_rounds_by_which_side_has_fewer_unopened_seats() -> None:
    deals = [{"won": [1.0, 0.0], "fewer_closed": [1, 0]},
             {"won": [0.0, 0.5], "fewer_closed": [-1, 0]}]
    got = openings(deals)
    assert got == {"fewer": 0.25, "more": 0.25, "won_equal": 0.25, "won_differ": 0.5}


def test_openings_of_rounds_without_the_split_is_empty() -> None:
    assert openings([{"won": [1.0, 0.0]}]) == {}


def test_a_deal_records_for_each_round_which_side_had_fewer_unopened_seats() -> None:
    deal = one_deal(("hand", "middle", "strong", 3, None))
    assert len(deal["fewer_closed"]) == 2 and set(deal["fewer_closed"]) <= {-1, 0, 1}
