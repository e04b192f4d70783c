"""Moves a seat can make (imperative names). Plain frozen data, no behaviour."""

from __future__ import annotations

from dataclasses import dataclass, field

#: a joker stand-in declaration: (joker card id, rank 1..13, suit 0..3)
Declaration = tuple[int, int, int]


@dataclass(frozen=True)
class DrawStock:
    """Draw the top card of the stock."""


@dataclass(frozen=True)
class TakeDiscard:
    """Take the top card of the discard pile."""


@dataclass(frozen=True)
class ReturnTake:
    """Put the card taken this turn back on the pile and go back to the draw step."""


@dataclass(frozen=True)
class MeldSpec:
    """One new meld: its cards (order is meaningless) and optional joker declarations."""

    cards: tuple[int, ...]
    declare: tuple[Declaration, ...] = ()


@dataclass(frozen=True)
class LayMelds:
    """Lay one or more new melds in one atomic submission (an opening when closed)."""

    melds: tuple[MeldSpec, ...]


@dataclass(frozen=True)
class LayOff:
    """Add cards from the hand to a meld on the table."""

    meld_id: int
    cards: tuple[int, ...]
    declare: tuple[Declaration, ...] = ()


@dataclass(frozen=True)
class RetrieveJoker:
    """Put the natural card(s) a joker stands for into a meld and take the joker."""

    meld_id: int
    joker: int
    cards: tuple[int, ...]


@dataclass(frozen=True)
class Discard:
    """Discard one card face up; ends the turn."""

    card: int


Action = DrawStock | TakeDiscard | ReturnTake | LayMelds | LayOff | RetrieveJoker | Discard

ACTION_TYPES = {
    "draw_stock": DrawStock,
    "take_discard": TakeDiscard,
    "return_take": ReturnTake,
    "lay_melds": LayMelds,
    "lay_off": LayOff,
    "retrieve_joker": RetrieveJoker,
    "discard": Discard,
}
ACTION_NAMES = {v: k for k, v in ACTION_TYPES.items()}
