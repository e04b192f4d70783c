"""The room domain driven in-process for the unit tests: commands decided like the owner
does, the recorded events read back as the store would."""

from __future__ import annotations

import asyncio

from hand_wire import decode, encode
from hand_table import Command, decide
from hand_room.rules_port import LocalRules


class Room:
    """Applies commands like the owner does, keeping the recorded events."""

    def __init__(self) -> None:
        self.room = None
        self.events: list = []
        self.rules = LocalRules()

    def run(self, body, seat: int | None = None, now: float = 0.0):
        d = asyncio.run(decide(self.room, Command("r1", body, seat=seat), now, self.rules))
        # what is stored and read back is what the next decision sees
        self.events += [decode(encode(e)) for e in d.events]
        self.room = d.room
        return d

    def kinds(self) -> list[str]:
        return [e.kind for e in self.events]

    def of(self, cls) -> list:
        return [e.event for e in self.events if isinstance(e.event, cls)]
