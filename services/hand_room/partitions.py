"""Which partition of hand.room-commands (and so which owner) a room belongs to."""

from __future__ import annotations

from aiokafka.partitioner import murmur2


def partition_of(room_id: str, partitions: int) -> int:
    """The partition Kafka's default partitioner gives key ``room_id``."""
    return (murmur2(room_id.encode()) & 0x7FFFFFFF) % partitions
