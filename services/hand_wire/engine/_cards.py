"""Card ids on the wire: engine id + 1 (1..106), so that 0 is never a card.

The engine numbers cards 0..105 (docs/notation.md); the contract numbers them
1..106 (cards.proto) because proto3 decoders drop zero values: a card 0 would
be indistinguishable from "no card". Every card crossing the adapter goes
through these four functions.
"""

from __future__ import annotations

from collections.abc import Iterable

from hand_engine import Code, RuleViolation, format_card

N_CARDS = 106


def card_out(card: int | None) -> int | None:
    """Engine id → wire id (``None`` stays unset)."""
    return None if card is None else card + 1


def cards_out(cards: Iterable[int]) -> list[int]:
    return [c + 1 for c in cards]


def card_in(card: int, code: Code = Code.UNKNOWN_CARD, field: str = "card") -> int:
    """Wire id → engine id; anything outside 1..106 raises ``code``."""
    if not 1 <= card <= N_CARDS:
        raise RuleViolation(code, f"unknown card id {card}", card=str(card), field=field)
    return card - 1


def cards_in(cards: Iterable[int], code: Code = Code.UNKNOWN_CARD, field: str = "cards") -> tuple[int, ...]:
    out = tuple(c - 1 for c in cards)
    for c in out:
        if not 0 <= c < N_CARDS:
            raise RuleViolation(code, f"unknown card id {c + 1}", card=str(c + 1), field=field)
    return out


def card_text(card: int) -> str:
    """An engine card id in the one card notation of messages (``10H``, ``JK#2``)."""
    return format_card(card)
