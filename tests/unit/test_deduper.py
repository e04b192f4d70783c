"""The consumer-side Deduper: at-least-once in, exactly-once and in order out, per room."""

from __future__ import annotations

from hand_infra.outbox import Deduper, OutboxEntry, decode_event, encode_event


def offer_all(deduper: Deduper[str], deliveries: list[tuple[str, int]]) -> list[str]:
    out: list[str] = []
    for room, seq in deliveries:
        out += deduper.offer(room, seq, f"{room}:{seq}")
    return out


def test_redelivered_events_are_passed_on_once() -> None:
    deduper: Deduper[str] = Deduper()
    out = offer_all(deduper, [("a", 0), ("a", 1), ("a", 0), ("a", 1), ("a", 2)])
    assert out == ["a:0", "a:1", "a:2"]
    assert deduper.duplicates == 2


def test_an_event_ahead_of_a_gap_is_held_until_the_gap_fills() -> None:
    deduper: Deduper[str] = Deduper()
    assert offer_all(deduper, [("a", 0), ("a", 2), ("a", 3), ("a", 3)]) == ["a:0"]
    assert deduper.waiting() == {"a": (1, 2)}
    assert offer_all(deduper, [("a", 1)]) == ["a:1", "a:2", "a:3"]
    assert deduper.waiting() == {} and deduper.next_seq("a") == 4


def test_rooms_are_independent() -> None:
    deduper: Deduper[str] = Deduper()
    out = offer_all(deduper, [("a", 0), ("b", 0), ("b", 1), ("a", 0), ("a", 1)])
    assert out == ["a:0", "b:0", "b:1", "a:1"]


def test_without_from_start_a_room_starts_at_its_first_delivered_seq() -> None:
    deduper: Deduper[str] = Deduper(from_start=False)
    assert offer_all(deduper, [("a", 7), ("a", 8), ("a", 6)]) == ["a:7", "a:8"]


def test_a_seeded_room_skips_what_was_processed_before_a_restart() -> None:
    deduper: Deduper[str] = Deduper()
    deduper.seed("a", 5)
    assert offer_all(deduper, [("a", 3), ("a", 5)]) == ["a:5"]
    deduper.forget("a")
    assert deduper.next_seq("a") is None


def test_the_room_events_message_round_trips_with_arabic_text() -> None:
    entry = OutboxEntry(id=9, room_id="r1", seq=3, kind="MeldLaid", payload={"name": "هاند"})
    assert decode_event(encode_event(entry)) == {
        "room_id": "r1", "seq": 3, "kind": "MeldLaid", "payload": {"name": "هاند"}}
