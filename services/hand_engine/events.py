"""Events (past tense) returned by the engine. Frozen data, no behaviour.

Events that reveal hidden cards say so in :func:`private_to` so that views can
redact them: a stock draw's card is visible only to the drawing seat; the deck
order and rebuild orders are visible to no seat.
"""

from __future__ import annotations

from dataclasses import dataclass

from .state import Meld, RoundResult


@dataclass(frozen=True)
class RoundStarted:
    round_no: int
    dealer: int
    starter: int
    n_seats: int
    seed: int | None  # secret (None in a redacted event)
    deck: tuple[int, ...]  # secret: never leaves the server in a view
    deal_version: int = 0  # public: how the deck derives (fair.py); 0 = from the match seed
    commitment: bytes = b""  # public: SHA-256 of the round's server seed (version 1)
    seat_seeds: tuple[str, ...] = ()  # public: each seat's seed the deal used (version 1)


@dataclass(frozen=True)
class TurnStarted:
    seat: int
    turn_no: int
    first_turn: bool
    opening_discard: bool


@dataclass(frozen=True)
class StockDrawn:
    seat: int
    card: int | None  # private to ``seat`` (None in others' redacted events)


@dataclass(frozen=True)
class DiscardTaken:
    seat: int
    card: int


@dataclass(frozen=True)
class TakeReturned:
    seat: int
    card: int


@dataclass(frozen=True)
class MeldsLaid:
    seat: int
    melds: tuple[Meld, ...]
    opening: bool  # this submission opened the seat (or its team)
    opening_total: int | None  # the seat's recorded opening total after this move
    threshold: int | None  # the threshold that applied (None when none did)


@dataclass(frozen=True)
class CardsLaidOff:
    seat: int
    meld: Meld  # the meld after the lay-off
    cards: tuple[int, ...]


@dataclass(frozen=True)
class JokerRetrieved:
    seat: int
    meld: Meld  # the meld after the retrieval
    joker: int
    cards: tuple[int, ...]


@dataclass(frozen=True)
class CardDiscarded:
    seat: int
    card: int


@dataclass(frozen=True)
class StockRebuilt:
    rebuild_no: int
    size: int
    order: tuple[int, ...]  # secret: never leaves the server in a view


@dataclass(frozen=True)
class RoundEnded:
    result: RoundResult


Event = (
    RoundStarted
    | TurnStarted
    | StockDrawn
    | DiscardTaken
    | TakeReturned
    | MeldsLaid
    | CardsLaidOff
    | JokerRetrieved
    | CardDiscarded
    | StockRebuilt
    | RoundEnded
)
