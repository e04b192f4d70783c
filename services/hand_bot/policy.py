"""Bot decisions: pure functions of a seat's perspective, the level and a seed.

A bot sees exactly what a human in its seat could (``hand_engine.perspective``);
``determinize`` fills the hidden cards at random so the engine can referee the
bot's own moves, whose legality never depends on hidden cards. Nothing a bot
decides depends on those filled-in cards (tests/unit/test_bots.py proves it).

Levels: ``random`` (random legal moves), ``beginner`` (plain legal moves),
``middle`` and ``strong`` (``planner.Planner``), and ``auto``: the safe
automatic turn of RULES.md §11 (``hand_engine.next_auto_action``), the one
the room service plays for an expired turn.
"""

from __future__ import annotations

import random
from typing import Any

from hand_engine import Action, Discard, DrawStock, RuleViolation, apply, next_auto_action
from hand_engine import TakeReturned
from hand_engine import determinize
from hand_engine import RoundState

from .planner import STYLES, Planner
from .simple import beginner_step, random_step

LEVELS = ("random", "beginner", "middle", "strong")
ALL_LEVELS = (*LEVELS, "auto")


def _stepwise(state: RoundState, step, rng: random.Random) -> list[Action]:
    """Moves chosen one at a time until a stock draw (its card is unknown) or the turn ends."""
    seat = state.turn.seat
    out: list[Action] = []
    for _ in range(60):
        if state.result is not None or state.turn.seat != seat:
            break
        action = step(state, rng)
        try:
            new, events = apply(state, seat, action)
        except RuleViolation:
            action = next_auto_action(state)
            new, events = apply(state, seat, action)
        out.append(action)
        state = new
        if isinstance(action, DrawStock):
            break
        if isinstance(action, Discard) and not any(isinstance(e, TakeReturned) for e in events):
            break
    return out


def _auto(state: RoundState, rng: random.Random) -> Action:
    return next_auto_action(state)


def plan(state: RoundState, level: str, rng: random.Random) -> list[Action]:
    """The bot's moves from ``state`` until it must wait (a stock draw) or the turn ends."""
    if level in STYLES:
        return Planner(state, level).plan(state)
    step = {"random": random_step, "auto": _auto}.get(level, beginner_step)
    return _stepwise(state, step, rng)


def decide(perspective: dict[str, Any], level: str, seed: int) -> list[Action]:
    """A bot's actions for the current request (deterministic for the same inputs)."""
    rng = random.Random(seed)
    state = determinize(perspective, seed)
    return plan(state, level if level in ALL_LEVELS or level in STYLES else "beginner", rng)


def auto_turn(state: RoundState) -> list[Action]:
    """The safe automatic turn (RULES.md §11) from ``state`` to the turn's end.

    The same moves as level ``auto`` and as the rules service's AutoTurn: all
    of them come from ``hand_engine.next_auto_action``.
    """
    from hand_engine import auto_turn as engine_auto_turn

    return engine_auto_turn(state)
