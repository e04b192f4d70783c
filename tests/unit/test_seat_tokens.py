"""Seat tokens expire with their seat and with the match (docs/decisions/0011): properties
of the room aggregate over random joins, leaves and removals (hypothesis)."""

from __future__ import annotations

import asyncio

from hypothesis import given, settings
from hypothesis import strategies as st

from hand_engine import resolve
from hand_wire import decode, encode
from hand_table import Command, CreateRoom, JoinRoom, LeaveRoom, RemovePlayer, StartMatch, decide, RoomError
from hand_room.rules_port import LocalRules

RULES = LocalRules()
SEATS = 4
ops = st.lists(st.tuples(st.sampled_from(["join", "leave", "remove"]), st.integers(0, SEATS - 1)),
               max_size=30)


def run(room, body, seat=None):
    d = asyncio.run(decide(room, Command("r1", body, seat=seat), 0.0, RULES))
    for rec in d.events:  # what is stored and read back is what the next decision sees
        decode(encode(rec))
    return d


@settings(max_examples=60, deadline=None)
@given(ops)
def test_a_token_opens_its_own_seat_until_the_seat_is_left_and_never_again(steps) -> None:
    room = run(None, CreateRoom("ABCDEF", False, "hand", resolve("hand", {"rounds": 1}).seated(SEATS), 30,
                                "host", "p0", "t0")).room
    granted = {"t0": 0}  # token hash -> the seat it was given
    gone: set[str] = set()
    for n, (op, seat) in enumerate(steps, start=1):
        try:
            if op == "join":
                token = f"t{n}"
                d = run(room, JoinRoom(f"n{n}", f"p{n}", token))
                granted[token] = d.seat
            elif op == "leave":
                d = run(room, LeaveRoom(), seat=seat)
            else:
                d = run(room, RemovePlayer(seat), seat=0)
        except RoomError:
            continue  # refused: nothing changed
        for s, before in enumerate(room.seats):
            if before.token_hash and d.room.seats[s].token_hash != before.token_hash:
                gone.add(before.token_hash)
        room = d.room
        for token, given_seat in granted.items():
            if token in gone:
                assert room.seat_of_token(token) is None and room.expired(token) == "seat_left"
                assert room.expired(token, write=False) == "seat_left"  # reads too
            else:
                assert room.seat_of_token(token) == given_seat and room.expired(token) is None
    assert room.left_tokens == frozenset(gone)


def test_after_match_ended_every_seat_token_is_expired_for_writes_but_not_for_reads() -> None:
    room = run(None, CreateRoom("ABCDEF", False, "hand", resolve("hand", {"rounds": 1}).seated(2), 30,
                                "host", "p0", "t0")).room
    room = run(room, JoinRoom("b", "p1", "t1")).room
    room = run(room, StartMatch(seed=7), seat=0).room
    from dataclasses import replace

    finished = replace(room, status="finished")  # what match_ended folds to
    for token in ("t0", "t1"):
        assert room.expired(token) is None
        assert finished.expired(token) == "match_ended"
        assert finished.expired(token, write=False) is None and finished.seat_of_token(token) is not None
    assert finished.expired("never-issued") is None
