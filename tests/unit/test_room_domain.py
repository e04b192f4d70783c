"""The room domain in-process (no broker): decide + evolve over whole matches,
the codecs and what each audience sees."""

from __future__ import annotations

import pytest

from hand_engine import DrawStock, auto_turn, resolve
from hand_engine.match import standings
from hand_table import (
    MatchEnded, MatchStarted, MoveMade, RoomCreated, RoundDealt, SeatAway, SeatBack, SeatTaken, evolve, for_seat,
    private, Act, BotTurn, Command, CreateRoom, FillWithBots, JoinRoom, LeaveRoom, Presence, StartMatch,
    TurnTimeout, RoomError,
)
from hand_wire import decode, encode, decode_command, encode_command
from tests.room_domain_support import Room


def new_match(preset: str, seats: int, rounds: int, **overrides) -> Room:
    r = Room()
    options = resolve(preset, {**overrides, "rounds": rounds})
    r.run(CreateRoom("ABCDEF", False, preset, options.seated(seats), 30, "host", "p0", "h0"))
    for i in range(1, seats):
        r.run(JoinRoom(f"p{i}", f"p{i}", f"h{i}"))
    r.run(StartMatch(seed=99), seat=0)
    return r


def play_out(r: Room, limit: int = 20000) -> None:
    for _ in range(limit):
        if r.room.status != "playing":
            return
        state = r.room.round
        seat = state.turn.seat
        if r.room.bot_controls(seat):  # what the bot service would answer
            r.run(BotTurn(seat, state.round_no, state.turn_no, tuple(auto_turn(state))))
            continue
        for action in auto_turn(state):
            r.run(Act(action), seat=seat)
            if r.room.round is not state and r.room.round.round_no != state.round_no:
                break
    raise AssertionError("match did not end")


def test_rounds_follow_each_other_with_the_dealer_moving_one_seat() -> None:
    r = new_match("hand", 3, rounds=3, max_turns=30)
    play_out(r)
    dealt = r.of(RoundDealt)
    assert [d.round_no for d in dealt] == [1, 2, 3]
    assert [(b.dealer - a.dealer) % 3 for a, b in zip(dealt, dealt[1:])] == [1, 1]
    assert r.kinds()[-1] == "match_ended"
    assert r.events[-1].event.standings == standings(r.room.match)


def test_a_tie_under_playoff_deals_deciding_rounds() -> None:
    # void exhausted rounds leave everyone at 0: a tie after the planned rounds
    r = new_match("eram-hand", 2, rounds=1, max_turns=4)
    for _ in range(40):
        if len(r.of(RoundDealt)) >= 3:
            break
        state = r.room.round
        for action in auto_turn(state):
            r.run(Act(action), seat=state.turn.seat)
    assert r.room.status == "playing"
    assert r.room.match.contenders == (0, 1)
    assert [d.round_no for d in r.of(RoundDealt)][:3] == [1, 2, 3]


def test_a_rebuilt_room_equals_the_live_one() -> None:
    r = new_match("saudi", 4, rounds=1, max_turns=40)
    play_out(r)
    rebuilt = None
    for rec in r.events:
        rebuilt = evolve(rebuilt, rec)
    assert rebuilt.round == r.room.round and rebuilt.match == r.room.match
    assert rebuilt.seats == r.room.seats and rebuilt.seq == len(r.events)


def test_room_commands_are_refused_with_stable_codes_and_change_nothing() -> None:
    r = Room()
    r.run(CreateRoom("ABCDEF", False, "hand", resolve("hand", {"rounds": 1}).seated(2), 30, "h", "p0", "h0"))
    for call, code in [
        (lambda: r.run(StartMatch(), seat=0), "NOT_ENOUGH_PLAYERS"),
        (lambda: r.run(FillWithBots("beginner"), seat=None), "SEAT_TOKEN_INVALID"),
        (lambda: r.run(Act(DrawStock()), seat=0), "MATCH_NOT_STARTED"),
        (lambda: r.run(JoinRoom("x", "p1", "h1", wanted_seat=0)), "SEAT_TAKEN"),
        (lambda: r.run(CreateRoom("X", False, "hand", resolve("hand").seated(2), 30, "", "p", "h")), "ROOM_EXISTS"),
    ]:
        before = len(r.events)
        with pytest.raises(RoomError) as info:
            call()
        assert info.value.code == code and len(r.events) == before
    r.run(JoinRoom("x", "p1", "h1"))
    with pytest.raises(RoomError) as info:
        r.run(JoinRoom("y", "p2", "h2"))
    assert info.value.code == "ROOM_FULL"
    with pytest.raises(RoomError) as info:
        r.run(StartMatch(), seat=1)
    assert info.value.code == "NOT_HOST"


