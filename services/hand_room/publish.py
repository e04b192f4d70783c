"""What the outbox relay publishes of a stored room event, per topic."""

from __future__ import annotations

from hand_infra.outbox import OutboxEntry

from .domain import decode, encode, for_seat, private


def private_value(entry: OutboxEntry) -> bytes:
    """hand.room-events: complete but for seat credentials."""
    return encode(private(decode(entry.payload)))


def public_value(entry: OutboxEntry) -> bytes:
    """hand.room-events-public: as a spectator sees it."""
    return encode(for_seat(decode(entry.payload), None))
