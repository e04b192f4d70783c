"""Where a ticket's rating comes from: the ledger (``HAND_ROOM_LEDGER_ADDRESS``), read with the
caller's own session (the ledger answers a player's own statistics only), as the rules port
reaches the rules service. A guest, a player the ledger has not rated, or a ledger that does
not answer within ``timeout_s``: the rating of a new player (0, OpenSkill's first ordinal) —
matchmaking never waits on the ledger.

The recent quit count (``PlayerStats.recent_quits``: quits among the player's latest 10
finished matches; players who quit repeatedly wait longer, docs/decisions/0027) comes with it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Protocol

import structlog

log = structlog.get_logger("hand_room.matchmaking")
NEW_PLAYER = 0.0


@dataclass(frozen=True)
class Standing:
    rating: float = NEW_PLAYER
    quits: int = 0


class RatingsPort(Protocol):
    async def standing(self, authorization: str) -> Standing: ...


class NoRatings:
    """No ledger configured: everyone is matched as a new player."""

    async def standing(self, authorization: str) -> Standing:
        return Standing()


class LedgerRatings:
    def __init__(self, address: str, timeout_s: float = 1.0) -> None:
        import grpc

        from hand.v1 import ledger_service_pb2_grpc

        self.timeout_s = timeout_s
        self._channel = grpc.aio.insecure_channel(address)
        self._stub = ledger_service_pb2_grpc.LedgerServiceStub(self._channel)

    async def close(self) -> None:
        await self._channel.close()

    async def standing(self, authorization: str) -> Standing:
        if not authorization:
            return Standing()  # a guest
        from hand.v1 import ledger_service_pb2 as lpb

        try:
            res = await asyncio.wait_for(self._stub.GetPlayerStats(
                lpb.GetPlayerStatsRequest(), metadata=(("authorization", authorization),)), self.timeout_s)
        except Exception as exc:  # unrated (NOT_FOUND), or the ledger down: a new player's rating
            log.info("rating_unavailable", error=type(exc).__name__)
            return Standing()
        rating = res.stats.rating.ordinal if res.stats.HasField("rating") else NEW_PLAYER
        return Standing(rating, res.stats.recent_quits)
