"""Hand (هاند) rules engine: pure, deterministic, no I/O.

State in, action in, new state and events out (see RULES.md, docs/engine.md)::

    from hand_engine import resolve, start_round, apply, DrawStock
    state, events = start_round(resolve("saudi"), 4, seed=7)
    state, events = apply(state, state.turn.seat, Discard(card))

Everything public is re-exported here; modules are private.
"""

from .actions import (
    Action, Discard, DrawStock, LayMelds, LayOff, MeldSpec, RetrieveJoker, ReturnTake, TakeDiscard,
)
from .autoplay import auto_turn, next_auto_action
from .cards import format_card, format_cards, hand_value, parse_card, parse_cards
from .deal import start_round
from .errors import Code, RuleViolation
from .invariants import check_state
from .match import MatchState, next_round, record_round, standings, start_match
from .notation import (
    action_from_dict, action_to_dict, dumps, loads, position_from_dict, position_to_dict,
    record_to_dict, replay_record,
)
from .options import MODES, PRESETS, Options, resolve
from .play import apply
from .randplay import random_step
from .rules import threshold
from .staging import evaluate as evaluate_staging
from .state import Meld, RoundResult, RoundState, Seat, SeatResult, Turn
from .suggest import suggest
from .views import SeatView, redact, view

__all__ = [
    "Action", "Code", "Discard", "DrawStock", "LayMelds", "LayOff", "MODES", "MatchState", "Meld",
    "MeldSpec", "Options", "PRESETS", "RetrieveJoker", "ReturnTake", "RoundResult", "RoundState",
    "RuleViolation", "Seat", "SeatResult", "SeatView", "TakeDiscard", "Turn", "action_from_dict",
    "action_to_dict", "apply", "auto_turn", "check_state", "dumps", "evaluate_staging",
    "format_card", "format_cards", "hand_value", "loads", "next_auto_action", "next_round",
    "parse_card", "parse_cards", "position_from_dict", "position_to_dict", "random_step",
    "record_round", "record_to_dict", "redact", "replay_record", "resolve", "standings",
    "start_match", "start_round", "suggest", "threshold", "view",
]
