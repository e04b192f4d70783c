"""The room's values ⇔ hand.v1 wire messages: events (``hand.v1.RoomEvent``: the store,
both event topics, Watch, replays), commands (``hand.v1.RoomCommand``), the public
room description (``hand.v1.RoomInfo``), replies, bot requests and delivered events."""

from .bus import Delivered, Reply, RuleErrorOf, bot_request, decode_reply, encode_reply
from .commands import command_from_proto, command_to_proto, decode_command, encode_command
from .events import (
    KIND_NAMES, LEVEL_NAMES, MalformedEvent, decode, encode, from_proto, level_to_proto, private_value, public_value,
    standing_to_proto, to_proto, topic_values,
)
from .info import room_info, turn_deadline

__all__ = [
    "Delivered", "KIND_NAMES", "LEVEL_NAMES", "MalformedEvent", "Reply", "RuleErrorOf", "bot_request",
    "command_from_proto", "command_to_proto", "decode", "decode_command", "decode_reply", "encode",
    "encode_command", "encode_reply", "from_proto", "level_to_proto", "private_value", "public_value", "room_info",
    "standing_to_proto", "to_proto", "topic_values", "turn_deadline",
]
