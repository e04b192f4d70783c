"""Smoke test of bench/screen_bounds.py: the cheats read the arena's true position only
while installed, the known-hands belief deals exactly the true hands, and one deal of
each variant runs (figures are never asserted: docs/decisions/0014)."""

from __future__ import annotations

import random

from tests.bench_support import load_bench
from hand_bot import arena, hand_eval, planner
from hand_engine import determinize, perspective, resolve, start_round


def test_the_cheats_are_installed_only_inside_their_context() -> None:
    bounds = load_bench("screen_bounds")
    before = (arena.perspective, arena.choose_moves, hand_eval.feeds, planner.Belief)
    with bounds.cheats():
        assert arena.perspective is not before[0] and "known-takes" in planner.STYLES
    assert (arena.perspective, arena.choose_moves, hand_eval.feeds, planner.Belief) == before
    assert "known-takes" not in planner.STYLES


def test_known_hands_deals_the_true_hands_and_honest_does_not() -> None:
    bounds = load_bench("screen_bounds")
    state, _ = start_round(resolve("hand"), 4, seed=7)
    seat = state.turn.seat
    with bounds.cheats():
        arena.perspective(state, seat)  # the arena keeps the true position at each request
        sim = determinize(perspective(state, seat), 1)
        bounds._NOW["active"] = "known-hands"
        hands, stock = planner.Belief.of(sim, seat).deal(random.Random(0))
        bounds._NOW["active"] = "honest"
        guessed, _ = planner.Belief.of(sim, seat).deal(random.Random(0))
        bounds._NOW["active"] = None
    for s, hand in hands.items():
        assert set(hand) == set(state.seats[s].hand)
    assert sorted(stock) == sorted(state.stock)
    assert any(set(h) != set(state.seats[s].hand) for s, h in guessed.items())


def test_one_deal_of_each_variant_is_paired_against_honest() -> None:
    bounds = load_bench("screen_bounds")
    rows = bounds.main(["--deals", "1", "--workers", "0", "--samples", "4"])
    assert [r["variant"] for r in rows] == list(bounds.VARIANTS)
    assert rows[0]["paired_vs_honest"] == [0.0, 0.0]
    assert all(0 <= r["won"][0] <= 1 for r in rows)


def test_noisy_takes_rank_at_the_auc_asked_and_are_calibrated() -> None:
    bounds = load_bench("screen_bounds")
    tm = load_bench("take_model")
    rng = random.Random(3)
    ys = [1.0 if rng.random() < 0.13 else 0.0 for _ in range(6000)]
    for auc in (0.75, 0.95):
        ps = [bounds._noisy(y, auc, 0.13, (i,)) for i, y in enumerate(ys)]
        assert abs(tm.auc(ys, ps) - auc) < 0.03
        assert abs(sum(ps) / len(ps) - sum(ys) / len(ys)) < 0.02  # chances, not scores
    assert bounds._noisy(1.0, 0.85, 0.13, (1,)) == bounds._noisy(1.0, 0.85, 0.13, (1,))  # replays
