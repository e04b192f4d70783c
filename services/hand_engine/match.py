"""A match: rounds, running totals, the end and its tie-break (docs/rules.md §10)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from .deal import start_round
from .errors import Code, refuse
from .events import Event
from .options import Options
from .state import RoundResult, RoundState


@dataclass(frozen=True)
class Standing:
    unit: int  # seat, or team (0 = seats 0 and 2, 1 = seats 1 and 3) in partnership
    total: int
    outs: int
    penalty_points: int


def units(n: int, partnership: bool) -> tuple[int, ...]:
    """The scoring units of a match: the seats, or the two teams in partnership."""
    return (0, 1) if partnership else tuple(range(n))


def unit_of(seat: int, partnership: bool) -> int:
    """The unit a seat scores for: itself, or its team (seat % 2) in partnership."""
    return seat % 2 if partnership else seat


def unit_seats(unit: int, partnership: bool) -> tuple[int, ...]:
    """The seats of a unit: itself, or a team's two partners (team 0: 0 and 2; 1: 1 and 3)."""
    return (unit, unit + 2) if partnership else (unit,)


def partner_of(seat: int, partnership: bool) -> int | None:
    """A seat's partner: the seat opposite in partnership (its team's other seat); None otherwise."""
    if not partnership:
        return None
    return next(s for s in unit_seats(unit_of(seat, True), True) if s != seat)


def seat_after(seat: int, n: int) -> int:
    """The seat that plays after ``seat`` (and sits to its right: play goes counter-clockwise, §2)."""
    return (seat + 1) % n


@dataclass(frozen=True)
class MatchState:
    options: Options
    n: int
    seed: int
    results: tuple[RoundResult, ...] = ()
    dealers: tuple[int, ...] = ()
    contenders: tuple[int, ...] = ()  # units still contending in playoff rounds
    winners: tuple[int, ...] = ()  # set when the match is over
    over: bool = False

    @property
    def units(self) -> tuple[int, ...]:
        return units(self.n, self.options.partnership)

    @property
    def playoff(self) -> bool:
        return len(self.results) >= self.options.rounds and not self.over

    def unit_of(self, seat: int) -> int:
        return unit_of(seat, self.options.partnership)


def start_match(options: Options, n: int, seed: int = 0) -> MatchState:
    """A match of ``n`` seats; its options are ``options`` for them (``Options.seated``)."""
    return MatchState(options.seated(n), n, seed)


def round_score(match: MatchState, result: RoundResult, unit: int) -> int:
    if match.options.partnership:
        return result.team_scores[unit]
    return result.seats[unit].score


def standings(match: MatchState) -> tuple[Standing, ...]:
    out = []
    for u in match.units:
        scores = [round_score(match, r, u) for r in match.results]
        outs = sum(
            1 for r in match.results
            if r.winner is not None and match.unit_of(r.winner) == u
        )
        out.append(Standing(u, sum(scores), outs, sum(s for s in scores if s > 0)))
    return tuple(out)


def running_totals(match: MatchState) -> list[dict[int, int]]:
    """Per round, each unit's running total after it."""
    totals = {u: 0 for u in match.units}
    rows = []
    for r in match.results:
        for u in match.units:
            totals[u] += round_score(match, r, u)
        rows.append(dict(totals))
    return rows


def next_deal(match: MatchState) -> tuple[int | None, int]:
    """The next round's dealer and number: the dealer moves one seat on (``None`` for
    round 1: the seed picks), the number follows the rounds played."""
    if match.over:
        raise refuse(Code.MATCH_OVER, "the match is over")
    dealer = None if not match.dealers else (match.dealers[-1] + 1) % match.n
    return dealer, len(match.results) + 1


def next_round(match: MatchState) -> tuple[RoundState, tuple[Event, ...]]:
    """Deal the next round (see ``next_deal``)."""
    dealer, no = next_deal(match)
    return start_round(match.options, match.n, seed=match.seed, dealer=dealer, round_no=no)


NO_TIE, MOST_OUTS, FEWER_PENALTY_POINTS, STILL_TIED, PLAYOFF, SHARED = (
    "no_tie", "most_outs", "fewer_penalty_points", "still_tied", "playoff", "shared")


def break_tie(rule: str, tied: Sequence[int], table: Mapping[int, Standing]) -> tuple[str, tuple[int, ...]]:
    """A tie for the lowest total broken by the option ``tie_break`` (docs/rules.md §10): how
    (``NO_TIE`` … ``SHARED``) and the units left (the winners, or the playoff's contenders)."""
    left = tuple(tied)
    if len(left) < 2:
        return NO_TIE, left
    if rule == "shared":
        return SHARED, left
    if rule != "most_outs":
        return PLAYOFF, left
    best = max(table[u].outs for u in left)
    left = tuple(u for u in left if table[u].outs == best)
    if len(left) == 1:
        return MOST_OUTS, left
    fewest = min(table[u].penalty_points for u in left)
    left = tuple(u for u in left if table[u].penalty_points == fewest)
    return (FEWER_PENALTY_POINTS if len(left) == 1 else STILL_TIED), left


def record_round(match: MatchState, state: RoundState) -> MatchState:
    """Add a finished round; decide whether the match is over and who won."""
    if match.over:
        raise refuse(Code.MATCH_OVER, "the match is over")
    if state.result is None:
        raise refuse(Code.INVALID_ARGUMENT, "the round is not over")
    m = replace(match, results=(*match.results, state.result), dealers=(*match.dealers, state.dealer))
    if len(m.results) < m.options.rounds:
        return m
    table = {s.unit: s for s in standings(m)}
    pool = m.contenders or m.units
    low = min(table[u].total for u in pool)
    how, left = break_tie(m.options.tie_break, [u for u in pool if table[u].total == low], table)
    if how == NO_TIE:
        return replace(m, winners=left, over=True, contenders=())
    if how == PLAYOFF:
        return replace(m, contenders=left)  # another round
    return replace(m, winners=left, over=True)
