"""Immutable round state (frozen dataclasses and tuples only)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .options import Options

#: a joker's stand-in on the table: (joker id, rank 1..13, suit 0..3 or -1 if undetermined)
StandIn = tuple[int, int, int]


@dataclass(frozen=True)
class Meld:
    """A meld on the table.

    ``kind`` is ``"set"`` or ``"run"``. For a run, ``cards`` are ordered from the
    lowest position to the highest and ``low`` is the lowest position (1..12;
    position 14 is a high ace); ``suit`` is its suit. For a set, ``rank`` is its
    rank and ``cards`` are sorted by id. ``stand_ins`` gives each joker's card.
    """

    id: int
    owner: int
    kind: str
    cards: tuple[int, ...]
    stand_ins: tuple[StandIn, ...]
    value: int
    laid_turn: int
    suit: int = -1
    rank: int = 0
    low: int = 0

    def stand_in(self, joker: int) -> StandIn | None:
        for s in self.stand_ins:
            if s[0] == joker:
                return s
        return None


@dataclass(frozen=True)
class Turn:
    """What the turn of ``seat`` has done so far."""

    seat: int
    phase: str  # "draw" (must draw) | "play" (drawn; may act, then discard)
    opening_discard: bool = False  # the starter's first turn: a discard only
    first_turn: bool = False  # the seat's first turn in which it draws
    fresh: bool = False  # the seat had laid nothing on the table before this turn
    drawn: int | None = None  # card drawn from the stock this turn
    taken: int | None = None  # card taken from the pile (take in force)
    take_final: bool = False  # the take can no longer be returned
    take_met: bool = False  # the take's obligation is met
    took: bool = False  # a take happened this turn (even if returned)
    laid: tuple[int, ...] = ()  # ids of melds laid this turn
    layoffs: bool = False  # a lay-off or retrieval was made this turn
    foreign: bool = False  # a lay-off/retrieval touched a meld not laid this turn
    opened_now: bool = False  # the seat (or team) opened in this turn
    discard_only: bool = False  # after a below-threshold Hand submission


@dataclass(frozen=True)
class Seat:
    """A seat's round data."""

    hand: tuple[int, ...]  # sorted card ids
    opened: bool = False
    opening_total: int | None = None
    laid_any: bool = False  # has put any card on the table this round
    draw_turns: int = 0  # turns in which the seat drew


@dataclass(frozen=True)
class SeatResult:
    seat: int
    opened: bool
    opening_total: int | None
    cards_left: tuple[int, ...]
    cards_value: int
    score: int


@dataclass(frozen=True)
class RoundResult:
    finish: str  # "normal" | "hand" | "exhausted" | "void"
    winner: int | None
    multiplier: int
    seats: tuple[SeatResult, ...]
    team_scores: tuple[int, ...] = ()  # (team 0 = seats 0,2; team 1 = seats 1,3) in partnership

    def score_of(self, seat: int) -> int:
        return self.seats[seat].score


@dataclass(frozen=True)
class RoundState:
    """A round in progress (or ended: ``result`` is set)."""

    options: Options
    n: int
    dealer: int
    seed: int
    deck: tuple[int, ...]  # the dealt order d[0..105], d[0] on top
    seats: tuple[Seat, ...]
    stock: tuple[int, ...]  # top first
    pile: tuple[int, ...]  # bottom first; pile[-1] is the top
    melds: tuple[Meld, ...]
    turn: Turn
    round_no: int = 1
    next_meld_id: int = 1
    turn_no: int = 0  # turns started so far, the current included (starter's = 1)
    draw_turns: int = 0  # turns in which a player drew (for max_turns)
    rebuilds: int = 0
    rebuild_orders: tuple[tuple[int, ...], ...] = ()
    last_opening_total: int | None = None
    result: RoundResult | None = None
    deal_key: bytes = b""  # SECRET: a version-1 deal's key (fair.py), for the rebuilds; b"" in version 0

    @property
    def starter(self) -> int:
        return (self.dealer + 1) % self.n

    @property
    def over(self) -> bool:
        return self.result is not None

    def meld(self, meld_id: int) -> Meld | None:
        for m in self.melds:
            if m.id == meld_id:
                return m
        return None

    def team_of(self, seat: int) -> tuple[int, ...]:
        """Seats whose opening opens ``seat`` (itself, plus partner under team opening)."""
        if self.options.partnership and self.options.partnership_opening == "team":
            return (seat, (seat + 2) % 4)
        return (seat,)
