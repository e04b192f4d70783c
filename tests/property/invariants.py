"""Checks of docs/rules.md §13 applied after every move of a random game."""

from __future__ import annotations

from hand_engine import RoundState, auto_turn, check_state, redact, view
from hand_engine.events import StockDrawn


def assert_can_end_turn(state: RoundState) -> None:
    """§13: the player to move has a legal way to end the turn (the safe auto turn)."""
    if state.result is not None:
        return
    from hand_engine import apply

    seat = state.turn.seat
    s = state
    for action in auto_turn(state):
        s, _ = apply(s, seat, action)
    assert s.result is not None or s.turn.seat != seat, "auto turn did not end the turn"


def assert_views_hide_secrets(state: RoundState) -> None:
    """§13: no view holds another player's hand, the stock order or the seed."""
    public = set(state.pile) | {c for m in state.melds for c in m.cards}
    if state.turn.taken is not None:
        public.add(state.turn.taken)
    for seat in [None, *range(state.n)]:
        v = view(state, seat)
        own = set(state.seats[seat].hand) if seat is not None else set()
        assert set(v.hand) == own
        secret = {c for i, s in enumerate(state.seats) if i != seat for c in s.hand} - public
        secret |= set(state.stock)
        seen = set(v.hand) | set(v.pile) | {c for m in v.melds for c in m.cards}
        if v.turn.drawn is not None:
            seen.add(v.turn.drawn)
        if v.turn.taken is not None:
            seen.add(v.turn.taken)
        assert not (seen & secret), f"seat {seat} sees hidden cards {seen & secret}"
        assert not hasattr(v, "stock") and not hasattr(v, "seed") and not hasattr(v, "deck")


def assert_events_redacted(events, n: int) -> None:
    for e in events:
        for seat in [None, *range(n)]:
            r = redact(e, seat)
            if isinstance(r, StockDrawn) and r.seat != seat:
                assert r.card is None
            assert getattr(r, "deck", ()) == ()
            assert getattr(r, "order", ()) == ()


def check_all(state: RoundState, events) -> None:
    check_state(state)
    assert_can_end_turn(state)
    assert_views_hide_secrets(state)
    assert_events_redacted(events, state.n)
