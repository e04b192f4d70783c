"""The public history of a round, as one seat has seen it.

Input: the round's engine events (``hand_engine.events``) each redacted for
the seat with ``hand_engine.redact(event, seat)`` — exactly what that seat's
Watch stream carries. Output: what a human at the seat could remember, per
seat: the cards it took from the pile (and returned), the pile tops it let
pass (it drew from the stock instead), its discards, the cards it put on the
table, its stock draws; and which cards are publicly known to be in a
seat's hand (taken from the pile or a joker retrieved, and not shown since).

Pure: a function of the event list only. A redacted event holds no hidden
card (another seat's stock draw is ``None``; deck and rebuild orders are
empty), so nothing here can depend on hidden cards.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from hand_engine import (
    CardDiscarded, CardsLaidOff, DiscardTaken, JokerRetrieved, MeldsLaid, RoundStarted, StockDrawn,
    StockRebuilt, TakeReturned, TurnStarted,
)


@dataclass
class SeatHistory:
    taken: list[int] = field(default_factory=list)  # pile cards taken and kept (not returned)
    returned: list[int] = field(default_factory=list)  # takes given back
    passed: list[int] = field(default_factory=list)  # pile tops left at a stock draw
    discarded: list[int] = field(default_factory=list)
    laid: list[int] = field(default_factory=list)  # cards put on the table (melds, lay-offs)
    stock_draws: int = 0
    turns: int = 0


@dataclass
class History:
    n: int
    seats: list[SeatHistory]
    #: card -> seat: cards publicly known to be in that seat's hand
    known: dict[int, int]
    #: the discard pile as the events built it (bottom first)
    pile: list[int]
    rebuilds: int = 0

    def known_in(self, seat: int) -> set[int]:
        return {c for c, s in self.known.items() if s == seat}


def empty(n: int) -> History:
    return History(n, [SeatHistory() for _ in range(n)], {}, [])


def public_history(events: Iterable[object], n: int | None = None) -> History:
    """The public history from a round's redacted events (``RoundStarted`` first)."""
    h: History | None = empty(n) if n is not None else None
    for e in events:
        if isinstance(e, RoundStarted):
            h = empty(e.n_seats)
            continue
        if h is None:
            raise ValueError("a history starts with RoundStarted (or give n)")
        _step(h, e)
    if h is None:
        raise ValueError("no events and no seat count")
    return h


def _shown(h: History, cards: Iterable[int]) -> None:
    for c in cards:
        h.known.pop(c, None)


def _step(h: History, e: object) -> None:
    if isinstance(e, TurnStarted):
        h.seats[e.seat].turns += 1
    elif isinstance(e, StockDrawn):
        s = h.seats[e.seat]
        s.stock_draws += 1
        if h.pile:
            s.passed.append(h.pile[-1])
    elif isinstance(e, DiscardTaken):
        h.seats[e.seat].taken.append(e.card)
        if h.pile and h.pile[-1] == e.card:
            h.pile.pop()
        h.known[e.card] = e.seat
    elif isinstance(e, TakeReturned):
        s = h.seats[e.seat]
        if e.card in s.taken:
            s.taken.remove(e.card)
        s.returned.append(e.card)
        h.pile.append(e.card)
        h.known.pop(e.card, None)
    elif isinstance(e, MeldsLaid):
        cards = [c for m in e.melds for c in m.cards]
        h.seats[e.seat].laid.extend(cards)
        _shown(h, cards)
    elif isinstance(e, CardsLaidOff):
        h.seats[e.seat].laid.extend(e.cards)
        _shown(h, e.cards)
    elif isinstance(e, JokerRetrieved):
        h.seats[e.seat].laid.extend(e.cards)
        _shown(h, e.cards)
        h.known[e.joker] = e.seat
    elif isinstance(e, CardDiscarded):
        h.seats[e.seat].discarded.append(e.card)
        h.pile.append(e.card)
        h.known.pop(e.card, None)
    elif isinstance(e, StockRebuilt):
        h.rebuilds += 1
        h.pile = h.pile[-1:] if h.pile and e.size == len(h.pile) - 1 else []
