"""Can the player still meet a take's obligation and end the turn legally?

Used by `take_return = never` (docs/rules.md §3) at the take and after every move
while the obligation is unmet, and by the automatic turn to meet an
obligation that cannot be returned.
"""

from __future__ import annotations

from collections.abc import Sequence

from .rules import going_out_allowed, is_open, threshold
from .search import Candidate, candidates, find, left_after
from .state import RoundState


def _left_ok(state: RoundState, left: Sequence[int], taken: int | None) -> bool:
    if not left:
        return state.options.going_out == "meld_out_allowed" and going_out_allowed(state)
    if len(left) == 1:
        return going_out_allowed(state) and left[0] != taken
    return True


def meeting_submissions(state: RoundState):
    """(accept, hand) for submissions that meet the take's obligation legally."""
    o = state.options
    t = state.turn
    seat = t.seat
    hand = state.seats[seat].hand
    card = t.taken
    need_card = o.discard_take == "meld_with_card"
    if not is_open(state, seat):
        thr = threshold(state)
        fresh = t.fresh and not t.laid

        def accept(combo: tuple[Candidate, ...], used: int) -> bool:
            left = left_after(hand, used)
            if not _left_ok(state, left, card):
                return False
            if need_card and not any(card in c.cards for c in combo):
                return False
            total = sum(c.value for c in combo)
            if total >= thr:
                return True
            return not o.hand_needs_threshold and fresh and len(left) <= 1

        return accept, hand

    def accept_open(combo: tuple[Candidate, ...], used: int) -> bool:
        # one submission of new melds (the automatic turn picks the one leaving least in hand)
        if need_card and not any(card in c.cards for c in combo):
            return False
        return _left_ok(state, left_after(hand, used), card)

    return accept_open, hand


def can_meet(state: RoundState) -> bool:
    accept, hand = meeting_submissions(state)
    return find(hand, state.options, accept) is not None
