"""Whole rounds played in-process by bots, exactly as the room service runs them.

Each request is the mover's ``perspective`` and the round's public history:
the engine's own events of the round (from ``start_round`` and every
``apply``) redacted for the mover's seat (``hand_engine.redact``), exactly
what that seat's Watch stream carries; nothing else reaches the bot. The
bot's actions are applied one by one on the true position, and a refused
action raises (``RuleViolation``): a bot never gets a second try here. Used
by the tests (legality over many rounds) and the strength benchmark.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from hand_engine import Options, RoundResult, RoundState, apply, perspective, redact, start_round

from .policy import choose_moves

#: requests after which a round counts as stuck (the engine ends any round
#: after ``max_turns`` drawing turns, so a sound bot never gets here)
MAX_REQUESTS = 20_000


class StuckRound(AssertionError):
    """A round that did not end within ``MAX_REQUESTS`` bot requests."""


@dataclass
class RoundOutcome:
    levels: tuple[str, ...]  # by seat
    result: RoundResult
    requests: int
    actions: int
    turns: int
    #: (level, turn number, CPU seconds, wall seconds) of each decision (with ``timed``)
    timings: list[tuple[str, int, float, float]] = field(default_factory=list)


def request_seed(seed: int, k: int) -> int:
    return (seed * 1_000_003 + k) % 2**63


def play_round(options: Options, levels: Sequence[str], seed: int, *, dealer: int | None = None,
               round_no: int = 1, timed: bool = False, deck: Sequence[int] | None = None,
               budgets: dict | None = None,
               view_of: Callable[[RoundState, int], dict[str, Any]] = perspective,
               choose: Callable[..., list] = choose_moves) -> RoundOutcome:
    """Play one round with ``levels[seat]`` bots; every action must be legal.

    ``deck``: an explicit deal (duplicate play); ``budgets``: seat -> search
    budget for searching levels (default: the level's). The seam for research
    (``research/botlab``): ``view_of(state, seat)`` makes the request's
    perspective, ``choose`` answers it (``policy.choose_moves``' signature)."""
    state, events = start_round(options, len(levels), seed=seed, dealer=dealer, round_no=round_no, deck=deck)
    log = list(events)
    requests = actions = 0
    timings: list[tuple[str, int, float, float]] = []
    while state.result is None:
        if requests >= MAX_REQUESTS:
            raise StuckRound(f"seed {seed}: no end after {requests} requests")
        seat = state.turn.seat
        view = view_of(state, seat)
        cpu, wall = (time.thread_time(), time.perf_counter()) if timed else (0.0, 0.0)
        history = [redact(e, seat) for e in log]
        budget = (budgets or {}).get(seat)
        plan = choose(view, levels[seat], request_seed(seed, requests), history, budget=budget)
        if timed:
            timings.append((levels[seat], state.turn_no, time.thread_time() - cpu, time.perf_counter() - wall))
        requests += 1
        if not plan:
            raise AssertionError(f"seed {seed}: {levels[seat]} bot answered nothing")
        state = play_plan(state, seat, plan, log)
        actions += len(plan)
    return RoundOutcome(tuple(levels), state.result, requests, actions, state.turn_no, timings)


def play_plan(state: RoundState, seat: int, plan, log: list | None = None) -> RoundState:
    """Apply a bot's actions on the true position (``RuleViolation`` propagates);
    the engine's events are appended to ``log``."""
    for action in plan:
        if state.result is not None:
            raise AssertionError(f"action {action} after the round ended")
        state, events = apply(state, seat, action)
        if log is not None:
            log.extend(events)
    return state
