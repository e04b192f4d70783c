"""The ledger's scenario matches (``SCENARIOS``), played once per test process with
``hand_sim.play_match`` (whole matches through the room domain, in-process)."""

from __future__ import annotations

import asyncio
import functools

import pytest

from hand_sim.matches import MatchRun, Plan, play_match

# ------------------------------------------------------------------ scenarios
OPEN_THEN_OUT = Plan("KS QS JS KH QH JH KD QD JD 2C 3C 4C 5C 6C",
                     first=("KS QS JS", "KH QH JH", "KD QD JD"), then=("2C 3C 4C 5C 6C",))
HAND = Plan("KS QS JS 10S KH QH JH 10H KD QD JD KC QC JC",
            first=("KS QS JS 10S", "KH QH JH 10H", "KD QD JD", "KC QC JC"))
OPEN_KEEP_35 = Plan("9S 9H 9D 8S 8H 8D 7S 7H 7D 5C 5D 5H 10C 10D",
                    first=("9S 9H 9D", "8S 8H 8D", "7S 7H 7D"))  # keeps 5C 5D 5H 10C 10D = 35

#: name -> (play_match arguments, expected tie-break outcome, expected winners)
SCENARIOS: dict[str, tuple[dict, str, tuple[int, ...]]] = {
    # A: out, B: Hand, A: out -> 140 each; A has 2 outs, B 1 (docs/rules.md §10 most_outs)
    "most_outs": (dict(preset="hand", seats=2, rounds=3, max_turns=10,
                       plans={1: {0: OPEN_THEN_OUT}, 2: {1: HAND}, 3: {0: OPEN_THEN_OUT}}),
                  "most_outs", (0,)),
    # A: out; B: Hand while A opened holding 35 (x2); exhausted -> 140 each, 1 out each,
    # penalty points 170 against 200
    "fewer_penalty": (dict(preset="hand", seats=2, rounds=3, max_turns=10,
                           plans={1: {0: OPEN_THEN_OUT}, 2: {1: HAND, 0: OPEN_KEEP_35}, 3: {}}),
                      "fewer_penalty_points", (0,)),
    # one exhausted round: all three on 100, then a playoff round seat 1 wins
    "playoff": (dict(preset="hand", seats=3, rounds=1, max_turns=10, tie_break="playoff",
                     plans={1: {}, 2: {1: OPEN_THEN_OUT}}), "playoff", (1,)),
    "shared": (dict(preset="hand", seats=2, rounds=1, max_turns=10, tie_break="shared", plans={1: {}}),
               "shared", (0, 1)),
    "still_tied": (dict(preset="hand", seats=2, rounds=1, max_turns=10, plans={1: {}}),
                   "still_tied", (0, 1)),
    # void round, a Hand with three seats, an out
    "void": (dict(preset="hand", seats=3, rounds=3, max_turns=10, exhausted_round="void",
                  plans={1: {}, 2: {0: HAND}, 3: {1: OPEN_THEN_OUT}}), "no_tie", (0,)),
    # partnership: a Hand (+400 for the team that never opened), an exhausted round with
    # one seat opened, an out (the partner's line is 0)
    "partnership_hand": (dict(preset="partnership", seats=4, rounds=3, max_turns=10,
                              plans={1: {1: HAND}, 2: {0: OPEN_KEEP_35}, 3: {2: OPEN_THEN_OUT}}),
                         "no_tie", (1,)),
    "random_solo": (dict(preset="hand", seats=4, rounds=3, seed=3), "", ()),
    "random_partnership": (dict(preset="partnership", seats=4, rounds=1, seed=8), "", ()),
}


@functools.cache
def scenario_runs_cached() -> dict[str, MatchRun]:
    async def build() -> dict[str, MatchRun]:
        return {name: await play_match(room_id=f"room-{name}", **kw)
                for name, (kw, _, _) in SCENARIOS.items()}

    return asyncio.run(build())


@pytest.fixture
def scenario_runs() -> dict[str, MatchRun]:
    """Every scenario match, played once per test process."""
    return scenario_runs_cached()
