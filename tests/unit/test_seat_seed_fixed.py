"""A player's seat seed is fixed for a room the first time they sit down (decision 0033): leaving
the waiting room and joining again with another seed is refused (SEAT_SEED_FIXED, naming the field),
joining again without one reuses the first, and the rule holds for an owner that rebuilds the room
from its stored events (failover). Other players choose their own seeds freely."""

from __future__ import annotations

import pytest

from hand_engine import resolve
from hand_table import CreateRoom, FillWithBots, JoinRoom, LeaveRoom, RoomError, RoundDealt, SeatTaken, StartMatch, evolve

from tests.room_domain_support import Room


def _room() -> Room:
    r = Room()
    r.run(CreateRoom("ABCDEF", False, "hand", resolve("hand").seated(3), 30, "Host", "p0", "h0", seat_seed="host"))
    r.run(JoinRoom("Ada", "p1", "h1", seat_seed="lucky-1"))
    return r


def _refused(r: Room, body, seat: int | None = None) -> RoomError:
    with pytest.raises(RoomError) as info:
        r.run(body, seat=seat)
    return info.value


def test_joining_again_with_another_seed_is_refused_and_changes_nothing() -> None:
    r = _room()
    r.run(LeaveRoom(), seat=1)
    before = len(r.events)
    err = _refused(r, JoinRoom("Ada", "p1", "h1b", seat_seed="lucky-2"))
    assert (err.code, err.params["field"]) == ("SEAT_SEED_FIXED", "seat_seed")
    assert len(r.events) == before and r.room.seats[1].kind == "empty"


def test_joining_again_without_a_seed_or_with_the_same_one_keeps_the_first() -> None:
    r = _room()
    r.run(LeaveRoom(), seat=1)
    r.run(JoinRoom("Ada", "p1", "h1b"))  # none sent: not a fresh draw, the first seed
    assert r.of(SeatTaken)[-1].seat_seed == "lucky-1"
    r.run(LeaveRoom(), seat=1)
    r.run(JoinRoom("Ada", "p1", "h1c", seat_seed="lucky-1"))
    assert r.room.seats[1].seat_seed == "lucky-1"


def test_other_players_choose_their_own_seeds() -> None:
    r = _room()
    r.run(JoinRoom("Ben", "p2", "h2", seat_seed="ben's"))
    assert [s.seat_seed for s in r.room.seats] == ["host", "lucky-1", "ben's"]


def test_the_host_cannot_churn_its_seed_by_coming_back_either() -> None:
    r = _room()
    r.run(LeaveRoom(), seat=0)  # the host leaves the waiting room; another seat hosts
    err = _refused(r, JoinRoom("Host", "p0", "h0b", seat_seed="other"))
    assert err.code == "SEAT_SEED_FIXED"


def test_an_owner_that_rebuilds_the_room_from_its_events_keeps_the_rule() -> None:
    r = _room()
    r.run(LeaveRoom(), seat=1)
    rebuilt = None
    for rec in r.events:  # what a new owner does after a failover: the fold of the stored events
        rebuilt = evolve(rebuilt, rec)
    assert rebuilt.seed_of("p1") == "lucky-1" and rebuilt.seed_of("p0") == "host"
    fresh = Room()
    fresh.room = rebuilt
    assert _refused(fresh, JoinRoom("Ada", "p1", "h1b", seat_seed="lucky-2")).code == "SEAT_SEED_FIXED"


def test_the_deal_uses_the_fixed_seeds() -> None:
    r = _room()
    r.run(LeaveRoom(), seat=1)
    r.run(JoinRoom("Ada", "p1", "h1b"))
    r.run(FillWithBots("beginner"), seat=0)
    r.run(StartMatch(), seat=0)
    started = r.of(RoundDealt)[0].events[0]  # round_started: the seeds the deal used, in seat order
    assert started.seat_seeds[:2] == ("host", "lucky-1")
