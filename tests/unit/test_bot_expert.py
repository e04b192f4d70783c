"""The expert bot and what it knows: the public history from redacted events,
the belief over hidden cards, determinized search (hand_bot.history,
hand_bot.belief, hand_bot.expert)."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hand_bot.belief import Belief, related, visible
from hand_bot.expert import Budget, candidates, search
from hand_bot.history import public_history
from hand_bot.policy import choose_moves
from hand_engine import DrawStock, TakeDiscard, apply
from hand_engine import CardDiscarded, StockDrawn
from hand_engine import check_state
from hand_engine import determinize, perspective
from hand_sim.positions import build
from tests.scale_support import examples
from tests.rules_support import c, opts
from tests.bot_support import played, reshuffle_hidden, seen_by

#: a small search budget: tests stay quick and exactly reproducible (no CPU cap)
SMALL = Budget(rollouts=12, cpu_ms=None, draws=8)


# ------------------------------------------------------------------ history
@pytest.mark.parametrize("preset", ["hand", "eram-hand", "dananeer", "saudi-partnership"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_history_rebuilds_the_pile_and_knows_only_cards_still_held(preset: str, seed: int) -> None:
    state, log = played(preset, seed, 120)
    for seat in range(state.n):
        h = public_history(seen_by(log, seat))
        assert tuple(h.pile) == state.pile
        for card, holder in h.known.items():  # publicly known cards are really in that hand
            assert card in state.seats[holder].hand
        for s in range(state.n):
            assert h.seats[s].stock_draws == sum(isinstance(e, StockDrawn) and e.seat == s for e in log)


def test_a_take_is_known_until_the_card_is_shown_and_a_pass_is_remembered() -> None:
    s = build(opts("eram-hand"), ["KS QS 7H 7D 7C 4C 2S 9D 5H 3C", "2H 3C#2 8H 9H KD"], pile="9S",
              opened=[0])
    log = []
    s1, ev = apply(s, 0, TakeDiscard())  # open: ERAM takes freely, the card stays in hand
    log += ev
    h = public_history(log, n=2)
    assert h.known == {c("9S"): 0} and h.seats[0].taken == [c("9S")]
    s2 = build(opts(), ["KS QS 7H", "2H 3C#2 8H 9H KD"], pile="9S")
    _, ev = apply(s2, 0, DrawStock())
    h = public_history([CardDiscarded(1, c("9S")), *ev], n=2)  # seat 1 threw 9S, seat 0 drew
    assert h.seats[1].discarded == [c("9S")] and h.seats[0].passed == [c("9S")] and h.seats[0].stock_draws == 1


# ------------------------------------------------------------------ belief
@settings(max_examples=examples(25, 5), deadline=None)
@given(seed=st.integers(0, 10_000), moves=st.integers(0, 150), sample_seed=st.integers(0, 2**32),
       preset=st.sampled_from(["hand", "eram-hand", "dananeer", "saudi"]))
def test_sampled_positions_match_the_public_counts_and_never_move_a_visible_card(
        seed: int, moves: int, sample_seed: int, preset: str) -> None:
    state, log = played(preset, seed, moves)
    me = state.turn.seat
    root = determinize(perspective(state, me), seed)
    belief = Belief.of(root, me, public_history(seen_by(log, me)))
    sample = belief.sample(root, random.Random(sample_seed))
    check_state(sample)
    assert perspective(sample, me) == perspective(state, me)  # the same public position
    shown = visible(state, me)
    for s in range(state.n):
        assert len(sample.seats[s].hand) == len(state.seats[s].hand)
        if s != me:
            assert not set(sample.seats[s].hand) & shown
            assert belief.known[s] <= set(sample.seats[s].hand)  # known cards stay with their holder
    assert not set(sample.stock) & shown


def test_discards_and_passes_lower_the_weight_of_the_cards_they_would_meld_with() -> None:
    state, log = played("hand", 4, 100)
    me = state.turn.seat
    root = determinize(perspective(state, me), 1)
    h = public_history(seen_by(log, me))
    b = Belief.of(root, me, h)
    flat = Belief.of(root, me, None)
    other = (me + 1) % 4
    assert set(flat.weights[other].values()) == {1.0}
    thrown = h.seats[other].discarded[0]
    lowered = [x for x in b.unseen if related(x, thrown)]
    assert lowered and all(b.weights[other][x] < 1.0 for x in lowered)
    assert all(b.weights[other][x] == 1.0 for x in b.unseen if x >= 104)


# ------------------------------------------------------------------ expert
@pytest.mark.parametrize("preset", ["hand", "saudi-partnership", "eram-hand", "dananeer"])
def test_expert_decides_alike_in_positions_differing_only_in_hidden_cards(preset: str) -> None:
    state, log = played(preset, 3, 70)
    seat = state.turn.seat
    other = reshuffle_hidden(state, seat, 99)
    history = seen_by(log, seat)  # redacted: the same for both (nothing hidden in it)
    hidden = {x for i, s in enumerate(state.seats) if i != seat for x in s.hand} | set(state.stock)
    drawn = {e.card for e in history if isinstance(e, StockDrawn) and e.card is not None}
    assert not drawn & hidden
    p1, p2 = perspective(state, seat), perspective(other, seat)
    assert json.dumps(p1, sort_keys=True) == json.dumps(p2, sort_keys=True)
    for seed in (1, 2)[:examples(2, 1)]:
        assert choose_moves(p1, "expert", seed, history, budget=SMALL) == choose_moves(p2, "expert", seed, history,
                                                                          budget=SMALL)


def test_expert_replays_exactly_and_its_plan_is_legal_on_the_true_position() -> None:
    for seed in (5, 6, 7):
        state, log = played("saudi", seed, 60)
        seat = state.turn.seat
        p, h = perspective(state, seat), seen_by(log, seat)
        plan = choose_moves(p, "expert", 11, h, budget=SMALL)
        assert plan == choose_moves(json.loads(json.dumps(p)), "expert", 11, h, budget=SMALL)
        for action in plan:
            state, _ = apply(state, seat, action)  # a RuleViolation fails the test


def test_expert_weighs_the_other_draw_and_keeps_strong_without_a_clear_gain() -> None:
    s = build(opts(), ["KS QS 7H 7D 7C 4C 2S 9D 5H 3C", "2H 3C#2 8H 9H KD"], pile="JS")
    cands = candidates(s)
    assert cands[0][0] == TakeDiscard() and [DrawStock()] in cands
    res = search(s, 3, None, SMALL)
    assert res.samples >= 2 and res.plan in cands
    # taking JS opens at once; drawing instead leaves the seat closed: the take stays
    assert res.plan[0] == TakeDiscard()


def test_a_position_with_a_single_candidate_is_not_searched() -> None:
    s = build(opts(), ["KS QS 7H 7D 2C", "2H 3C#2 8H 9H KD"])  # an empty pile: only the stock
    res = search(s, 1, None, SMALL)
    assert (res.candidates, res.samples, res.plan) == (1, 0, [DrawStock()])


def test_expert_starts_from_its_own_planner_and_weighs_strong_and_middle_in_the_play_phase() -> None:
    from hand_bot.planner import Planner

    for seed in (3, 4, 5, 6):
        state, log = played("hand", seed, 50)
        while state.turn.phase != "play":
            state = apply(state, state.turn.seat, DrawStock())[0]
        seat = state.turn.seat
        h = public_history(seen_by(log, seat))
        cands = candidates(state, h, 8)
        assert cands[0] == Planner(state, "expert", h, 8).plan(state)
        for level in ("strong", "middle"):
            assert Planner(state, level).plan(state) in cands
