"""Strict seq order per room over an at-least-once stream, and safe Kafka offsets.

:class:`Hold` is the ledger's Deduper (``hand_infra.outbox.Deduper``) that
also remembers where each held event came from. An event ahead of a gap is
held until the gap fills; one below the room's next seq is a duplicate. The
offset that may be committed for a partition is the lowest offset still
held there (or one past the last offset seen): a held event is not durable
yet, so after a crash it must be delivered again.

A room's next seq is seeded from the ledger's own archive (what it has
already recorded) before its first event is offered.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass

from hand_room.domain import Recorded, encode


@dataclass(frozen=True)
class Delivered:
    """One ``hand.room-events`` message: the typed event, its bytes and where it was read."""

    recorded: Recorded
    raw: bytes = b""  # the message value as published ("": encode ``recorded``)
    partition: Hashable = None  # a TopicPartition (None in tests without Kafka)
    offset: int = -1

    @property
    def room_id(self) -> str:
        return self.recorded.room_id

    @property
    def seq(self) -> int:
        return self.recorded.seq

    @property
    def kind(self) -> str:
        return self.recorded.kind

    @property
    def payload(self) -> bytes:
        """What the archive stores: the ``hand.v1.RoomEvent`` bytes as published."""
        return self.raw or encode(self.recorded)


class Hold:
    """Releases each room's events exactly once, in seq order; see the module doc."""

    def __init__(self) -> None:
        self._next: dict[str, int] = {}
        self._held: dict[str, dict[int, Delivered]] = {}
        self._held_offsets: dict[Hashable, dict[int, int]] = {}  # partition -> offset -> count
        self._seen: dict[Hashable, int] = {}  # partition -> one past the highest offset offered
        self._partition_rooms: dict[Hashable, set[str]] = {}
        self.duplicates = 0

    def known(self, room_id: str) -> bool:
        """True once the room's next seq is known (seeded or seen)."""
        return room_id in self._next

    def seed(self, room_id: str, next_seq: int) -> None:
        """Expect ``next_seq`` next for ``room_id`` (from the archive)."""
        self._next[room_id] = next_seq

    def next_seq(self, room_id: str) -> int | None:
        return self._next.get(room_id)

    def seen(self, partition: Hashable, offset: int) -> None:
        """Note an offset read from ``partition`` that carries nothing to hold (bad message)."""
        self._seen[partition] = max(self._seen.get(partition, 0), offset + 1)

    def offer(self, item: Delivered) -> list[Delivered]:
        """Take one delivered event; return the events now ready, in seq order."""
        self.seen(item.partition, item.offset)
        self._partition_rooms.setdefault(item.partition, set()).add(item.room_id)
        expected = self._next.setdefault(item.room_id, 0)
        held = self._held.setdefault(item.room_id, {})
        if item.seq < expected or item.seq in held:
            self.duplicates += 1
            return []
        held[item.seq] = item
        offsets = self._held_offsets.setdefault(item.partition, {})
        offsets[item.offset] = offsets.get(item.offset, 0) + 1
        ready: list[Delivered] = []
        while expected in held:
            out = held.pop(expected)
            self._release(out)
            ready.append(out)
            expected += 1
        self._next[item.room_id] = expected
        if not held:
            del self._held[item.room_id]
        return ready

    def _release(self, item: Delivered) -> None:
        offsets = self._held_offsets[item.partition]
        offsets[item.offset] -= 1
        if not offsets[item.offset]:
            del offsets[item.offset]

    def waiting(self) -> dict[str, tuple[int, int]]:
        """Rooms held up by a gap: ``room_id -> (next expected, lowest held)``."""
        return {room: (self._next[room], min(held)) for room, held in self._held.items() if held}

    def commit_offsets(self) -> dict[Hashable, int]:
        """Per partition seen: the offset that is safe to commit (see the module doc)."""
        safe = {}
        for partition, seen in self._seen.items():
            held = self._held_offsets.get(partition)
            safe[partition] = min(held) if held else seen
        return safe

    def forget(self, room_id: str) -> None:
        """Drop a finished room (a later duplicate re-seeds it from the archive)."""
        if not self._held.get(room_id):
            self._next.pop(room_id, None)
            self._held.pop(room_id, None)
            for rooms in self._partition_rooms.values():
                rooms.discard(room_id)

    def drop_partitions(self, partitions: Iterable[Hashable]) -> None:
        """Forget everything read from ``partitions`` (revoked, or to be re-read)."""
        for partition in partitions:
            for room in self._partition_rooms.pop(partition, set()):
                self._next.pop(room, None)
                self._held.pop(room, None)
            self._held_offsets.pop(partition, None)
            self._seen.pop(partition, None)

    def reset(self) -> None:
        """Forget everything (after a failed transaction: re-read from the committed offsets)."""
        self.__init__()
