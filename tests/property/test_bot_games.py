"""Bots of every level play whole rounds of every preset: never a refused move,
every round ends, and the §13 invariants hold after every bot turn.

Every request carries the mover's perspective and its redacted events of the
round (the public history, used by ``expert``; kept small here with
``EXPERT_BUDGET``, no CPU cap, so every round replays exactly).

Rounds per preset: ``HAND_BOT_ROUNDS`` (default 8 in ``make test``, about
150 rounds in all; ``make soak-bots`` plays 100 per preset). Marked slow:
``make test-fast`` leaves these games out. Each round seats
a rotating mix of the levels, so every level meets every other level.
"""

from __future__ import annotations

import os

import pytest

from hand_bot.arena import play_plan, request_seed
from hand_bot.expert import Budget
from hand_bot.policy import ALL_LEVELS, choose_moves
from hand_engine import PRESETS, redact, resolve, start_round
from hand_engine.invariants import check_state
from hand_engine.perspective import perspective

ROUNDS = int(os.environ.get("HAND_BOT_ROUNDS", "8"))
MAX_REQUESTS = 20_000
EXPERT_BUDGET = Budget(rollouts=8, cpu_ms=None, draws=8)

#: whole rounds of every level: minutes, so ``make test-fast`` leaves them out (``make test`` runs them)
pytestmark = pytest.mark.slow


def seat_counts(preset: str) -> list[int]:
    options = resolve(preset)
    if options.partnership:
        return [4]
    return list(range(2, options.max_players + 1))


def levels_for(k: int, n: int) -> list[str]:
    """Seat levels of round ``k``: every level (``auto`` included) in turn."""
    return [ALL_LEVELS[(k + i) % len(ALL_LEVELS)] for i in range(n)]


def play_checked(preset: str, seed: int, n: int, levels: list[str]) -> str:
    options = resolve(preset)
    state, events = start_round(options, n, seed=seed)
    log = list(events)
    for k in range(MAX_REQUESTS):
        if state.result is not None:
            return state.result.finish
        seat = state.turn.seat
        history = [redact(e, seat) for e in log]
        plan = choose_moves(perspective(state, seat), levels[seat], request_seed(seed, k), history,
                      budget=EXPERT_BUDGET)
        assert plan, f"{levels[seat]} bot answered nothing"
        state = play_plan(state, seat, plan, log)  # a RuleViolation fails the test
        check_state(state)
        if state.result is None and state.turn.seat == seat:
            assert state.turn.phase == "play", "a bot left its turn at the draw step"
    raise AssertionError(f"{preset} seed {seed}: the round did not end")


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_bots_of_every_level_play_whole_rounds_without_a_refused_move(preset: str) -> None:
    counts = seat_counts(preset)
    finishes = set()
    for k in range(ROUNDS):
        n = counts[k % len(counts)]
        finishes.add(play_checked(preset, 7919 * k + 11, n, levels_for(k, n)))
    assert finishes <= {"normal", "hand", "exhausted", "void"}


@pytest.mark.parametrize("level", ["middle", "strong"])
@pytest.mark.parametrize("preset", ["hand", "saudi", "eram-partnership", "dananeer", "r2019"])
def test_a_table_of_one_planned_level_plays_whole_rounds(preset: str, level: str) -> None:
    """Four (or five) bots of one level: their own moves meet every option's rules."""
    n = resolve(preset).max_players if preset == "r2019" else 4
    for k in range(max(1, ROUNDS // 4)):
        play_checked(preset, 104729 * k + 3, n, [level] * n)


@pytest.mark.parametrize("preset", ["hand", "saudi-partnership", "eram-partnership", "dananeer"])
def test_a_table_of_experts_plays_whole_rounds(preset: str) -> None:
    for k in range(max(1, ROUNDS // 8)):
        play_checked(preset, 15485863 * k + 5, 4, ["expert"] * 4)
