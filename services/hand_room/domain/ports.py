"""What the room domain needs from outside: the rules of the game (a port;
``hand_room.rules_port`` has the in-process and the gRPC adapters)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from hand_engine import Action, DealSeeds, Options, RoundState


class RulesPort(Protocol):
    async def start_round(self, options: Options, n: int, *, seed: int, dealer: int | None,
                          round_no: int, fair: DealSeeds | None = None) -> tuple[RoundState, Sequence[Any]]: ...

    async def apply(self, state: RoundState, seat: int, action: Action) -> tuple[RoundState, Sequence[Any]]: ...

    async def auto_turn(self, state: RoundState) -> list[Action]: ...
