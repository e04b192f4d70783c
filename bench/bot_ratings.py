"""Each bot level's openskill rating from table rounds, through the ledger's own code.

Every round is a one-round match of its four seats, placed by round score,
rated with ``hand_ledger.ratings.rate`` from the prior of a new player, so a
level's rating sits on the scale a player's does.

Openskill updates one match at a time and its dynamics factor (τ) keeps σ
from shrinking below about 1.6, so the rating after the last round leans on
the last few hundred: over random orders of the same 2,000 table rounds a
level's ordinal moves with a standard deviation of about one point.

Besides that chronological rating the bench reports a bootstrap (as arena
leaderboards do for Elo): the rounds resampled with replacement in a random
order and rated again, ``BOOTSTRAP`` times (seeded, and the same whatever
order the rounds come in); the median μ, σ and ordinal, and the ordinal's
95 % interval.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "services") not in sys.path:
    sys.path.insert(0, str(ROOT / "services"))

from hand_ledger.ratings import PRIOR, Rating, rate  # noqa: E402

#: resamples of the rounds the bootstrap rates
BOOTSTRAP = 100


def in_order(rounds: Sequence[dict[str, Any]], levels: Sequence[str]) -> dict[str, Rating]:
    """The levels' ratings after rating ``rounds`` one after another (``levels``, ``scores``)."""
    current = {lv: PRIOR for lv in levels}
    for r in rounds:
        order = sorted(set(r["scores"]))
        places = [1 + order.index(x) for x in r["scores"]]
        new = rate([[current[lv]] for lv in r["levels"]], places)
        for lv, team in zip(r["levels"], new):
            current[lv] = team[0]
    return current


def _quantile(xs: Sequence[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


def ratings(rounds: Sequence[dict[str, Any]], levels: Sequence[str], samples: int = BOOTSTRAP,
            seed: int = 0) -> dict[str, dict[str, list[float]]]:
    """Per level: ``chronological`` [μ, σ, ordinal] in the rounds' order; ``median`` [μ, σ,
    ordinal] over ``samples`` bootstrap resamples; ``ordinal_ci`` its 2.5 / 97.5 % points."""
    chrono = in_order(rounds, levels)
    rng = random.Random(seed)
    pool = sorted(rounds, key=lambda r: (list(r["levels"]), list(r["scores"])))  # the order given is moot
    n = len(pool)
    boots = [in_order([pool[rng.randrange(n)] for _ in range(n)], levels) for _ in range(samples)] if n else []
    out: dict[str, dict[str, list[float]]] = {}
    for lv in levels:
        c = chrono[lv]
        entry = {"chronological": [c.mu, c.sigma, c.ordinal]}
        if boots:
            mus = [b[lv].mu for b in boots]
            sigmas = [b[lv].sigma for b in boots]
            ords = [b[lv].ordinal for b in boots]
            entry["median"] = [_quantile(mus, 0.5), _quantile(sigmas, 0.5), _quantile(ords, 0.5)]
            entry["ordinal_ci"] = [_quantile(ords, 0.025), _quantile(ords, 0.975)]
        else:
            entry["median"] = entry["chronological"]
            entry["ordinal_ci"] = [c.ordinal, c.ordinal]
        out[lv] = entry
    return out
