"""At-least-once delivery made exactly-once and in order, per room: what every consumer of
the relay's topics puts in front of its handler (the relay: ``hand_infra.outbox``)."""

from __future__ import annotations

from typing import Generic, TypeVar

T = TypeVar("T")


class Deduper(Generic[T]):
    """Turns an at-least-once stream into exactly-once, in order, per room.

    :meth:`offer` takes one delivered event and returns the events now ready,
    in seq order: none for a duplicate (seq already passed) or for an event
    ahead of a gap (held until the gap fills), several when a gap closes.
    ``from_start=True`` expects every room from seq 0; otherwise a room's
    first delivered seq is where it starts. :meth:`seed` sets a room's next
    seq, e.g. from the consumer's own tracking records after a restart.
    """

    def __init__(self, from_start: bool = True) -> None:
        self.from_start = from_start
        self._next: dict[str, int] = {}
        self._held: dict[str, dict[int, T]] = {}
        self.duplicates = 0

    def seed(self, room_id: str, next_seq: int) -> None:
        """Expect ``next_seq`` next for ``room_id``."""
        self._next[room_id] = next_seq

    def next_seq(self, room_id: str) -> int | None:
        """The seq expected next for ``room_id`` (None if never seen)."""
        return self._next.get(room_id)

    def waiting(self) -> dict[str, tuple[int, int]]:
        """Rooms held up by a gap: ``room_id -> (next expected, lowest held)``."""
        return {room: (self._next[room], min(held)) for room, held in self._held.items() if held}

    def forget(self, room_id: str) -> None:
        """Drop a finished room's state."""
        self._next.pop(room_id, None)
        self._held.pop(room_id, None)

    def offer(self, room_id: str, seq: int, item: T) -> list[T]:
        """Take one delivered event; return those now ready, in order."""
        expected = self._next.setdefault(room_id, 0 if self.from_start else seq)
        if seq < expected:
            self.duplicates += 1
            return []
        held = self._held.setdefault(room_id, {})
        if seq in held:
            self.duplicates += 1
            return []
        held[seq] = item
        ready: list[T] = []
        while expected in held:
            ready.append(held.pop(expected))
            expected += 1
        self._next[room_id] = expected
        if not held:
            del self._held[room_id]
        return ready
