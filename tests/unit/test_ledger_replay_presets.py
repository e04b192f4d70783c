"""The replay check (issue 5) for every preset: a match played through the room
aggregate is re-run from its archive (recorded deck orders and actions) and
every recomputed engine event equals the recorded one."""

from __future__ import annotations

import pytest

from hand_engine import PRESETS, resolve
from hand_ledger.replay import check
from hand_wire import decode
from hand_sim.matches import play_match


def seats_for(preset: str) -> int:
    o = resolve(preset)
    return 4 if o.partnership else min(o.max_players, 5)


@pytest.mark.parametrize("preset", sorted(PRESETS))
async def test_every_recorded_move_replays_to_the_recorded_events(preset: str) -> None:
    run = await play_match(preset, seats_for(preset), rounds=1, seed=sum(map(ord, preset)),
                           room_id=f"room-{preset}")
    archived = [decode(e.payload) for e in run.events]  # as the archive gives them back
    result = check(archived)
    assert result.ok, result.mismatch
    assert result.events == len(archived) and result.moves > 10
    assert result.results >= 2  # at least one round result and the match result
