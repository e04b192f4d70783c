"""Refusals that say what was wrong: the field and what it must be, in English and Arabic
(issue: "room_id must be within 1..64." for a room id with a space, "seat must be within
0..3." for the host's own seat)."""

from __future__ import annotations

import pytest

from hand_engine import resolve
from hand_room import limits
from hand_table import CreateRoom, JoinRoom, RemovePlayer, RoomError
from hand_room.status import STATUS

text = STATUS.text  # the room refusal's message in a language
from tests.room_domain_support import Room


def refusal(call) -> RoomError:
    with pytest.raises(RoomError) as info:
        call()
    return info.value


def test_a_room_id_with_a_space_is_refused_with_the_characters_it_may_hold() -> None:
    error = refusal(lambda: limits.room_id("my room"))
    assert error.params["field"] == "room_id"
    assert text(error.code, error.params, "en") == (
        "room_id must be 1 to 64 characters, each one of A-Z a-z 0-9 - _.")
    assert "A-Z a-z 0-9 - _" in text(error.code, error.params, "ar")
    assert "room_id" in text(error.code, error.params, "ar")


def test_removing_the_host_own_seat_says_so_and_a_seat_outside_the_room_says_its_range() -> None:
    room = Room()
    room.run(CreateRoom("ABCDEF", False, "hand", resolve("hand", {"rounds": 1}).seated(3), 30, "host", "p0", "h0"))
    room.run(JoinRoom("p1", "p1", "h1"))
    own = refusal(lambda: room.run(RemovePlayer(0), seat=0))
    assert (own.code, own.params["field"], own.params["host_seat"]) == ("INVALID_ARGUMENT", "seat", 0)
    assert text(own.code, own.params, "en") == (
        "Seat 0 is the host's own seat: the host cannot remove it (LeaveRoom leaves).")
    assert text(own.code, own.params, "ar").startswith("المقعد 0 هو مقعد المضيف")
    outside = refusal(lambda: room.run(RemovePlayer(5), seat=0))
    assert text(outside.code, outside.params, "en") == "seat must be within 0..2."
