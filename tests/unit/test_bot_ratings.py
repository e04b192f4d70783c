"""bench/bot_ratings.py: the levels' ratings through the ledger's code, in round order and
bootstrapped over resamples of the rounds."""

from __future__ import annotations

import random

from tests.bench_support import load_bench

LEVELS = ("a", "b", "c", "d", "e")


def load():
    return load_bench("bot_ratings")


def noisy_rounds(n: int, edge: float, seed: int) -> list[dict]:
    """Four of five levels a round; level ``a`` scores ``edge`` less on average, the rest alike."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        levels = [lv for k, lv in enumerate(LEVELS) if k != i % 5]
        rng.shuffle(levels)
        out.append({"levels": levels,
                    "scores": [round(rng.gauss(-edge if lv == "a" else 0.0, 40)) for lv in levels]})
    return out


def test_round_order_moves_the_chronological_rating_and_the_bootstrap_is_the_same_for_every_order() -> None:
    br = load()
    rounds = noisy_rounds(600, 0.0, 1)
    late_first = rounds[300:] + rounds[:300]
    chrono = [br.in_order(rs, LEVELS)["a"].mu for rs in (rounds, late_first)]
    assert abs(chrono[0] - chrono[1]) > 0.05  # the same rounds, another order, another rating
    boot = [br.ratings(rs, LEVELS, samples=20)["a"]["median"][0] for rs in (rounds, late_first)]
    # resampled from the same multiset of rounds with the same seed: order does not matter
    again = br.ratings(sorted(rounds, key=repr), LEVELS, samples=20)["a"]["median"][0]
    assert boot[0] == boot[1] == again


def test_a_level_that_scores_less_rates_first_with_an_interval_around_its_median() -> None:
    br = load()
    r = br.ratings(noisy_rounds(600, 30.0, 2), LEVELS, samples=30)
    medians = {lv: r[lv]["median"][2] for lv in LEVELS}
    assert max(medians, key=medians.get) == "a"
    for lv in LEVELS:
        lo, hi = r[lv]["ordinal_ci"]
        assert lo <= medians[lv] <= hi
        assert r[lv]["median"][1] > 0  # sigma


def test_no_rounds_leave_every_level_at_the_prior() -> None:
    br = load()
    r = br.ratings([], LEVELS)
    assert all(r[lv]["median"] == r[lv]["chronological"] == [br.PRIOR.mu, br.PRIOR.sigma, br.PRIOR.ordinal]
               for lv in LEVELS)
