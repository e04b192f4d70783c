"""Duplicate scoring of a tournament (docs/decisions/0029-duplicate-tournaments.md): pure.

Every seat position of a deal holds the same cards at every table, so a seat's
raw score on a deal (its total of the deal's fixed rounds: penalty points, lower
is better) is compared only with the raw scores of the same seat position of
the same deal at the other tables: **1 matchpoint for each one it beats (a
lower score), 1/2 for each tie**. Standings add a seat's matchpoints over every
deal (higher first); the raw total over every deal breaks a tie (lower first);
both equal: the same place (competition ranking: 1, 1, 3).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Result:
    """One table's raw score of one deal at one seat position."""

    table: int
    deal: int
    seat: int
    score: int


@dataclass(frozen=True)
class Scored:
    """A result with its matchpoints against the same deal and seat at the other tables."""

    result: Result
    matchpoints: float


@dataclass(frozen=True)
class Standing:
    """One seat of one table (one entrant) over every deal."""

    place: int
    table: int
    seat: int
    matchpoints: float
    raw_total: int


def matchpoints(score: int, others: Iterable[int]) -> float:
    """1 for each other score that is higher (worse), 1/2 for each equal one."""
    return sum(1.0 if score < o else 0.5 if score == o else 0.0 for o in others)


def compare(results: Iterable[Result]) -> dict[tuple[int, int], list[Scored]]:
    """(deal, seat) -> its results at every table, in table order, with matchpoints."""
    groups: dict[tuple[int, int], list[Result]] = {}
    for r in results:
        groups.setdefault((r.deal, r.seat), []).append(r)
    out: dict[tuple[int, int], list[Scored]] = {}
    for key in sorted(groups):
        group = sorted(groups[key], key=lambda r: r.table)
        out[key] = [Scored(r, matchpoints(r.score, [o.score for o in group if o is not r])) for r in group]
    return out


def standings(compared: Mapping[tuple[int, int], list[Scored]]) -> list[Standing]:
    """Every (table, seat) ranked: matchpoints (higher first), then raw total (lower first)."""
    mp: dict[tuple[int, int], float] = {}
    raw: dict[tuple[int, int], int] = {}
    for scored in compared.values():
        for s in scored:
            key = (s.result.table, s.result.seat)
            mp[key] = mp.get(key, 0.0) + s.matchpoints
            raw[key] = raw.get(key, 0) + s.result.score
    order = sorted(mp, key=lambda k: (-mp[k], raw[k], k))
    lines: list[Standing] = []
    for i, key in enumerate(order):
        tied = lines and (lines[-1].matchpoints, lines[-1].raw_total) == (mp[key], raw[key])
        place = lines[-1].place if tied else i + 1
        lines.append(Standing(place, key[0], key[1], mp[key], raw[key]))
    return lines
