"""Which partition of hand.room-commands (and so which owner) a room belongs to: Kafka's
default partitioner of the room id (hand_infra.topics.partition_of)."""

from __future__ import annotations

from hand_infra.topics import partition_of

__all__ = ["partition_of"]
