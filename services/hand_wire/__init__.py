"""The one adapter between types and bytes: every ``hand.v1`` message a service
reads or writes is made from (and read into) typed values here, and nowhere else.

- ``engine``: the engine's dataclasses (``hand_engine``) ⇔ hand.v1 messages (options,
  state, actions, events, views); decoding raises ``RuleViolation`` for input that
  cannot be an engine value (docs/contracts.md, "Mapping to the engine");
- ``room``: the room's values (``hand_table``) ⇔ hand.v1 messages: room events
  (``encode`` / ``decode``, ``to_proto`` / ``from_proto``; per event topic:
  ``topic_values``, ``private_value``, ``public_value``), commands
  (``encode_command`` / ``decode_command``), ``room_info``, command replies
  (``Reply``), bot requests (``bot_request``) and ``Delivered`` events.

The rules, room, ledger and bot services, ``hand_sim`` and ``hand_verify`` import
this package itself (``from hand_wire import decode``): its modules are private.
It knows no service: it depends on the engine, the pure room domain and the
generated code only.
"""

from .engine import (
    FINISH, EnumCodec, action_from_proto, action_to_proto, card_in, card_out, card_text, cards_in, cards_out,
    event_from_proto, event_to_proto, meld_spec_to_proto, meld_to_proto, name_option_field, options_from_json,
    options_from_proto, options_to_json, options_to_proto, result_from_proto, result_to_proto, selection_from_proto, staging_to_proto,
    state_from_proto, state_to_proto, suggestion_to_proto, table_options, view_from_proto, view_to_proto,
)
from .room import (
    KIND_NAMES, LEVEL_NAMES, Delivered, MalformedEvent, Reply, RuleErrorOf, bot_request, command_from_proto,
    command_to_proto, decode, decode_command, decode_reply, encode, encode_command, encode_reply, from_proto,
    level_to_proto, private_value, public_value, room_info, standing_to_proto, to_proto, topic_values, turn_deadline,
)

__all__ = [
    # engine ⇔ wire
    "EnumCodec", "FINISH",
    "action_from_proto", "action_to_proto", "card_in", "card_out", "card_text", "cards_in", "cards_out",
    "event_from_proto", "event_to_proto", "meld_spec_to_proto", "meld_to_proto", "name_option_field",
    "options_from_json", "options_from_proto", "options_to_json", "options_to_proto", "result_from_proto",
    "result_to_proto", "selection_from_proto",
    "staging_to_proto", "state_from_proto", "state_to_proto", "suggestion_to_proto", "table_options",
    "view_from_proto", "view_to_proto",
    # room ⇔ wire
    "Delivered", "KIND_NAMES", "LEVEL_NAMES", "MalformedEvent", "Reply", "RuleErrorOf", "bot_request",
    "command_from_proto", "command_to_proto", "decode", "decode_command", "decode_reply", "encode",
    "encode_command", "encode_reply", "from_proto", "level_to_proto", "private_value", "public_value", "room_info",
    "standing_to_proto", "to_proto", "topic_values", "turn_deadline",
]
