"""Typed rule violations with stable machine codes.

The engine never formats user-facing text: it raises :class:`RuleViolation`
with a stable :class:`Code` and parameters; the service layer turns that into
a gRPC status with a message in the caller's language.
"""

from __future__ import annotations

import enum
from typing import Any


class Code(enum.Enum):
    """Stable machine codes. Values are part of the public contract."""

    # generic / request shape
    INVALID_ARGUMENT = "INVALID_ARGUMENT"
    INVALID_OPTIONS = "INVALID_OPTIONS"
    INVALID_STATE = "INVALID_STATE"
    UNKNOWN_CARD = "UNKNOWN_CARD"
    DUPLICATE_CARD = "DUPLICATE_CARD"
    # turn order and phases
    ROUND_OVER = "ROUND_OVER"
    NOT_YOUR_TURN = "NOT_YOUR_TURN"
    WRONG_PHASE = "WRONG_PHASE"
    OPENING_DISCARD_ONLY = "OPENING_DISCARD_ONLY"
    CARD_NOT_IN_HAND = "CARD_NOT_IN_HAND"
    # drawing and taking
    DISCARD_PILE_EMPTY = "DISCARD_PILE_EMPTY"
    TAKE_NOT_ALLOWED = "TAKE_NOT_ALLOWED"
    TAKE_CANNOT_BE_MET = "TAKE_CANNOT_BE_MET"
    NO_ACTIVE_TAKE = "NO_ACTIVE_TAKE"
    TAKE_NOT_RETURNABLE = "TAKE_NOT_RETURNABLE"
    TAKEN_CARD_NOT_DISCARDABLE = "TAKEN_CARD_NOT_DISCARDABLE"
    TAKEN_CARD_RESTRICTED = "TAKEN_CARD_RESTRICTED"
    TAKEN_CARD_NOT_IN_OPENING = "TAKEN_CARD_NOT_IN_OPENING"
    OBLIGATION_UNMET = "OBLIGATION_UNMET"
    OBLIGATION_WOULD_FAIL = "OBLIGATION_WOULD_FAIL"
    # melds
    INVALID_MELD = "INVALID_MELD"
    JOKER_LIMIT = "JOKER_LIMIT"
    JOKER_DECLARATION_INVALID = "JOKER_DECLARATION_INVALID"
    BELOW_THRESHOLD = "BELOW_THRESHOLD"
    NOT_OPEN = "NOT_OPEN"
    UNKNOWN_MELD = "UNKNOWN_MELD"
    INVALID_LAYOFF = "INVALID_LAYOFF"
    LAYOFF_LEAVES_TOO_FEW = "LAYOFF_LEAVES_TOO_FEW"
    INVALID_RETRIEVAL = "INVALID_RETRIEVAL"
    # going out
    MUST_DISCARD_TO_GO_OUT = "MUST_DISCARD_TO_GO_OUT"
    GOING_OUT_FORBIDDEN = "GOING_OUT_FORBIDDEN"
    DEAD_END = "DEAD_END"
    ONLY_DISCARD_ALLOWED = "ONLY_DISCARD_ALLOWED"
    # staging
    STAGING_OVERLAP = "STAGING_OVERLAP"
    # match
    MATCH_OVER = "MATCH_OVER"


class RuleViolation(Exception):
    """A refused move or malformed input. The state it was applied to is unchanged."""

    def __init__(self, code: Code, detail: str = "", **params: Any) -> None:
        self.code = code
        self.detail = detail
        self.params = params
        super().__init__(f"{code.value}: {detail}" if detail else code.value)


def refuse(code: Code, detail: str = "", **params: Any) -> RuleViolation:
    """Build a :class:`RuleViolation` (use as ``raise refuse(...)``)."""
    return RuleViolation(code, detail, **params)
