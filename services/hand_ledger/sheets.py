"""Score sheets and match results as docs/rules.md §9–§10 record them (pure).

A round's lines come from its ``RoundScored`` result (the engine's
``RoundResult``) plus the running totals before it; the match result comes
from ``MatchEnded`` (the engine's standings) plus the sheet, which tells how
a tie for the lowest total after the fixed rounds was broken.

A unit is a seat, or a team (0 = seats 0 and 2, 1 = seats 1 and 3) in
partnership, where team totals decide the match and each player's own line
is recorded too (a partner of the player who went out scores 0).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from hand_engine import (
    FEWER_PENALTY_POINTS, MOST_OUTS, NO_TIE, PLAYOFF, SHARED, STILL_TIED, RoundResult, break_tie, unit_of,
    unit_seats, units,
)
from hand_engine import Standing as Totals  # a unit's total, outs and penalty points
from hand_table import MatchEnded

OUTCOMES = (NO_TIE, MOST_OUTS, FEWER_PENALTY_POINTS, STILL_TIED, PLAYOFF, SHARED)


@dataclass(frozen=True)
class Line:
    """One seat's line of one round."""

    seat: int
    player_id: str
    opened: bool
    opening_total: int | None
    cards_left: tuple[int, ...]
    cards_value: int
    score: int
    running_total: int


@dataclass(frozen=True)
class TeamLine:
    team: int
    score: int
    running_total: int


@dataclass(frozen=True)
class ScoredRound:
    round_no: int
    playoff: bool
    dealer: int
    finish: str  # normal | hand | exhausted | void
    winner: int | None
    multiplier: int
    lines: tuple[Line, ...]
    teams: tuple[TeamLine, ...] = ()

    def unit_score(self, unit: int, partnership: bool) -> int:
        return self.teams[unit].score if partnership else self.lines[unit].score


@dataclass(frozen=True)
class Standing:
    unit: int
    seats: tuple[int, ...]
    player_ids: tuple[str, ...]
    total: int
    regular_total: int
    outs: int
    penalty_points: int
    place: int
    winner: bool


@dataclass(frozen=True)
class Outcome:
    """A match result: winners, standings and how a tie was broken."""

    winners: tuple[int, ...]
    standings: tuple[Standing, ...]
    outcome: str  # one of OUTCOMES
    tied: tuple[int, ...]  # units tied for the lowest total after the fixed rounds
    playoff_rounds: int
    left_seats: tuple[int, ...] = ()  # human seats away when the match ended (decision 0027)


def score_round(result: RoundResult, *, round_no: int, dealer: int, fixed_rounds: int,
                player_ids: Mapping[int, str], before: Mapping[int, int],
                teams_before: Mapping[int, int]) -> ScoredRound:
    """The sheet rows of a round from its result and the running totals before it."""
    lines = tuple(
        Line(seat=s.seat, player_id=player_ids.get(s.seat, ""), opened=s.opened,
             opening_total=s.opening_total, cards_left=tuple(s.cards_left), cards_value=s.cards_value,
             score=s.score, running_total=before.get(s.seat, 0) + s.score)
        for s in sorted(result.seats, key=lambda s: s.seat))
    teams = tuple(TeamLine(t, score, teams_before.get(t, 0) + score)
                  for t, score in enumerate(result.team_scores))
    return ScoredRound(round_no=round_no, playoff=round_no > fixed_rounds, dealer=dealer,
                       finish=result.finish, winner=result.winner, multiplier=result.multiplier,
                       lines=lines, teams=teams)


def tie_outcome(tie_break: str, tied: Sequence[int], table: Mapping[int, Totals]) -> str:
    """How a tie between ``tied`` units was broken under ``tie_break`` (the engine's rule)."""
    return break_tie(tie_break, tied, table)[0]


def places(units: Sequence[int], winners: Sequence[int], table: Mapping[int, Totals]) -> dict[int, int]:
    """Competition ranking: winners 1st; the others by total, then more outs, fewer penalties."""
    def key(u: int) -> tuple[int, int, int, int]:
        s = table[u]
        return (0 if u in winners else 1, s.total, -s.outs, s.penalty_points)

    return {u: 1 + sum(1 for v in units if key(v) < key(u)) if u not in winners else 1 for u in units}


def match_outcome(ended: MatchEnded, rounds: Sequence[ScoredRound], *, n: int, partnership: bool,
                  fixed_rounds: int, tie_break: str, player_ids: Mapping[int, str]) -> Outcome:
    """The result of a ``MatchEnded`` event, with the tie-break outcome from the sheet."""
    table = {s.unit: s for s in ended.standings}
    units = sorted(table)
    winners = tuple(ended.winners)
    regular = {u: sum(r.unit_score(u, partnership) for r in rounds if not r.playoff) for u in units}
    low = min(regular.values())
    tied = tuple(u for u in units if regular[u] == low)
    tied = tied if len(tied) > 1 else ()
    place = places(units, winners, table)
    standings = tuple(
        Standing(unit=u, seats=unit_seats(u, partnership),
                 player_ids=tuple(player_ids.get(s, "") for s in unit_seats(u, partnership)),
                 total=table[u].total, regular_total=regular[u], outs=table[u].outs,
                 penalty_points=table[u].penalty_points, place=place[u], winner=u in winners)
        for u in units)
    return Outcome(winners=winners, standings=standings, outcome=tie_outcome(tie_break, tied, table),
                   tied=tied, playoff_rounds=sum(1 for r in rounds if r.playoff))


def provisional_standings(rounds: Sequence[ScoredRound], *, n: int, partnership: bool,
                          player_ids: Mapping[int, str]) -> tuple[Standing, ...]:
    """Standings before the match's end, from the sheet (no place, no winner yet)."""
    out = []
    for u in units(n, partnership):
        scores = [r.unit_score(u, partnership) for r in rounds]
        seats = unit_seats(u, partnership)
        out.append(Standing(
            unit=u, seats=seats, player_ids=tuple(player_ids.get(s, "") for s in seats),
            total=sum(scores), regular_total=sum(scores),
            outs=sum(1 for r in rounds if r.winner is not None and unit_of(r.winner, partnership) == u),
            penalty_points=sum(max(0, score) for score in scores), place=0, winner=False))
    return tuple(out)
