"""Skill ratings from match places with openskill (Weng-Lin, Plackett-Luce model).

One rating per player id and kind of play (free-for-all; partnership), decision
0027. A match is rated once, when it ends: each unit
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


def take(old: Rating, rated: Rating, *, share: float, left: bool) -> Rating | None:
    """What a human seat's player keeps of ``rated`` (the model's update from the seat's place),
    by what the player played (decision 0027); ``None``: not rated.

    - The player left the match (away at its end): the seat's result counts in full, but
      only against the player: the bot that finished the match earns nothing for them
      (a rise of the ordinal is not taken).
    - Otherwise the update is scaled by the player's share of the seat's moves (bot-played
      turns earn nothing, nor cost anything); a seat its player never moved is not rated.
    """
    if left:
        return rated if rated.ordinal <= old.ordinal else old
    if share <= 0:
        return None
    if share >= 1:
        return rated
    return Rating(old.mu + share * (rated.mu - old.mu), old.sigma + share * (rated.sigma - old.sigma))
