"""The room aggregate in-process (no broker): decide + fold over whole matches."""

from __future__ import annotations

import asyncio
import hashlib

import pytest

from hand_engine import auto_turn, action_to_dict
from hand_engine.match import standings
from hand_room.decide import decide
from hand_room.errors import RoomError
from hand_room.fold import evolve
from hand_room.rules_port import LocalRules


def h(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Room:
    """Applies commands like the owner does, keeping the stored events."""

    def __init__(self) -> None:
        self.room = None
        self.events: list[tuple[str, dict]] = []
        self.rules = LocalRules()

    def run(self, cmd: dict) -> dict:
        d = asyncio.run(decide(self.room, cmd, 0.0, self.rules))
        self.events += d.events
        self.room = d.room
        return d.result

    def cmd(self, type_: str, token: str = "", **payload) -> dict:
        return self.run({"room_id": "r1", "type": type_, "token_hash": h(token) if token else "",
                         "payload": payload, "command_id": "c"})


def new_match(preset: str, seats: int, rounds: int, **overrides) -> Room:
    r = Room()
    r.cmd("create", "t0", code="ABCDEF", preset=preset, overrides=overrides, rounds=rounds,
          seats=seats, player_id="p0")
    for i in range(1, seats):
        r.cmd("join", f"t{i}", player_id=f"p{i}")
    r.cmd("start", "t0", seed=99)
    return r


def play_out(r: Room, limit: int = 20000) -> None:
    for _ in range(limit):
        if r.room.status != "playing":
            return
        state = r.room.round
        seat = state.turn.seat
        for action in auto_turn(state):
            r.cmd("act", f"t{seat}", action=action_to_dict(action))
            if r.room.round is not state and r.room.round.round_no != state.round_no:
                break
    raise AssertionError("match did not end")


def test_rounds_follow_each_other_with_the_dealer_moving_one_seat() -> None:
    r = new_match("hand", 3, rounds=3, max_turns=30)
    play_out(r)
    dealt = [p for k, p in r.events if k == "round_started"]
    assert [p["round_no"] for p in dealt] == [1, 2, 3]
    assert [(b["dealer"] - a["dealer"]) % 3 for a, b in zip(dealt, dealt[1:])] == [1, 1]
    assert [k for k, _ in r.events][-1] == "match_ended"
    ended = r.events[-1][1]
    table = standings(r.room.match)
    assert ended["standings"] == [{"unit": s.unit, "total": s.total, "outs": s.outs,
                                   "penalty_points": s.penalty_points} for s in table]


def test_a_tie_under_playoff_deals_deciding_rounds() -> None:
    # void exhausted rounds leave everyone at 0: a tie after the planned rounds
    r = new_match("eram-hand", 2, rounds=1, max_turns=4)
    for _ in range(40):
        if len([1 for k, _ in r.events if k == "round_started"]) >= 3:
            break
        state = r.room.round
        for action in auto_turn(state):
            r.cmd("act", f"t{state.turn.seat}", action=action_to_dict(action))
    assert r.room.status == "playing"
    assert r.room.match.contenders == (0, 1)
    assert [p["round_no"] for k, p in r.events if k == "round_started"][:3] == [1, 2, 3]


def test_a_rebuilt_room_equals_the_live_one() -> None:
    r = new_match("saudi", 4, rounds=1, max_turns=40)
    play_out(r)
    rebuilt = None
    for seq, (kind, payload) in enumerate(r.events):
        rebuilt = evolve(rebuilt, kind, payload, seq, 0.0)
    assert rebuilt.round == r.room.round and rebuilt.match == r.room.match
    assert rebuilt.seats == r.room.seats and rebuilt.seq == len(r.events)


def test_room_commands_are_refused_with_stable_codes() -> None:
    r = Room()
    r.cmd("create", "t0", code="ABCDEF", preset="hand", overrides={}, rounds=1, seats=2, player_id="p0")
    for call, code in [
        (lambda: r.cmd("start", "t0"), "NOT_ENOUGH_PLAYERS"),
        (lambda: r.cmd("fill_bots", "nope"), "SEAT_TOKEN_INVALID"),
        (lambda: r.cmd("act", "t0", action={"action": "draw_stock"}), "MATCH_NOT_STARTED"),
        (lambda: r.cmd("join", "t1", player_id="p1", seat=0), "SEAT_TAKEN"),
        (lambda: r.run({"room_id": "r1", "type": "create", "token_hash": "", "payload": {}}), "ROOM_EXISTS"),
    ]:
        before = len(r.events)
        with pytest.raises(RoomError) as info:
            call()
        assert info.value.code == code and len(r.events) == before
    r.cmd("join", "t1", player_id="p1")
    with pytest.raises(RoomError) as info:
        r.cmd("join", "t2", player_id="p2")
    assert info.value.code == "ROOM_FULL"
    with pytest.raises(RoomError) as info:
        r.cmd("start", "t1")
    assert info.value.code == "NOT_HOST"
    with pytest.raises(RoomError) as info:
        r.cmd("create", "t9", code="X", preset="hand", overrides={}, seats=7, player_id="p")
    assert info.value.code in ("ROOM_EXISTS",)