def test_nothing_is_appended_after_match_ended_not_even_presence() -> None:
    """Bug: a Watch with the token of a seat that was away at the end stored seat_back after match_ended."""
    r = new_match("hand", 2, rounds=1, max_turns=6)
    r.run(LeaveRoom(), seat=1)  # seat 1 is away, played by a bot
    play_out(r)
    assert r.kinds()[-1] == "match_ended" and r.room.seats[1].away
    before = len(r.events)
    assert r.run(Presence(True, 5.0), seat=1).events == []
    assert r.run(Presence(False, 6.0), seat=0).events == []
    for body, seat, code in [(Act(DrawStock()), 1, "SEAT_TOKEN_EXPIRED"), (LeaveRoom(), 0, "SEAT_TOKEN_EXPIRED"),
                             (TurnTimeout(1, 3), None, "MATCH_OVER"),
                             (JoinRoom("late", "p9", "h9"), None, "MATCH_OVER")]:
        with pytest.raises(RoomError) as info:
            r.run(body, seat=seat)
        assert info.value.code == code  # a seat's token expires with the match
    assert len(r.events) == before


def test_an_act_by_an_away_player_gives_the_seat_back_even_when_the_move_is_refused() -> None:
    """Bug: a returning player's refused Acts (the bot had moved first) never gave the seat back."""
    r = new_match("hand", 2, rounds=1)
    mover = r.room.round.turn.seat
    other = 1 - mover
    r.run(LeaveRoom(), seat=other)
    assert r.room.seats[other].away
    d = r.run(Act(DrawStock()), seat=other)  # not its turn: refused, but the seat is back
    assert d.refusal is not None and d.refusal.code.value == "NOT_YOUR_TURN"
    assert [type(e.event) for e in d.events] == [SeatBack] and not r.room.seats[other].away


def test_a_refused_timeout_of_a_past_turn_changes_nothing() -> None:
    r = new_match("hand", 2, rounds=1)
    state = r.room.round
    assert r.run(TurnTimeout(state.round_no, state.turn_no + 5)).events == []


def test_every_kind_of_event_and_command_round_trips_through_its_wire_form() -> None:
    r = new_match("saudi", 3, rounds=1, max_turns=12)
    r.run(LeaveRoom(), seat=2)
    play_out(r)
    kinds = set(r.kinds())
    assert {"room_created", "seat_taken", "match_started", "round_dealt", "move_made", "seat_away",
            "round_scored", "match_ended"} <= kinds
    for rec in r.events:
        assert decode(encode(rec)) == rec
    options = resolve("hand")
    for body in [CreateRoom("C", True, "hand", options.seated(4), 30, "n", "p", "h"), JoinRoom("a", "p", "h", 2),
                 Act(DrawStock(), 7), StartMatch(3), Presence(False, 1.5), TurnTimeout(1, 2, 3),
                 BotTurn(1, 2, 3, (DrawStock(),), asked_seq=41), BotTurn(1, 2, 3, ())]:
        cmd = Command("r1", body, seat=1, action_id="a")
        assert decode_command(encode_command(cmd)) == cmd


def test_a_room_stored_before_seat_count_was_an_option_rebuilds_to_the_same_room() -> None:
    """Events and commands written when the seat count travelled beside the options (``RoomCreated``'s
    and ``CreateRoomCommand``'s ``seat_count``, ``RuleOptions`` without it) still decode: the count
    beside fills the options' ``seat_count``, and the rebuilt room is the one stored."""
    from hand_wire import command_to_proto, to_proto

    r = new_match("saudi", 3, rounds=1, max_turns=12)
    play_out(r)
    rebuilt = None
    for rec in r.events:
        msg = to_proto(rec)
        if msg.WhichOneof("event") == "room_created":
            assert msg.room_created.seat_count == msg.room_created.options.seat_count == 3  # both written
            msg.room_created.options.ClearField("seat_count")  # the old form
            assert decode(msg.SerializeToString()) == rec
        rebuilt = evolve(rebuilt, decode(msg.SerializeToString()))
    assert rebuilt == r.room and rebuilt.n == 3 and rebuilt.options.seat_count == 3
    cmd = Command("r1", CreateRoom("C", True, "hand", resolve("hand").seated(3), 30, "n", "p", "h"))
    old = command_to_proto(cmd)
    old.create_room.options.ClearField("seat_count")
    assert decode_command(old.SerializeToString()) == cmd


