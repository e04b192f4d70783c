"""Hand (هاند) rules engine: pure, deterministic, no I/O.

State in, action in, new state and events out (see docs/rules.md, docs/engine.md)::

    from hand_engine import resolve, start_round, apply, DrawStock
    state, events = start_round(resolve("saudi"), 4, seed=7)
    state, events = apply(state, state.turn.seat, Discard(card))

Everything public is re-exported here; modules are private.
"""

from .actions import (
    Action, Discard, DrawStock, LayMelds, LayOff, MeldSpec, RetrieveJoker, ReturnTake, TakeDiscard,
)
from .autoplay import auto_turn, next_auto_action
from .cards import (
    format_card, format_cards, hand_total, hand_value, is_joker, parse_card, parse_cards, rank_of, suit_of,
)
from .deal import start_round
from .errors import Code, RuleViolation
from .events import (
    CardDiscarded, CardsLaidOff, DiscardTaken, Event, JokerRetrieved, MeldsLaid, RoundEnded, RoundStarted,
    StockDrawn, StockRebuilt, TakeReturned, TurnStarted,
)
from .fair import MATCH_SECRET_BYTES, DealSeeds, commitment, check_seat_seed, drawn_seat_seed, round_seed
from .fair import VERSION as DEAL_VERSION
from .feasibility import meeting_submissions
from .invariants import check_state
from .match import (
    FEWER_PENALTY_POINTS, MOST_OUTS, NO_TIE, PLAYOFF, SHARED, STILL_TIED, MatchState, Standing, break_tie,
    next_deal, next_round, partner_of, record_round, seat_after, standings, start_match, unit_of, unit_seats,
    units,
)
from .melds import lay_off, new_meld
from .notation import (
    action_from_dict, action_to_dict, dumps, loads, options_from_dict, options_to_dict, position_from_dict,
    position_to_dict,
)
from .options import MODES, PRESETS, Options, resolve, with_overrides
from .play import apply
from .perspective import FORMAT as PERSPECTIVE_FORMAT
from .records import record_to_dict, replay_record
from .perspective import determinize, perspective, view_to_json
from .randplay import proposals, random_step
from .rules import going_out_allowed, has_obligation, is_open, pending, threshold
from .search import Candidate, candidates, find, max_value
from .staging import evaluate as evaluate_staging
from .state import Meld, RoundResult, RoundState, Seat, SeatResult, Turn
from .suggest import suggest
from .views import PublicSeat, SeatView, TurnView, redact, view

__all__ = [
    "MATCH_SECRET_BYTES", "drawn_seat_seed", "round_seed", "with_overrides",
    "Action", "Candidate", "DEAL_VERSION", "DealSeeds", "check_seat_seed", "commitment", "CardDiscarded", "CardsLaidOff", "Code", "Discard", "DiscardTaken",
    "DrawStock", "Event", "FEWER_PENALTY_POINTS", "JokerRetrieved", "LayMelds", "LayOff", "MODES",
    "MOST_OUTS", "MatchState", "Meld", "MeldSpec", "MeldsLaid", "NO_TIE", "Options",
    "PERSPECTIVE_FORMAT", "PLAYOFF", "PRESETS", "PublicSeat", "RetrieveJoker", "ReturnTake",
    "RoundEnded", "RoundResult", "RoundStarted", "RoundState", "RuleViolation", "SHARED",
    "STILL_TIED", "Seat", "SeatResult", "SeatView", "Standing", "StockDrawn", "StockRebuilt",
    "TakeDiscard", "TakeReturned", "Turn", "TurnStarted", "TurnView", "action_from_dict",
    "action_to_dict", "apply", "auto_turn", "break_tie", "candidates", "check_state", "determinize",
    "dumps", "evaluate_staging", "find", "format_card", "format_cards", "going_out_allowed",
    "hand_total", "hand_value", "has_obligation", "is_joker", "is_open", "lay_off", "loads",
    "max_value", "meeting_submissions", "new_meld", "next_auto_action", "next_deal", "next_round", "partner_of",
    "seat_after",
    "options_from_dict", "options_to_dict", "parse_card", "parse_cards", "pending", "perspective",
    "position_from_dict", "position_to_dict", "proposals", "random_step", "rank_of", "record_round",
    "record_to_dict", "redact", "replay_record", "resolve", "standings", "start_match",
    "start_round", "suggest", "suit_of", "threshold", "unit_of", "unit_seats", "units", "view",
    "view_to_json"
]
