"""What an append may be told, and how a group commit is judged.

``plan_bulk`` decides, for every backend alike, what a batch of appends writes
given the rooms' heads and the action ids already applied; the backends
(``hand_infra.eventstore`` through SQLAlchemy, ``hand_infra.eventstore_sqlite``
on SQLite's one writer connection) only read those and write its rows.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

from hand_infra._schema import action_ids

ACTION_KEY_MAX = action_ids.c.action_id.type.length  # 128


def stored_key(action_id: str) -> str:
    """The ``action_ids`` key of a client action id: itself when it fits the column,
    else ``sha256:<hex>`` of it (71 characters). The room owner prefixes the client's
    id (itself up to 128 characters) with a seat-hash, so a key may be longer than
    the column; hashing it keeps every legal id storable on PostgreSQL (which
    refuses an over-long varchar, where SQLite silently keeps it) without a
    migration of existing tables."""
    if len(action_id) <= ACTION_KEY_MAX:
        return action_id
    return "sha256:" + hashlib.sha256(action_id.encode("utf-8", "surrogatepass")).hexdigest()



class EventStoreError(Exception):
    """Base class of the event store's rejections."""


class StaleAppend(EventStoreError):
    """``(room_id, expected_seq)`` is already taken: the writer is behind."""

    def __init__(self, room_id: str, expected_seq: int, next_seq: int | None = None) -> None:
        super().__init__(f"room {room_id}: seq {expected_seq} already taken"
                         + ("" if next_seq is None else f" (next is {next_seq})"))
        self.room_id, self.expected_seq, self.next_seq = room_id, expected_seq, next_seq


class SeqGap(EventStoreError):
    """``expected_seq`` is past the end of the room: appending would leave a gap."""


class DuplicateAction(EventStoreError):
    """The client action id was already applied; ``seqs`` are its events."""

    def __init__(self, room_id: str, action_id: str, seqs: list[int]) -> None:
        super().__init__(f"room {room_id}: action {action_id} already applied as {seqs}")
        self.room_id, self.action_id, self.seqs = room_id, action_id, seqs



def encode_payload(payload: bytes) -> bytes:
    if not isinstance(payload, (bytes, bytearray)):
        raise TypeError(f"event payloads are bytes, not {type(payload).__name__}")
    return bytes(payload)



@dataclass
class BulkPlan:
    """What a group commit writes: per item its seqs or its rejection, the event rows
    ``(room_id, seq, kind, payload)`` (each with its outbox row) and the action-id rows
    ``(room_id, stored key, first_seq, last_seq)``."""

    results: list[list[int] | EventStoreError] = field(default_factory=list)
    events: list[tuple[str, int, str, bytes]] = field(default_factory=list)
    actions: list[tuple[str, str, int, int]] = field(default_factory=list)


def plan_bulk(items: Sequence[tuple[str, int, Sequence[tuple[str, bytes]], str | None]],
              heads: dict[str, int | None], prior: dict[tuple[str, str], list[int]]) -> BulkPlan:
    """Judge a group commit's items against the rooms' heads (their highest stored seq) and
    the action ids already applied (``prior``, by ``(room_id, action_id)``); every backend
    writes what this returns."""
    plan = BulkPlan()
    nxt = {r: (h + 1 if h is not None else 0) for r, h in heads.items()}
    prior = dict(prior)
    for room_id, expected_seq, events, action_id in items:
        head = nxt.get(room_id, 0)
        if action_id is not None and (room_id, action_id) in prior:
            plan.results.append(DuplicateAction(room_id, action_id, prior[(room_id, action_id)]))
            continue
        if expected_seq != head:
            plan.results.append(StaleAppend(room_id, expected_seq, head) if expected_seq < head
                                else SeqGap(f"room {room_id}: append at {expected_seq}, next is {head}"))
            continue
        seqs = list(range(expected_seq, expected_seq + len(events)))
        nxt[room_id] = expected_seq + len(events)
        plan.events += [(room_id, q, kind, encode_payload(payload)) for q, (kind, payload) in zip(seqs, events, strict=True)]
        if action_id is not None:
            prior[(room_id, action_id)] = seqs
            plan.actions.append((room_id, stored_key(action_id), seqs[0], seqs[-1]))
        plan.results.append(seqs)
    return plan
