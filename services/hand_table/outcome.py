"""``Decision``: what a command has produced so far. Each event is folded into the
room at once (``evolve``), so a handler's later checks see its effect; the caller
appends ``Decision.events`` and adopts ``Decision.room``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .events import Recorded, RoomEvent
from .projection import evolve
from .room import Room


@dataclass
class Decision:
    room: Room | None
    room_id: str
    now: float
    events: list[Recorded] = field(default_factory=list)
    rooms: list[Room] = field(default_factory=list)  # the room after each event
    seat: int | None = None  # the seat the command concerned (a join's new seat)
    refusal: Exception | None = None  # refused, but ``events`` still stand (see Act)

    def add(self, event: RoomEvent, after: Any = None) -> None:
        seq = self.room.seq if self.room is not None else 0
        rec = Recorded(self.room_id, seq, self.now, event)
        self.room = evolve(self.room, rec, after)
        self.events.append(rec)
        self.rooms.append(self.room)
