"""Bot decisions: pure functions of a seat's perspective, the level and a seed.

A bot sees exactly what a human in its seat could (``hand_engine.perspective``);
``determinize`` fills the hidden cards at random so the engine can referee the
bot's own moves, whose legality never depends on hidden cards. Nothing a bot
decides depends on those filled-in cards (tests/unit/test_bots.py proves it).

Levels: ``random`` (random legal moves), ``beginner`` (plain legal moves),
``middle`` and ``strong`` (``planner.Planner``), ``expert`` (``expert.search``:
determinized search over the hidden cards, from a belief built on the
round's public history when it is given), and ``auto``: the safe
automatic turn of docs/rules.md §11 (``hand_engine.next_auto_action``), the one
the room service plays for an expired turn.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from hand_engine import Action, Discard, DrawStock, RuleViolation, apply, next_auto_action
from hand_engine import TakeReturned
from hand_engine import determinize
from hand_engine import RoundState

from .expert import DEFAULT_BUDGET, Budget, search
from .history import History, public_history
from .planner import STYLES, Planner
from .simple import beginner_step, random_step

LEVELS = ("random", "beginner", "middle", "strong", "expert")
#: the search budget of each searching level
BUDGETS: dict[str, Budget] = {"expert": DEFAULT_BUDGET}
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


def plan(state: RoundState, level: str, rng: random.Random, *, seed: int = 0,
         history: History | None = None, budget: Budget | None = None) -> list[Action]:
    """The bot's moves from ``state`` until it must wait (a stock draw) or the turn ends."""
    if level in BUDGETS:
        return search(state, seed, history, budget or BUDGETS[level]).plan
    if level in STYLES:
        return Planner(state, level).plan(state)
    step = {"random": random_step, "auto": _auto}.get(level, beginner_step)
    return _stepwise(state, step, rng)


def as_history(history: History | Sequence[object] | None) -> History | None:
    """``history`` as a ``History``: given as one, or as the round's events redacted for
    the bot's seat (``hand_engine.redact(event, seat)``, ``RoundStarted`` first)."""
    if history is None or isinstance(history, History):
        return history
    return public_history(history)


def choose_moves(perspective: dict[str, Any], level: str, seed: int,
           history: History | Sequence[object] | None = None, *, budget: Budget | None = None
           ) -> list[Action]:
    """A bot's actions for the current request (deterministic for the same inputs).

    ``history``: the round's public history (the seat's redacted events); only
    ``expert`` uses it, and plays from public counts alone without it.
    """
    rng = random.Random(seed)
    state = determinize(perspective, seed)
    level = level if level in ALL_LEVELS or level in STYLES else "beginner"
    hist = as_history(history) if level in BUDGETS else None
    return plan(state, level, rng, seed=seed, history=hist, budget=budget)


def auto_turn(state: RoundState) -> list[Action]:
    """The safe automatic turn (docs/rules.md §11) from ``state`` to the turn's end.

    The same moves as level ``auto`` and as the rules service's AutoTurn: all
    of them come from ``hand_engine.next_auto_action``.
    """
    from hand_engine import auto_turn as engine_auto_turn

    return engine_auto_turn(state)
