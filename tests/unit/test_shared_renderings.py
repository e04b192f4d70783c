"""Renderings shared between readers (2026-12-07): an event that hides nothing from a
reader is that reader's record as it is, one Watch message per reader shares the event
and the seated readers' room info, and the outbox's topic values reuse the bytes
appended. Each must equal what the per-reader rendering gave, for every event of whole
matches."""

from __future__ import annotations

import pytest

from hand_engine import StockDrawn
from hand_table import MoveMade, evolve, for_seat, private
from hand_wire import decode, encode, topic_values
from hand_room.grpc_messages import EventMessages, event_message

from tests.unit.test_room_domain import new_match, play_out


def _match(preset: str, seats: int):
    r = new_match(preset, seats, rounds=1, max_turns=30)
    play_out(r)
    rooms, room = [], None
    for rec in r.events:
        room = evolve(room, rec)
        rooms.append(room)
    return r.events, rooms


def _without_clock(msg):
    msg.room.ClearField("server_time")
    return msg.SerializeToString(deterministic=True)


@pytest.mark.parametrize("preset,seats", [("hand", 2), ("saudi", 4)])
def test_each_readers_message_is_what_its_own_rendering_gives(preset: str, seats: int) -> None:
    events, rooms = _match(preset, seats)
    readers = [*range(seats), None]
    for rec, room in zip(events, rooms, strict=True):
        shared = EventMessages(room, rec)
        for seat in readers:
            assert _without_clock(shared.message(seat)) == _without_clock(event_message(room, rec, seat)), (
                rec.kind, seat)
            assert shared.message(seat) is shared.message(seat)  # rendered once


@pytest.mark.parametrize("preset,seats", [("hand", 2), ("saudi", 4)])
def test_messages_from_the_appended_bytes_are_the_messages_rendered_again(
        preset: str, seats: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The owner hands its feed the bytes it appended (``encode(rec)``): a reader the event
    hides nothing from gets it parsed from them, not built again, and every reader's message
    is what the per-reader rendering gives."""
    import hand_room.grpc_messages as messages

    events, rooms = _match(preset, seats)
    readers = [*range(seats), None]
    expected = [[_without_clock(event_message(room, rec, seat)) for seat in readers]
                for rec, room in zip(events, rooms, strict=True)]
    built: list[object] = []
    to_proto = messages.to_proto
    monkeypatch.setattr(messages, "to_proto", lambda rec: built.append(rec) or to_proto(rec))
    for rec, room, wanted in zip(events, rooms, expected, strict=True):
        shared = EventMessages(room, rec, encode(rec))
        assert [_without_clock(shared.message(seat)) for seat in readers] == wanted, rec.kind
    originals = {id(rec) for rec in events}
    assert built and not any(id(rec) in originals for rec in built)  # only redacted copies are built


def test_a_move_that_hides_nothing_is_the_same_record_for_every_reader() -> None:
    events, _ = _match("hand", 2)
    moves = [rec for rec in events if isinstance(rec.event, MoveMade)]
    open_moves = [rec for rec in moves if not any(isinstance(e, StockDrawn) for e in rec.event.events)]
    draws = [rec for rec in moves if any(isinstance(e, StockDrawn) for e in rec.event.events)]
    assert open_moves and draws
    for rec in open_moves:
        assert all(for_seat(rec, seat) is rec for seat in (0, 1, None))
    for rec in draws:
        drawer = next(e.seat for e in rec.event.events if isinstance(e, StockDrawn))
        assert for_seat(rec, 1 - drawer) is not rec  # the card drawn is hidden from the other seat
        assert next(e for e in for_seat(rec, 1 - drawer).event.events if isinstance(e, StockDrawn)).card is None


@pytest.mark.parametrize("preset,seats", [("hand", 3), ("saudi", 4)])
def test_topic_values_from_the_bytes_appended_decode_as_rendered_anew(preset: str, seats: int) -> None:
    events, _ = _match(preset, seats)
    for rec in events:
        stored = encode(rec)
        private_b, public_b = topic_values(rec, stored)
        assert decode(private_b) == private(rec) and decode(public_b) == for_seat(rec, None), rec.kind
        if private(rec) is rec:
            assert private_b is stored  # sent again, not encoded again
