"""Small helpers for rule tests: play a move and check it was accepted or refused.

``ok`` applies an accepted move and checks the §13 invariants on the result;
``refused`` checks that a move raises the expected code and leaves the state
exactly as it was (states are frozen, but a deep snapshot makes the check
independent of that).
"""

from __future__ import annotations

import copy

import pytest

from hand_engine import Code, RuleViolation, apply, parse_card, parse_cards
from hand_engine.invariants import check_state
from hand_engine.state import Meld, RoundState


def ok(state: RoundState, seat: int, action) -> RoundState:
    """Apply an accepted move; return the new state (invariants checked)."""
    new, _events = apply(state, seat, action)
    check_state(new)
    return new


def ok_events(state: RoundState, seat: int, action):
    new, events = apply(state, seat, action)
    check_state(new)
    return new, events


def refused(state: RoundState, seat: int, action, code: Code) -> RuleViolation:
    """The move is refused with ``code`` and the state is unchanged."""
    snapshot = copy.deepcopy(state)
    with pytest.raises(RuleViolation) as info:
        apply(state, seat, action)
    assert info.value.code is code, f"expected {code}, got {info.value.code}: {info.value}"
    assert state == snapshot
    return info.value


def c(text: str) -> int:
    """One card id from text notation."""
    return parse_card(text)


def cs(text: str) -> tuple[int, ...]:
    """Card ids from text notation."""
    return parse_cards(text)


def hand(state: RoundState, seat: int) -> tuple[int, ...]:
    return state.seats[seat].hand


def meld_by_id(state: RoundState, meld_id: int) -> Meld:
    meld = state.meld(meld_id)
    assert meld is not None
    return meld


def last_meld(state: RoundState) -> Meld:
    return state.melds[-1]
