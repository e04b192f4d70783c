"""What the room domain needs from outside: the rules of the game (a port;
``LocalRules`` here is the engine in-process; ``hand_room.rules_port`` adds the gRPC adapter)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import hand_engine as eng
from hand_engine import Action, DealSeeds, Options, RoundState


class RulesPort(Protocol):
    async def start_round(self, options: Options, n: int, *, seed: int, dealer: int | None,
                          round_no: int, fair: DealSeeds | None = None) -> tuple[RoundState, Sequence[Any]]: ...

    async def apply(self, state: RoundState, seat: int, action: Action) -> tuple[RoundState, Sequence[Any]]: ...

    async def auto_turn(self, state: RoundState) -> list[Action]: ...


class LocalRules:
    """The engine called in-process (unit tests, single-process deployments)."""

    async def start_round(self, options, n, *, seed, dealer, round_no, fair=None):
        return eng.start_round(options, n, seed=seed, dealer=dealer, round_no=round_no, fair=fair)

    async def apply(self, state, seat, action):
        return eng.apply(state, seat, action)

    async def auto_turn(self, state):
        return eng.auto_turn(state)
