"""The turn's deadline on the server's clock (RoomInfo.turn_deadline, server_time): the same
however often and whenever the room is read, moved on only by the event that hands the turn over
(decision 0023)."""

from __future__ import annotations

from hand_engine import DrawStock, auto_turn, resolve
from hand_wire import room_info
from hand_table import Act, CreateRoom, JoinRoom, StartMatch, TurnTimeout
from tests.room_domain_support import Room

T0 = 1_800_000_000.0


def _seconds(ts) -> float:
    return ts.ToNanoseconds() / 1e9


def _match(turn_seconds: int = 40, **overrides) -> Room:
    r = Room()
    r.run(CreateRoom("ABCDEF", False, "hand", resolve("hand", {"rounds": 1, **overrides}).seated(2), turn_seconds, "host", "p0",
                     "h0"), now=T0)
    r.run(JoinRoom("p1", "p1", "h1"), now=T0 + 1)
    return r


def test_no_deadline_before_the_match_and_the_server_clock_only_when_stamped() -> None:
    r = _match()
    info = room_info(r.room, 0)
    assert not info.HasField("turn_deadline") and not info.HasField("server_time")
    assert _seconds(room_info(r.room, 0, now=T0 + 2).server_time) == T0 + 2


def test_the_deadline_is_the_turns_start_plus_turn_seconds_whenever_the_room_is_read() -> None:
    r = _match(turn_seconds=40)
    r.run(StartMatch(seed=3), seat=0, now=T0 + 10)
    first = room_info(r.room, 0, now=T0 + 11)
    later = room_info(r.room, None, now=T0 + 35)  # a reload 24 s later, or a spectator
    assert _seconds(first.turn_deadline) == _seconds(later.turn_deadline) == T0 + 10 + 40
    assert _seconds(later.server_time) - _seconds(first.server_time) == 24


def test_a_step_within_the_turn_keeps_the_deadline_and_the_next_turn_gets_its_own() -> None:
    r = _match(turn_seconds=40)
    r.run(StartMatch(seed=3), seat=0, now=T0)
    state = r.room.round
    seat = state.turn.seat
    if state.turn.opening_discard:  # the starter's discard-only turn: play it, then the other's draw
        for action in auto_turn(state):
            r.run(Act(action), seat=seat, now=T0 + 5)
        state, seat = r.room.round, r.room.round.turn.seat
    started = r.room.turn_started_at
    r.run(Act(DrawStock()), seat=seat, now=started + 7)  # the draw: still the same turn
    assert _seconds(room_info(r.room, seat).turn_deadline) == started + 40
    for action in auto_turn(r.room.round):  # the discard hands the turn over
        r.run(Act(action), seat=seat, now=started + 9)
    assert r.room.round.turn.seat != seat
    assert _seconds(room_info(r.room, seat).turn_deadline) == started + 9 + 40


def test_a_turn_the_timer_played_hands_the_next_seat_a_fresh_deadline() -> None:
    r = _match(turn_seconds=30)
    r.run(StartMatch(seed=3), seat=0, now=T0)
    state = r.room.round
    r.run(TurnTimeout(state.round_no, state.turn_no, away_after=2), now=T0 + 30)
    assert r.room.round.turn_no != state.turn_no or r.room.round.turn.seat != state.turn.seat
    assert _seconds(room_info(r.room, 0).turn_deadline) == T0 + 30 + 30


def test_no_deadline_once_the_match_is_over() -> None:
    r = _match(max_turns=6)
    r.run(StartMatch(seed=3), seat=0, now=T0)
    for step in range(5000):
        if r.room.status != "playing":
            break
        state = r.room.round
        for action in auto_turn(state):
            r.run(Act(action), seat=state.turn.seat, now=T0 + step)
            if r.room.round is None or r.room.round.round_no != state.round_no or r.room.status != "playing":
                break
    assert r.room.status == "finished"
    assert not room_info(r.room, 0, now=T0).HasField("turn_deadline")
