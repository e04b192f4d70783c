"""Seating and coming back (docs/decisions/0030-seating-and-coming-back.md): every
RoomInfo says each seat's team, partner and the seat after it, the round's dealer and
first player (docs/rules.md §2); an away seat's player comes back with ``ComeBack``
(a ``seat_back`` event; the seat's next turn is the player's), and coming back when not
away is a no-op."""

from __future__ import annotations

import pytest

from hand_engine import DrawStock, auto_turn, partner_of, resolve, seat_after
from hand_room.admission import CLIENT_COMMANDS
from hand_table import (
    SeatAway, SeatBack, Act, BotTurn, ComeBack, Command, CreateRoom, JoinRoom, LeaveRoom, StartMatch, TurnTimeout,
    RoomError,
)
from hand_wire import room_info, decode_command, encode_command
from tests.room_domain_support import Room


def new_match(preset: str = "hand", seats: int = 2, rounds: int = 3, start: bool = True) -> Room:
    r = Room()
    r.run(CreateRoom("ABCDEF", False, preset, resolve(preset, {"rounds": rounds, "max_turns": 12}).seated(seats), 30,
                     "host", "p0", "h0", seat_seed="s0"))
    for i in range(1, seats):
        r.run(JoinRoom(f"p{i}", f"p{i}", f"h{i}", seat_seed=f"s{i}"))
    if start:
        r.run(StartMatch(seed=7), seat=0)
    return r


def play_turn(r: Room) -> None:
    """The seat to move plays the safe automatic turn (a bot's answer when a bot controls it)."""
    state = r.room.round
    seat = state.turn.seat
    actions = tuple(auto_turn(state))
    if r.room.bot_controls(seat):
        r.run(BotTurn(seat, state.round_no, state.turn_no, actions, asked_seq=r.room.seq))
        return
    for action in actions:
        r.run(Act(action), seat=seat)
        if r.room.round is not state and (r.room.round is None or r.room.round.turn_no != state.turn_no):
            return


def play_round(r: Room) -> None:
    round_no = r.room.round.round_no
    while r.room.status == "playing" and r.room.round.round_no == round_no:
        play_turn(r)


@pytest.mark.parametrize(("preset", "seats"), [("hand", 2), ("hand", 3), ("saudi", 4), ("partnership", 4),
                                                ("saudi-partnership", 4), ("eram-partnership", 4)])
def test_every_seat_says_its_team_partner_and_the_seat_after_it(preset: str, seats: int) -> None:
    r = new_match(preset, seats, start=False)
    partnership = resolve(preset).partnership
    for reader in (None, 0):
        info = room_info(r.room, reader)
        assert [s.next_seat for s in info.seats] == [(i + 1) % seats for i in range(seats)]
        for i, s in enumerate(info.seats):
            assert s.next_seat == seat_after(i, seats)
            if partnership:
                assert (s.team, s.partner) == (i % 2, (i + 2) % 4)
                assert info.seats[s.partner].partner == i and info.seats[s.partner].team == s.team
            else:
                assert not s.HasField("team") and not s.HasField("partner")
    assert partner_of(0, True) == 2 and partner_of(3, True) == 1 and partner_of(1, False) is None


def test_dealer_and_first_player_are_unset_before_the_deal_and_follow_the_rounds() -> None:
    r = new_match("hand", 3, rounds=3, start=False)
    info = room_info(r.room, 0)
    assert not info.HasField("dealer") and not info.HasField("first_player")
    r.run(StartMatch(seed=7), seat=0)
    seen = []
    while r.room.status == "playing":
        info = room_info(r.room, 1)
        assert info.first_player == (info.dealer + 1) % 3 == r.room.round.turn.seat or r.room.round.turn_no > 1
        seen.append((info.round_no, info.dealer, info.first_player))
        play_round(r)
    assert [no for no, _, _ in seen] == [1, 2, 3]
    # each later round is dealt by the seat after the previous dealer (docs/rules.md §2)
    assert [d for _, d, _ in seen] == [(seen[0][1] + k) % 3 for k in range(3)]
    assert [f for _, _, f in seen] == [(d + 1) % 3 for _, d, _ in seen]
    final = room_info(r.room, None)
    assert (final.dealer, final.first_player) == seen[-1][1:]  # the last round's, after the match