def test_each_audience_sees_only_what_it_may() -> None:
    r = new_match("hand", 2, rounds=1)
    r.run(Act(auto_turn(r.room.round)[0]), seat=r.room.round.turn.seat)
    for rec in r.events:
        assert not (isinstance(rec.event, SeatTaken) and private(rec).event.token_hash)
        for seat in (None, 0, 1):
            seen = for_seat(rec, seat).event
            if isinstance(seen, SeatTaken):
                assert seen.token_hash == "" and seen.player_id == ""
            if isinstance(seen, RoomCreated):
                assert (seen.code == "") == (seat is None)
            if isinstance(seen, MatchStarted):
                assert seen.seed is None
            if isinstance(seen, RoundDealt):
                assert seen.deck == () and all(getattr(e, "deck", ()) == () for e in seen.events)
            if isinstance(seen, (RoundDealt, MoveMade)):
                for e in seen.events:
                    if type(e).__name__ == "StockDrawn":
                        assert (e.card is not None) == (e.seat == seat)
    ended = MatchEnded(winners=(0,), standings=())
    assert for_seat(r.events[0].__class__("r1", 9, 0.0, ended), None).event == ended


def test_a_seat_goes_away_after_repeated_timeouts() -> None:
    r = new_match("hand", 2, rounds=1)
    for _ in range(4):
        state = r.room.round
        r.run(TurnTimeout(state.round_no, state.turn_no, away_after=2))
    assert any(isinstance(e, SeatAway) and e.reason == "timeouts" for e in r.of(SeatAway))


def _bots_only(preset: str = "hand") -> Room:
    r = Room()
    r.run(CreateRoom("ABCDEF", False, preset, resolve(preset, {"rounds": 1}).seated(2), 30, "host", "p0", "h0"))
    r.run(FillWithBots("middle"), seat=0)
    r.run(StartMatch(seed=7), seat=0)
    r.run(LeaveRoom(), seat=0)
    state = r.room.round  # the first turn (15 cards: a discard, no draw) as the bot plays it
    r.run(BotTurn(state.turn.seat, state.round_no, state.turn_no, tuple(auto_turn(state)), asked_seq=r.room.seq))
    return r


def test_a_bot_answer_delivered_twice_is_applied_once() -> None:
    """The broker may deliver a bot's answer twice (no idempotent producer; the owner also
    asks again after a failure): the copy is stale, not a refused move the timer replays."""
    r = _bots_only()
    state = r.room.round
    seat, asked = state.turn.seat, r.room.seq
    answer = BotTurn(seat, state.round_no, state.turn_no, (DrawStock(),), asked_seq=asked)
    r.run(answer)
    after = len(r.events)
    moves = len(r.of(MoveMade))
    assert {m.origin for m in r.of(MoveMade)} == {"bot"}
    assert r.run(answer).events == [] and len(r.events) == after
    # the answer to the next ask, in the same turn, plays on
    state = r.room.round
    r.run(BotTurn(seat, state.round_no, state.turn_no, tuple(auto_turn(state)), asked_seq=r.room.seq))
    assert {m.origin for m in r.of(MoveMade)} == {"bot"} and r.room.round.turn.seat != seat


def test_a_bot_answer_survives_events_that_do_not_move_the_round() -> None:
    """Only a move makes an answer stale: a seat's presence in between does not."""
    r = _bots_only()
    state = r.room.round
    seat, asked = state.turn.seat, r.room.seq
    r.run(Presence(connected=False, at=1.0), seat=0)  # the host's old stream closing: no move
    moves = len(r.of(MoveMade))
    r.run(BotTurn(seat, state.round_no, state.turn_no, (DrawStock(),), asked_seq=asked))
    assert len(r.of(MoveMade)) == moves + 1 and {m.origin for m in r.of(MoveMade)} == {"bot"}
