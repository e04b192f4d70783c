"""Enum and suit codecs: engine strings and numbers ⇔ proto enum numbers.

A string choice ``v`` is the enum value ``<ENUM_PREFIX>_<V.upper()>``; the
``*_UNSPECIFIED`` value (0) is "not set". A suit is the engine suit + 1, and
engine −1 (undetermined, or a set's suit) is ``SUIT_UNSPECIFIED``.
"""

from __future__ import annotations

import re

from google.protobuf.descriptor import EnumDescriptor

from hand.v1 import cards_pb2, state_pb2, views_pb2
from hand_engine import Code, RuleViolation


class EnumCodec:
    """Maps the engine's strings of one choice to the numbers of one proto enum."""

    def __init__(self, enum: EnumDescriptor) -> None:
        self.name = enum.name
        prefix = re.sub(r"(?<!^)(?=[A-Z])", "_", enum.name).upper() + "_"
        self._to_number = {
            v.name[len(prefix):].lower(): v.number for v in enum.values if v.number != 0
        }
        self._to_text = {number: text for text, number in self._to_number.items()}

    def encode(self, text: str) -> int:
        """The enum number of ``text``; "" (not set) is 0."""
        return self._to_number[text] if text else 0

    def decode(self, number: int, code: Code = Code.INVALID_ARGUMENT, what: str = "") -> str:
        """The engine string of ``number``; 0 or an unknown number raises ``code``."""
        text = self._to_text.get(number)
        if text is None:
            raise RuleViolation(code, f"{what or self.name}: enum value {number} not allowed")
        return text

    def decode_optional(self, number: int, code: Code = Code.INVALID_ARGUMENT) -> str:
        """Like ``decode`` but 0 (not set) is ""."""
        return "" if number == 0 else self.decode(number, code)


MELD_KIND = EnumCodec(state_pb2.MeldKind.DESCRIPTOR)
TURN_PHASE = EnumCodec(state_pb2.TurnPhase.DESCRIPTOR)
FINISH = EnumCodec(state_pb2.Finish.DESCRIPTOR)
STAGING_COLOUR = EnumCodec(views_pb2.StagingColour.DESCRIPTOR)

_SUITS = frozenset(cards_pb2.Suit.values())


def suit_to_proto(suit: int) -> int:
    """Engine suit 0..3 (or −1) → ``Suit`` number 1..4 (or 0)."""
    return suit + 1


def suit_from_proto(number: int, code: Code = Code.INVALID_ARGUMENT) -> int:
    """``Suit`` number → engine suit; an unknown number raises ``code``."""
    if number not in _SUITS:
        raise RuleViolation(code, f"Suit: enum value {number} not allowed")
    return number - 1
