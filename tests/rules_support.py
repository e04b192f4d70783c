"""Small helpers shared by the per-section rules tests (tests/unit/test_sNN_*.py)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from hand_engine import (
    Action, Code, LayMelds, LayOff, MeldSpec, RoundState, RuleViolation, apply, parse_card,
    parse_cards, position_to_dict, resolve,
)


def c(text: str) -> int:
    """One card id from text (``"7H"``, ``"JK#2"``)."""
    return parse_card(text)


def cs(text: str) -> tuple[int, ...]:
    """Card ids from text (``"KS QS JS"``)."""
    return parse_cards(text)


def opts(preset: str = "hand", **overrides) -> object:
    return resolve(preset, overrides)


def lay(*melds: str) -> LayMelds:
    """A submission of new melds written as text: ``lay("KS QS JS", "7H 7D 7C")``."""
    return LayMelds(tuple(MeldSpec(cs(m)) for m in melds))


def layoff(meld_id: int, cards: str) -> LayOff:
    return LayOff(meld_id, cs(cards))


def play(state: RoundState, seat: int, *actions: Action) -> tuple[RoundState, tuple]:
    """Apply several moves of one seat; return the last state and all events."""
    events: list = []
    for action in actions:
        state, ev = apply(state, seat, action)
        events.extend(ev)
    return state, tuple(events)


def refused(state: RoundState, seat: int, action: Action, code: Code) -> RuleViolation:
    """Assert that ``action`` is refused with ``code`` and that nothing changed."""
    before = position_to_dict(state)
    with pytest.raises(RuleViolation) as info:
        apply(state, seat, action)
    assert info.value.code is code, f"expected {code}, got {info.value.code}: {info.value}"
    assert position_to_dict(state) == before
    return info.value


def hand_of(state: RoundState, seat: int) -> tuple[int, ...]:
    return state.seats[seat].hand


def same_cards(a: Sequence[int], b: Sequence[int]) -> bool:
    return sorted(a) == sorted(b)
