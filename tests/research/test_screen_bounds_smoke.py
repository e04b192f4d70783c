"""Smoke test of research/botlab/screen_bounds.py: the cheats go through the bots' seams
and leave the bots' own code and tables as they are, the known-hands belief deals exactly
the true hands, and one deal of each variant runs (figures are never asserted:
docs/decisions/0014)."""

from __future__ import annotations

import random

from hand_bot import arena, hand_eval, planner
from hand_engine import determinize, perspective, resolve, start_round
from research.botlab import screen_bounds as bounds
from research.botlab import take_model as tm


def test_the_cheats_go_through_the_seams_and_leave_the_bots_as_they_are() -> None:
    before = (arena.perspective, arena.choose_moves, hand_eval.feeds, planner.Belief, dict(planner.STYLES))
    state, _ = start_round(resolve("hand"), 4, seed=7)
    view = bounds._keep_true(state, state.turn.seat)  # the arena's view_of keeps the true position
    assert bounds._choose(view, "known-takes", 1) and "known-takes" in bounds.STYLES
    assert (arena.perspective, arena.choose_moves, hand_eval.feeds, planner.Belief, dict(planner.STYLES)) == before
    assert "known-takes" not in planner.STYLES


def test_known_hands_deals_the_true_hands_and_honest_does_not() -> None:
    state, _ = start_round(resolve("hand"), 4, seed=7)
    seat = state.turn.seat
    bounds._keep_true(state, seat)  # the arena keeps the true position at each request
    sim = determinize(perspective(state, seat), 1)
    bounds._NOW["active"] = "known-hands"
    hands, stock = bounds._belief(sim, seat).deal(random.Random(0))
    bounds._NOW["active"] = "honest"
    guessed, _ = bounds._belief(sim, seat).deal(random.Random(0))
    bounds._NOW["active"] = None
    for s, hand in hands.items():
        assert set(hand) == set(state.seats[s].hand)
    assert sorted(stock) == sorted(state.stock)
    assert any(set(h) != set(state.seats[s].hand) for s, h in guessed.items())


def test_one_deal_of_each_variant_is_paired_against_honest() -> None:
    rows = bounds.main(["--deals", "1", "--workers", "0", "--samples", "4"])
    assert [r["variant"] for r in rows] == list(bounds.VARIANTS)
    assert rows[0]["paired_vs_honest"] == [0.0, 0.0]
    assert all(0 <= r["won"][0] <= 1 for r in rows)


def test_noisy_takes_rank_at_the_auc_asked_and_are_calibrated() -> None:
    rng = random.Random(3)
    ys = [1.0 if rng.random() < 0.13 else 0.0 for _ in range(6000)]
    for auc in (0.75, 0.95):
        ps = [bounds._noisy(y, auc, 0.13, (i,)) for i, y in enumerate(ys)]
        assert abs(tm.auc(ys, ps) - auc) < 0.03
        assert abs(sum(ps) / len(ps) - sum(ys) / len(ys)) < 0.02  # chances, not scores
    assert bounds._noisy(1.0, 0.85, 0.13, (1,)) == bounds._noisy(1.0, 0.85, 0.13, (1,))  # replays
