"""Where a play-now ticket's rating comes from (hand_room/matchmaking/ratings.py): a guest, or a
ledger that does not answer, is matched as a new player, quickly; a rated player's ordinal and
recent quits come from the ledger's GetPlayerStats, asked with the caller's own session."""

from __future__ import annotations

import time

import grpc

from hand.v1 import ledger_service_pb2 as lpb
from hand.v1 import ledger_service_pb2_grpc as lpb_grpc
from hand_room.matchmaking.ratings import LedgerRatings, NoRatings, Standing


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


class _Ledger(lpb_grpc.LedgerServiceServicer):
    def __init__(self) -> None:
        self.seen: list[str] = []

    async def GetPlayerStats(self, request, context):
        self.seen.append(dict(context.invocation_metadata()).get("authorization", ""))
        stats = lpb.PlayerStats(recent_quits=3)
        stats.rating.ordinal = 12.5
        return lpb.GetPlayerStatsResponse(stats=stats)


async def test_a_signed_in_players_rating_and_recent_quits_come_from_the_ledger_with_their_session() -> None:
    server = grpc.aio.server()
    ledger = _Ledger()
    lpb_grpc.add_LedgerServiceServicer_to_server(ledger, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    ratings = LedgerRatings(f"127.0.0.1:{port}")
    try:
        assert await ratings.standing("Bearer s1") == Standing(12.5, 3)
        assert ledger.seen == ["Bearer s1"]
    finally:
        await ratings.close()
        await server.stop(None)
