"""Queries about a round that several modules share (thresholds, obligations)."""

from __future__ import annotations

from collections.abc import Sequence

from .state import RoundState, Turn


def threshold(state: RoundState) -> int:
    """The opening threshold now in force (§5)."""
    o = state.options
    if o.opening == "escalating" and state.last_opening_total is not None:
        return max(o.opening_threshold, state.last_opening_total + 1)
    return o.opening_threshold


def is_open(state: RoundState, seat: int) -> bool:
    return state.seats[seat].opened


def going_out_allowed(state: RoundState) -> bool:
    """Whether the player to move may empty their hand this turn (§7)."""
    return not (state.options.out_on_first_turn == "forbidden" and state.turn.first_turn)


def has_obligation(state: RoundState, seat: int) -> bool:
    """Whether taking the discard top obliges ``seat`` to something (§3)."""
    policy = state.options.discard_take
    if policy in ("meld_with_card", "meld_required"):
        return True
    if policy == "open_required":
        return not is_open(state, seat)
    return False


def pending(turn: Turn) -> bool:
    """A take is in force and its obligation is not yet met."""
    return turn.taken is not None and not turn.take_met


def obligation_met(state: RoundState) -> bool:
    """Whether the take in force has had its obligation met by this turn's moves."""
    t = state.turn
    policy = state.options.discard_take
    if policy == "use_if_opening":
        return True
    if policy == "open_required":
        return is_open(state, t.seat)
    if policy == "meld_required":
        return bool(t.laid)
    laid_with_card = any(t.taken in m.cards for m in state.melds if m.id in t.laid)
    return laid_with_card and is_open(state, t.seat)


def dead_end(state: RoundState, hand: Sequence[int]) -> bool:
    """The no-dead-end rule (§3): would this hand leave the player stuck?"""
    if len(hand) != 1:
        return False
    if state.turn.taken is not None and hand[0] == state.turn.taken:
        return True
    return not going_out_allowed(state)


def min_left_after_layoff(state: RoundState) -> int:
    o = state.options
    return max(o.min_hand_after_layoff, 1 if o.going_out == "discard_required" else 0)
