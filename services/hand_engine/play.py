"""Applying a move to a round: ``apply(state, seat, action) -> (state, events)``.

Every check happens before anything changes; a refused move raises
:class:`~hand_engine.errors.RuleViolation` and the input state (immutable)
is untouched. docs/rules.md §3-§8.

One handler per action kind (``_HANDLERS``): drawing in ``draw.py``, the
table's moves in ``table_moves.py``, the discard and the next turn in
``discard.py``; what they share in ``move_steps.py``.
"""

from __future__ import annotations

from .actions import Action, Discard, DrawStock, LayMelds, LayOff, RetrieveJoker, ReturnTake, TakeDiscard
from .discard import _discard
from .draw import _draw_stock, _return, _take
from .errors import Code, refuse
from .events import Event
from .state import RoundState
from .table_moves import _lay_melds, _lay_off, _retrieve


def apply(state: RoundState, seat: int, action: Action) -> tuple[RoundState, tuple[Event, ...]]:
    """Apply ``action`` by ``seat``; return the new state and the events."""
    if state.result is not None:
        raise refuse(Code.ROUND_OVER, "the round is over")
    if type(seat) is not int or not 0 <= seat < state.n:
        raise refuse(Code.INVALID_ARGUMENT, f"no seat {seat!r}")
    if seat != state.turn.seat:
        raise refuse(Code.NOT_YOUR_TURN, f"it is seat {state.turn.seat}'s turn", seat=state.turn.seat)
    handler = _HANDLERS.get(type(action))
    if handler is None:
        raise refuse(Code.INVALID_ARGUMENT, f"unknown action {type(action).__name__}")
    return handler(state, action)


_HANDLERS = {
    DrawStock: _draw_stock,
    TakeDiscard: _take,
    ReturnTake: _return,
    LayMelds: _lay_melds,
    LayOff: _lay_off,
    RetrieveJoker: _retrieve,
    Discard: _discard,
}
