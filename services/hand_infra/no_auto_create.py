"""No project client creates a topic by asking about it (docs/decisions/0019-topics-checked.md).

A Kafka metadata request names the topics it wants; from MetadataRequest v4 on it also
says whether the broker may create a missing one (``allow_auto_topic_creation``), with
the *broker's* defaults (Tansu: 4 partitions; Kafka: ``num.partitions``). aiokafka 0.14
always sends ``True`` and offers no option to change that, so after a broker restart a
producer's or consumer's first metadata request re-created a project topic with the
wrong partition count before :func:`hand_infra.topics.ensure_topics` ran.

:func:`forbid_auto_topic_creation` makes aiokafka send ``False`` in every metadata request
of this process (clients and admin clients alike): a missing topic is answered
UNKNOWN_TOPIC_OR_PARTITION (a producer waits for it, a consumer is assigned nothing
until it exists) and only ``ensure_topics`` creates topics. ``KafkaSettings``' kwargs
methods call it, so every client built from them is covered. Tansu 0.6 and Apache
Kafka both honour the flag (Kafka's ``auto.create.topics.enable`` is the broker-wide
switch; deploy/ may turn it off as well).
"""

from __future__ import annotations

from aiokafka import client as _client
from aiokafka.admin import client as _admin_client
from aiokafka.protocol.metadata import MetadataRequest

_MODULES = (_client, _admin_client)  # the aiokafka modules that build metadata requests


class NoAutoCreateMetadataRequest(MetadataRequest):
    """aiokafka's metadata request with ``allow_auto_topic_creation=False`` unless asked."""

    def __init__(self, topics: list[str] | None = None, allow_auto_topic_creation: bool | None = False) -> None:
        super().__init__(topics, allow_auto_topic_creation)


def forbid_auto_topic_creation() -> None:
    """Make every aiokafka metadata request of this process say "do not create". Idempotent.

    Raises ``RuntimeError`` if aiokafka no longer builds its requests the way this expects
    (an upgrade must be looked at, not silently lose the guarantee)."""
    for module in _MODULES:
        current = getattr(module, "MetadataRequest", None)
        if current is NoAutoCreateMetadataRequest:
            continue
        if current is not MetadataRequest:
            raise RuntimeError(f"{module.__name__}.MetadataRequest is {current!r}: check hand_infra.no_auto_create")
        module.MetadataRequest = NoAutoCreateMetadataRequest  # type: ignore[attr-defined]


def auto_topic_creation_forbidden() -> bool:
    """True once :func:`forbid_auto_topic_creation` is in effect."""
    return all(getattr(m, "MetadataRequest", None) is NoAutoCreateMetadataRequest for m in _MODULES)
