"""Skill ratings from match places with openskill (Weng-Lin, Plackett-Luce model).

One rating per player id. A match is rated once, when it ends: each unit
(a seat, or a team of two in partnership) is a team of the rating model,
ranked by its final place (shared wins are ties). Bot seats take part as
players of the model's prior rating and are never stored: their strength
is a level, not a person. See docs/decisions/0004-ledger-ratings.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

MODEL = PlackettLuce()


@dataclass(frozen=True)
class Rating:
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """The conservative estimate ``mu - 3 sigma`` (what leaderboards sort by)."""
        return self.mu - 3 * self.sigma


PRIOR = Rating(MODEL.mu, MODEL.sigma)


def rate(teams: Sequence[Sequence[Rating | None]], places: Sequence[int]) -> list[list[Rating]]:
    """New ratings of every member of ``teams`` (``None``: a bot, rated from the prior).

    ``places`` are the teams' final places (1 = best; equal places are ties).
    """
    if len(teams) != len(places) or len(teams) < 2:
        raise ValueError("rate needs at least two teams and one place per team")
    model_teams = [[MODEL.rating(mu=(r or PRIOR).mu, sigma=(r or PRIOR).sigma) for r in team]
                   for team in teams]
    rated = MODEL.rate(model_teams, ranks=[float(p) for p in places])
    return [[Rating(p.mu, p.sigma) for p in team] for team in rated]
