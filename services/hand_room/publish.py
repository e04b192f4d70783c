"""What the outbox relay publishes of a stored room event, per topic.

The relay renders one entry for each of its routes in turn; the stored bytes
are decoded once per entry (the last entry's event is kept), not once per topic.
"""

from __future__ import annotations

from hand_infra.outbox import OutboxEntry

from hand_table import Recorded, for_seat, private
from hand_wire import decode, encode

_last: tuple[OutboxEntry | None, Recorded | None] = (None, None)


def _decoded(entry: OutboxEntry) -> Recorded:
    global _last
    seen, rec = _last
    if seen is not entry or rec is None:
        rec = decode(entry.payload)
        _last = (entry, rec)
    return rec


def private_bytes(rec: Recorded) -> bytes:
    """hand.room-events: complete but for seat credentials."""
    return encode(private(rec))


def public_bytes(rec: Recorded) -> bytes:
    """hand.room-events-public: as a spectator sees it."""
    return encode(for_seat(rec, None))


def private_value(entry: OutboxEntry) -> bytes:
    return private_bytes(_decoded(entry))


def public_value(entry: OutboxEntry) -> bytes:
    return public_bytes(_decoded(entry))


def values(rec: Recorded) -> tuple[bytes, bytes]:
    """A committed event rendered for the relay's routes, in their order (bootstrap):
    hand.room-events, then hand.room-events-public (``OutboxRelay.publish_direct``)."""
    return private_bytes(rec), public_bytes(rec)
