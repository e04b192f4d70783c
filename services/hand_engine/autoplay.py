"""The safe automatic turn played when a turn's time runs out (docs/rules.md §11)."""

from __future__ import annotations

from .actions import Action, Discard, DrawStock, LayMelds, MeldSpec, ReturnTake
from .cards import hand_total, hand_value
from .feasibility import meeting_submissions
from .rules import pending
from .search import find, left_after
from .state import RoundState


def _returnable(state: RoundState) -> bool:
    t = state.turn
    if t.taken is None or t.taken not in state.seats[t.seat].hand:
        return False
    policy = state.options.take_return
    return policy == "by_discard" or (policy == "until_met" and not t.take_final)


def _highest(state: RoundState, exclude: int | None) -> int:
    hand = [c for c in state.seats[state.turn.seat].hand if c != exclude]
    j = state.options.joker_in_hand
    return min(hand, key=lambda c: (-hand_value(c, j), c))


def next_auto_action(state: RoundState) -> Action:
    """The next action of the automatic turn from ``state`` (the turn in progress)."""
    t = state.turn
    if t.opening_discard:
        return Discard(_highest(state, None))
    if t.phase == "draw":
        return DrawStock()
    if _returnable(state) and (pending(t) or state.options.take_return == "by_discard"):
        return ReturnTake()
    if pending(t):
        accept, hand = meeting_submissions(state)
        j = state.options.joker_in_hand

        def key(combo, used):
            left = left_after(hand, used)
            return (hand_total(left, j), len(left), tuple(sorted(left)))

        combo = find(hand, state.options, accept, key)
        if combo is None:  # cannot happen while the invariants hold
            raise AssertionError("no way to meet the obligation")
        return LayMelds(tuple(MeldSpec(c.cards, c.declare) for c in combo))
    hand = state.seats[t.seat].hand
    taken = t.taken if t.taken in hand else None
    if t.drawn is not None and t.drawn in hand and t.drawn != taken:
        return Discard(t.drawn)
    return Discard(_highest(state, taken))


def auto_turn(state: RoundState) -> list[Action]:
    """The whole automatic turn from ``state`` to its end (pure; for previews and tests)."""
    from .play import apply

    actions: list[Action] = []
    seat = state.turn.seat
    while state.result is None and state.turn.seat == seat:
        action = next_auto_action(state)
        state, events = apply(state, seat, action)
        actions.append(action)
        if isinstance(action, Discard) and not any(type(e).__name__ == "TakeReturned" for e in events):
            break
    return actions
