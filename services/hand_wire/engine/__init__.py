"""Engine dataclasses ⇔ hand.v1 wire messages (options, state, actions, events, views).

Engine types (``hand_engine``) and wire types (``hand.v1.*_pb2``) never mix
outside ``hand_wire``. Decoding raises ``RuleViolation`` for input that cannot
be an engine value (``INVALID_ARGUMENT`` / ``INVALID_STATE`` /
``UNKNOWN_CARD`` / ``DUPLICATE_CARD``); whether a decoded state is a
consistent position is ``hand_engine.check_state``'s business. The rules
are those of docs/contracts.md ("Mapping to the engine").
"""

from ._enums import FINISH, EnumCodec
from ._cards import card_in, card_out, card_text, cards_in, cards_out
from .actions import action_from_proto, action_to_proto, meld_spec_to_proto
from .events import event_from_proto, event_to_proto
from .options import (
    name_option_field, options_from_json, options_from_proto, options_to_json, options_to_proto, selection_from_proto,
    table_options,
)
from .state import meld_to_proto, result_from_proto, result_to_proto, state_from_proto, state_to_proto
from .views import staging_to_proto, suggestion_to_proto, view_from_proto, view_to_proto

__all__ = [
    "EnumCodec", "FINISH",
    "action_from_proto", "action_to_proto", "card_in", "card_out", "card_text", "cards_in", "cards_out", "event_from_proto", "event_to_proto",
    "meld_spec_to_proto", "meld_to_proto", "name_option_field", "options_from_json", "options_from_proto",
    "options_to_json", "options_to_proto",
    "result_from_proto", "result_to_proto", "selection_from_proto", "staging_to_proto", "state_from_proto",
    "state_to_proto", "suggestion_to_proto", "table_options", "view_from_proto", "view_to_proto",
]
