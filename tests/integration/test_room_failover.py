"""Two room-service processes share a broker and a store; the owner of a running
match is killed with SIGKILL mid-turn; the other takes the room over and the match
finishes with every accepted move stored, and streamed, exactly once."""

from __future__ import annotations

from pathlib import Path

import pytest

from .failover_support import run_failover

#: Kill-to-next-accepted-move bound the test holds (docs/decisions/0009: p50 2.15 s, max 2.32 s over 5 runs;
#: before the fast group settings: ~10 s).
FAILOVER_BOUND_S = 3.0


@pytest.mark.timeout(240)
async def test_sigkill_of_the_owner_mid_turn_hands_the_room_over_without_loss(tmp_path: Path) -> None:
    result = await run_failover(tmp_path)
    assert result["failover_s"] <= FAILOVER_BOUND_S, result
