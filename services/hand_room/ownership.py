"""Who owns each room: the owners' consumer group decides, and every member learns
the whole map at each rebalance (Kafka Streams' ``application.server`` model).

Each member puts its endpoint (gRPC address, browser URL, instance id) in the
user data of its JoinGroup metadata; the group leader's assignor deals the
partitions of ``hand.room-commands`` round-robin and sends every member, with
its own partitions, the map partition → endpoint. So any instance can say
where a room is served (``RoomInfo.owner``, ``ROOM_MOVED``) without a lookup
table, and the map changes exactly when ownership does.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import structlog
from aiokafka.coordinator.assignors.abstract import AbstractPartitionAssignor
from aiokafka.coordinator.protocol import ConsumerProtocolMemberAssignment, ConsumerProtocolMemberMetadata

from .partitions import partition_of

log = structlog.get_logger("hand_room.ownership")
ASSIGNOR_NAME = "hand-owner-map"


@dataclass(frozen=True)
class Endpoint:
    """Where an instance serves its rooms."""

    address: str
    web_url: str
    instance_id: str

    def to_json(self) -> list[str]:
        return [self.address, self.web_url, self.instance_id]

    @classmethod
    def from_json(cls, raw) -> Endpoint | None:
        if isinstance(raw, list) and len(raw) == 3 and all(isinstance(x, str) for x in raw):
            return cls(*raw)
        return None


class OwnershipMap:
    """The last assignment the group made: partition → the owner's endpoint."""

    def __init__(self, me: Endpoint, partitions: int) -> None:
        self.me = me
        self.partitions = partitions
        self._owners: dict[int, Endpoint] = {}
        self.changes = 0  # assignments seen (streams re-announce their presence on a change)
        self.listeners: list = []  # called with no argument after each change

    def owner_of(self, room_id: str) -> Endpoint | None:
        """The room's owner as the group last said, or None while nobody holds it."""
        return self._owners.get(partition_of(room_id, self.partitions))

    def update(self, owners: Mapping[int, Endpoint]) -> None:
        self._owners = dict(owners)
        self.changes += 1
        log.info("ownership_map", partitions=len(self._owners),
                 instances=len({e.instance_id for e in self._owners.values()}))
        for listener in list(self.listeners):
            listener()

    def assignor(self) -> type[AbstractPartitionAssignor]:
        """An assignor class bound to this map (aiokafka calls assignors' classmethods)."""
        return type("OwnerMapAssignor", (_OwnerMapAssignor,), {"ownership": self})


class _OwnerMapAssignor(AbstractPartitionAssignor):
    name = ASSIGNOR_NAME
    version = 0
    ownership: OwnershipMap

    @classmethod
    def metadata(cls, topics: Iterable[str]) -> ConsumerProtocolMemberMetadata:
        user_data = json.dumps(cls.ownership.me.to_json()).encode()
        return ConsumerProtocolMemberMetadata(cls.version, list(topics), user_data)

    @classmethod
    def assign(cls, cluster, members: Mapping[str, ConsumerProtocolMemberMetadata]
               ) -> dict[str, ConsumerProtocolMemberAssignment]:
        ids = sorted(members)
        endpoints = {m: _endpoint(members[m].user_data) for m in ids}
        topics = sorted({t for meta in members.values() for t in meta.subscription})
        dealt: dict[str, dict[str, list[int]]] = {m: {} for m in ids}
        owners: dict[int, list[str]] = {}
        i = 0
        for topic in topics:
            for p in sorted(cluster.partitions_for_topic(topic) or ()):
                subscribed = [m for m in ids if topic in members[m].subscription]
                if not subscribed:
                    continue
                member = subscribed[i % len(subscribed)]
                i += 1
                dealt[member].setdefault(topic, []).append(p)
                if endpoints[member] is not None:
                    owners[p] = endpoints[member].to_json()
        user_data = json.dumps({str(p): e for p, e in owners.items()}).encode()
        return {m: ConsumerProtocolMemberAssignment(cls.version, sorted(dealt[m].items()), user_data)
                for m in ids}

    @classmethod
    def on_assignment(cls, assignment: ConsumerProtocolMemberAssignment) -> None:
        try:
            raw = json.loads(assignment.user_data or b"{}")
            owners = {int(p): e for p, v in raw.items() if (e := Endpoint.from_json(v)) is not None}
        except (ValueError, TypeError, AttributeError):
            log.warning("ownership_map_unreadable")
            owners = {}
        cls.ownership.update(owners)


def _endpoint(user_data: bytes | None) -> Endpoint | None:
    try:
        return Endpoint.from_json(json.loads(user_data or b"null"))
    except ValueError:
        return None
