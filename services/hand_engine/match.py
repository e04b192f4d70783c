"""A match: rounds, running totals, the end and its tie-break (RULES.md §10)."""

from __future__ import annotations

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
        return (0, 1) if self.options.partnership else tuple(range(self.n))

    @property
    def playoff(self) -> bool:
        return len(self.results) >= self.options.rounds and not self.over

    def unit_of(self, seat: int) -> int:
        return seat % 2 if self.options.partnership else seat


def start_match(options: Options, n: int, seed: int = 0) -> MatchState:
    options.check_players(n)
    return MatchState(options, n, seed)


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


def next_round(match: MatchState) -> tuple[RoundState, tuple[Event, ...]]:
    """Deal the next round (dealer moves one seat; round 1's from the seed)."""
    if match.over:
        raise refuse(Code.MATCH_OVER, "the match is over")
    no = len(match.results) + 1
    dealer = None if not match.dealers else (match.dealers[-1] + 1) % match.n
    return start_round(match.options, match.n, seed=match.seed, dealer=dealer, round_no=no)


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
    tied = tuple(u for u in pool if table[u].total == low)
    if len(tied) == 1:
        return replace(m, winners=tied, over=True, contenders=())
    rule = m.options.tie_break
    if rule == "most_outs":
        best = max(table[u].outs for u in tied)
        tied = tuple(u for u in tied if table[u].outs == best)
        fewest = min(table[u].penalty_points for u in tied)
        tied = tuple(u for u in tied if table[u].penalty_points == fewest)
        return replace(m, winners=tied, over=True)
    if rule == "shared":
        return replace(m, winners=tied, over=True)
    return replace(m, contenders=tied)  # playoff: another round
