"""Strict seq order per room over an at-least-once stream, and safe Kafka offsets.

:class:`Hold` is ``hand_infra.outbox.Deduper`` (the one per-room seq order)
plus where each held event came from. An event ahead of a gap is
held until the gap fills; one below the room's next seq is a duplicate. The
offset that may be committed for a partition is the lowest offset still
held there (or one past the last offset seen): a held event is not durable
yet, so after a crash it must be delivered again.

A room's next seq is seeded from the ledger's own archive (what it has
already recorded) before its first event is offered.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable

from hand_infra.dedupe import Deduper
from hand_wire import Delivered

__all__ = ["Hold"]


class Hold:
    """Releases each room's events exactly once, in seq order; see the module doc."""

    def __init__(self) -> None:
        self._order: Deduper[Delivered] = Deduper(from_start=True)
        self._held_offsets: dict[Hashable, dict[int, int]] = {}  # partition -> offset -> count
        self._seen: dict[Hashable, int] = {}  # partition -> one past the highest offset offered
        self._partition_rooms: dict[Hashable, set[str]] = {}

    @property
    def duplicates(self) -> int:
        return self._order.duplicates

    def known(self, room_id: str) -> bool:
        """True once the room's next seq is known (seeded or seen)."""
        return self._order.next_seq(room_id) is not None

    def seed(self, room_id: str, next_seq: int) -> None:
        """Expect ``next_seq`` next for ``room_id`` (from the archive)."""
        self._order.seed(room_id, next_seq)

    def next_seq(self, room_id: str) -> int | None:
        return self._order.next_seq(room_id)

    def seen(self, partition: Hashable, offset: int) -> None:
        """Note an offset read from ``partition`` that carries nothing to hold (bad message)."""
        self._seen[partition] = max(self._seen.get(partition, 0), offset + 1)

    def offer(self, item: Delivered) -> list[Delivered]:
        """Take one delivered event; return the events now ready, in seq order."""
        self.seen(item.partition, item.offset)
        self._partition_rooms.setdefault(item.partition, set()).add(item.room_id)
        duplicates = self._order.duplicates
        ready = self._order.offer(item.room_id, item.seq, item)
        if self._order.duplicates == duplicates:  # held (and maybe released at once)
            offsets = self._held_offsets.setdefault(item.partition, {})
            offsets[item.offset] = offsets.get(item.offset, 0) + 1
        for out in ready:
            self._release(out)
        return ready

    def _release(self, item: Delivered) -> None:
        offsets = self._held_offsets[item.partition]
        offsets[item.offset] -= 1
        if not offsets[item.offset]:
            del offsets[item.offset]

    def waiting(self) -> dict[str, tuple[int, int]]:
        """Rooms held up by a gap: ``room_id -> (next expected, lowest held)``."""
        return self._order.waiting()

    def commit_offsets(self) -> dict[Hashable, int]:
        """Per partition seen: the offset that is safe to commit (see the module doc)."""
        safe = {}
        for partition, seen in self._seen.items():
            held = self._held_offsets.get(partition)
            safe[partition] = min(held) if held else seen
        return safe

    def forget(self, room_id: str) -> None:
        """Drop a finished room (a later duplicate re-seeds it from the archive)."""
        if room_id not in self._order.waiting():
            self._order.forget(room_id)
            for rooms in self._partition_rooms.values():
                rooms.discard(room_id)

    def drop_partitions(self, partitions: Iterable[Hashable]) -> None:
        """Forget everything read from ``partitions`` (revoked, or to be re-read)."""
        for partition in partitions:
            for room in self._partition_rooms.pop(partition, set()):
                self._order.forget(room)
            self._held_offsets.pop(partition, None)
            self._seen.pop(partition, None)

    def reset(self) -> None:
        """Forget everything (after a failed transaction: re-read from the committed offsets)."""
        self.__init__()
