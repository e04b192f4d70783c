"""The consumer-side Deduper: at-least-once in, exactly-once and in order out, per room."""

from __future__ import annotations

from hand_infra.dedupe import Deduper
from hand_infra.outbox import OutboxEntry


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


def test_published_room_events_round_trip_arabic_text_and_drop_the_token_hash() -> None:
    from hand_table import Recorded, SeatTaken
    from hand_wire import decode, encode, private_value, public_value

    rec = Recorded("r1", 3, 12.5, SeatTaken(seat=1, kind="human", name="هاند", player_id="p1", token_hash="ab"))
    entry = OutboxEntry(id=9, room_id="r1", seq=3, kind="seat_taken", payload=encode(rec))
    private, public = decode(private_value(entry)), decode(public_value(entry))
    assert private.event == SeatTaken(seat=1, kind="human", name="هاند", player_id="p1")
    assert public.event == SeatTaken(seat=1, kind="human", name="هاند")
    assert (private.room_id, private.seq, private.at) == ("r1", 3, 12.5)
