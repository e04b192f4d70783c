"""Physical cards, their stable ids and the text notation (docs/rules.md §1).

``id = 52·(copy−1) + 13·suit + (rank−1)``; suits S H D C = 0..3; A = 1 … K = 13;
jokers are 104 (``JK#1``) and 105 (``JK#2``).
"""

from __future__ import annotations

from collections.abc import Iterable

from .errors import Code, refuse

N_CARDS = 106
JOKER_IDS = (104, 105)
SUITS = "SHDC"
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
ALL_CARDS = tuple(range(N_CARDS))


def card_id(rank: int, suit: int, copy: int = 1) -> int:
    """The id of a natural card (rank 1..13, suit 0..3, copy 1..2)."""
    return 52 * (copy - 1) + 13 * suit + (rank - 1)


def is_joker(card: int) -> bool:
    return card >= 104


def rank_of(card: int) -> int:
    """Rank 1..13 of a natural card (0 for a joker)."""
    return 0 if card >= 104 else card % 13 + 1


def suit_of(card: int) -> int:
    """Suit 0..3 of a natural card (-1 for a joker)."""
    return -1 if card >= 104 else (card % 52) // 13


def copy_of(card: int) -> int:
    if card >= 104:
        return card - 103
    return card // 52 + 1


def rank_value(rank: int) -> int:
    """Value of a rank as a card in hand or in a set: A 11, 2-9 face, 10-K 10."""
    if rank == 1:
        return 11
    return min(rank, 10)


def hand_value(card: int, joker_in_hand: int = 15) -> int:
    """Penalty value of a card left in hand (§1, §9)."""
    return joker_in_hand if card >= 104 else rank_value(rank_of(card))


def hand_total(cards: Iterable[int], joker_in_hand: int = 15) -> int:
    return sum(hand_value(c, joker_in_hand) for c in cards)


def _format(card: int) -> str:
    if card >= 104:
        base, copy = "JK", card - 103
    else:
        base, copy = RANKS[card % 13] + SUITS[(card % 52) // 13], card // 52 + 1
    return f"{base}#{copy}" if copy == 2 else base


_TEXT = tuple(_format(c) for c in range(N_CARDS))


def format_card(card: int, always_copy: bool = False) -> str:
    """``10H``, ``AS``, ``JK``; copy #2 (and JK#2) get a ``#2`` suffix."""
    if type(card) is not int or not 0 <= card < N_CARDS:
        check_card(card)
    text = _TEXT[card]
    return text + "#1" if always_copy and "#" not in text else text


def parse_card(text: str) -> int:
    """Parse ``10H``, ``TH``, ``AS``, ``9H#2``, ``JK``, ``JK#2`` (case-insensitive)."""
    raw = text.strip().upper()
    copy = 1
    if "#" in raw:
        raw, _, c = raw.partition("#")
        if c not in ("1", "2"):
            raise refuse(Code.UNKNOWN_CARD, f"bad copy in {text!r}")
        copy = int(c)
    if raw == "JK":
        return 103 + copy
    if len(raw) < 2 or raw[-1] not in SUITS:
        raise refuse(Code.UNKNOWN_CARD, f"cannot parse card {text!r}")
    rank_txt = raw[:-1].replace("T", "10")
    if rank_txt not in RANKS:
        raise refuse(Code.UNKNOWN_CARD, f"cannot parse card {text!r}")
    return card_id(RANKS.index(rank_txt) + 1, SUITS.index(raw[-1]), copy)


def parse_cards(text: str) -> tuple[int, ...]:
    """Parse a whitespace- or comma-separated list of cards."""
    return tuple(parse_card(t) for t in text.replace(",", " ").split())


def format_cards(cards: Iterable[int]) -> str:
    return " ".join(format_card(c) for c in cards)


def check_card(card: object) -> int:
    if not isinstance(card, int) or isinstance(card, bool) or not 0 <= card < N_CARDS:
        raise refuse(Code.UNKNOWN_CARD, f"unknown card id {card!r}", card=card)
    return card


def check_distinct(cards: Iterable[int]) -> tuple[int, ...]:
    out = tuple(check_card(c) for c in cards)
    if len(set(out)) != len(out):
        raise refuse(Code.DUPLICATE_CARD, "a card is listed twice")
    return out