def _away_by_timeouts(r: Room, seat: int) -> None:
    """Let the turn timer run out on ``seat``'s turns (the other seats play) until it is away."""
    while not r.room.seats[seat].away:
        state = r.room.round
        if state.turn.seat == seat:
            r.run(TurnTimeout(state.round_no, state.turn_no, away_after=2))
        else:
            play_turn(r)


def test_an_away_seat_comes_back_and_plays_its_next_turn_itself() -> None:
    r = new_match("hand", 2, rounds=1)
    _away_by_timeouts(r, 1)
    assert [e.reason for e in r.of(SeatAway)] == ["timeouts"]
    assert room_info(r.room, 1).seats[1].away  # its own view says so too
    while r.room.round.turn.seat != 1:
        play_turn(r)
    stale_ask = r.room.seq  # the bot was asked for this turn before the player came back
    d = r.run(ComeBack(), seat=1, now=50.0)
    assert [e.event for e in d.events] == [SeatBack(seat=1, connected_at=50.0)] and d.seat == 1
    assert not r.room.seats[1].away and r.room.seats[1].timeouts == 0 and not r.room.bot_controls(1)
    state = r.room.round
    # the bot's answer to the ask made while the seat was away is ignored: the turn is the player's
    assert r.run(BotTurn(1, state.round_no, state.turn_no, tuple(auto_turn(state)), asked_seq=stale_ask)).events == []
    d = r.run(Act(auto_turn(state)[0]), seat=1)
    assert d.events[0].event.origin == "player" and d.events[0].event.seat == 1


def test_a_seat_that_came_back_goes_away_again_after_two_more_timeouts() -> None:
    r = new_match("hand", 2, rounds=1)
    _away_by_timeouts(r, 0)
    r.run(ComeBack(), seat=0)
    _away_by_timeouts(r, 0)
    assert len(r.of(SeatAway)) == 2 and len(r.of(SeatBack)) == 1


def test_coming_back_when_not_away_is_a_no_op() -> None:
    r = new_match("hand", 2, rounds=1, start=False)
    assert r.run(ComeBack(), seat=1).events == []  # before the match: nobody is away
    r.run(StartMatch(seed=7), seat=0)
    seq = r.room.seq
    for _ in range(2):  # "I'm back" pressed twice: the second finds the seat back already
        d = r.run(ComeBack(), seat=1)
        assert d.events == [] and d.seat == 1 and r.room.seq == seq


def test_coming_back_after_leaving_the_match_takes_the_seat_back() -> None:
    r = new_match("hand", 2, rounds=1)
    r.run(LeaveRoom(), seat=1)
    assert r.room.seats[1].away
    r.run(ComeBack(), seat=1)
    assert not r.room.seats[1].away


@pytest.mark.parametrize(("seat", "code"), [(None, "SEAT_TOKEN_INVALID"), (5, "SEAT_TOKEN_INVALID")])
def test_coming_back_needs_a_seat_of_the_room(seat: int | None, code: str) -> None:
    r = new_match("hand", 2, rounds=1)
    with pytest.raises(RoomError) as refused:
        r.run(ComeBack(), seat=seat)
    assert refused.value.code == code


def test_coming_back_after_the_match_is_refused_as_every_write_of_a_seat() -> None:
    r = new_match("hand", 2, rounds=1)
    r.run(LeaveRoom(), seat=1)
    while r.room.status == "playing":
        play_turn(r)
    with pytest.raises(RoomError) as refused:
        r.run(ComeBack(), seat=1)
    assert (refused.value.code, refused.value.params["reason"]) == ("SEAT_TOKEN_EXPIRED", "match_ended")


def test_come_back_round_trips_on_the_bus_and_is_a_client_command() -> None:
    cmd = Command("r1", ComeBack(), seat=2)
    assert decode_command(encode_command(cmd)) == cmd
    assert ComeBack in CLIENT_COMMANDS  # shed first when the owner is past capacity
    assert Act(DrawStock()) != ComeBack()
