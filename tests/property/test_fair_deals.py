"""Property (decision 0022): every round of every preset dealt provably fair
verifies from its public record alone: the commitment, the deal, every stock
rebuild and every move. ``HAND_FAIR_ROUNDS`` rounds per preset (default 3;
dananeer, whose rounds run to thousands of moves, plays one)."""

from __future__ import annotations

import os

import pytest

from hand_engine import PRESETS, resolve
from hand_table import for_seat, verify_deals
from hand_sim.matches import play_match

ROUNDS = int(os.environ.get("HAND_FAIR_ROUNDS", "3"))
SLOW = {"dananeer"}


def _match_rounds(wanted: int) -> int:
    return max(r for r in (1, 3, 5, 7, 9) if r <= max(wanted, 1))


@pytest.mark.parametrize("preset", sorted(PRESETS))
async def test_every_round_of_every_preset_verifies_from_the_public_record(preset: str) -> None:
    o = resolve(preset)
    n = 4 if o.partnership else min(o.max_players, 5)
    rounds = 1 if preset in SLOW else _match_rounds(ROUNDS)
    run = await play_match(preset, n, rounds=rounds, seed=sum(map(ord, preset)), fair=True,
                           room_id=f"fair-{preset}")
    checks = verify_deals(for_seat(r, None) for r in run.stored)
    assert len(checks) >= rounds
    bad = [c for c in checks if c.verdict != "verified"]
    assert not bad, bad
