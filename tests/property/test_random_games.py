"""Property tests: random legal games of every preset keep docs/rules.md §13's invariants.

The number of rounds per preset is ``HAND_PROPERTY_ROUNDS`` (default 12 in
``make test``, 2 in ``make test-fast``; ``make soak`` plays thousands).
"""

from __future__ import annotations

import os
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hand_engine import (
    PRESETS, RuleViolation, apply, dumps, loads, random_step, record_to_dict, replay_record, resolve,
    start_round,
)
from hand_engine.randplay import proposals

from tests.scale_support import examples

from .invariants import check_all

ROUNDS = int(os.environ.get("HAND_PROPERTY_ROUNDS", examples(12, 2)))


def play_checked(preset: str, seed: int, n: int) -> None:
    options = resolve(preset)
    state, events = start_round(options, n, seed=seed)
    first = state
    check_all(state, events)
    rng = random.Random(seed)
    moves, all_events = [], list(events)
    while state.result is None:
        # a refused move changes nothing (§13); probe one proposal first
        probe = next(iter(proposals(state, rng)))
        before = hash(state)  # frozen dataclasses of tuples: a deep hash
        try:
            apply(state, state.turn.seat, probe)
        except RuleViolation:
            pass
        assert hash(state) == before
        if len(moves) % 40 == 0:  # the position notation round-trips exactly
            assert loads(dumps(state)) == state
        seat = state.turn.seat
        state, events, action = random_step(state, rng)
        moves.append((seat, action))
        all_events.extend(events)
        check_all(state, events)
    record = record_to_dict(options, n, first.dealer, seed, first.deck, moves)
    replayed, replay_events = replay_record(record)
    assert replayed == state
    assert list(replay_events) == all_events
    total = sum(s.score for s in state.result.seats)
    assert state.result.finish in ("normal", "hand", "exhausted", "void")
    if state.result.finish == "void":
        assert total == 0


@pytest.mark.parametrize("preset", sorted(PRESETS))
@settings(max_examples=ROUNDS, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**63 - 1), players=st.integers(2, 5))
def test_random_legal_rounds_keep_every_invariant(preset: str, seed: int, players: int) -> None:
    """Every move of a random legal round keeps §13's invariants; its record replays exactly."""
    options = resolve(preset)
    n = 4 if options.partnership else min(players, options.max_players)
    play_checked(preset, seed, n)
