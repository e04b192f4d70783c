"""Where a play-now ticket's rating comes from (hand_room/matchmaking/ratings.py): a guest, or a
ledger that does not answer, is matched as a new player, quickly; the quit count is read from
PlayerStats only when the contract carries one."""

from __future__ import annotations

import time

from hand.v1 import ledger_service_pb2 as lpb
from hand_room.matchmaking.ratings import LedgerRatings, NoRatings, Standing, _quits


async def test_a_guest_or_an_unreachable_ledger_rates_as_a_new_player_without_waiting() -> None:
    assert await NoRatings().standing("Bearer x") == Standing(0.0, 0)
    ratings = LedgerRatings("127.0.0.1:1", timeout_s=0.3)  # nothing listens there
    try:
        assert await ratings.standing("") == Standing()  # a guest: the ledger is not asked
        began = time.monotonic()
        assert await ratings.standing("Bearer not-a-session") == Standing()
        assert time.monotonic() - began < 1.0
    finally:
        await ratings.close()


def test_the_quit_count_is_zero_until_player_stats_carries_one() -> None:
    fields = lpb.PlayerStats.DESCRIPTOR.fields_by_name
    expected = next((n for n in ("quits", "matches_quit", "quit_count") if n in fields), None)
    stats = lpb.PlayerStats()
    if expected is None:
        assert _quits(stats) == 0
    else:
        setattr(stats, expected, 3)
        assert _quits(stats) == 3
