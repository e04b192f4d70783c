"""How many rooms a player and a peer may create: token buckets (``hand_common``'s
``Buckets``), so that nobody can fill an instance's memory with rooms. Refused with
RATE_LIMITED (RESOURCE_EXHAUSTED), params ``limit`` (rooms_per_player or
rooms_per_peer), ``per_s`` and ``retry_after_ms``."""

from __future__ import annotations

import math

from hand_common.ratelimit import Buckets, peer_host

from hand_table import RoomError

#: players and peers tracked at once (least recently seen dropped first)
TRACKED = 100_000


class CreationLimits:
    def __init__(self, per_player_per_min: int, per_peer_per_min: int) -> None:
        self._limits = [("rooms_per_player", per_player_per_min, Buckets(per_player_per_min / 60, per_player_per_min, TRACKED)),
                        ("rooms_per_peer", per_peer_per_min, Buckets(per_peer_per_min / 60, per_peer_per_min, TRACKED))]

    def take(self, player_id: str, peer: str | None) -> None:
        """Charge one room to ``player_id`` and to the peer's address, or refuse."""
        for (limit, per_min, buckets), key in zip(self._limits, (player_id, peer_host(peer)), strict=True):
            if per_min <= 0:
                continue
            wait = buckets.take(key)
            if wait > 0:
                raise RoomError("RATE_LIMITED", "too many rooms created", limit=limit,
                                per_s=round(per_min / 60, 3), retry_after_ms=math.ceil(wait * 1000))
