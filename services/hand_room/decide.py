"""``decide(room, command)``: the events a command produces, or a refusal (pure but
for the rules port). Each produced event is folded at once so later checks
see its effect; the caller appends the events, then adopts ``Decision.room``.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

from hand_engine import RuleViolation, resolve
from hand_engine.events import RoundEnded
from hand_engine.match import standings

from .codec import action_from_json, action_json, event_to_json
from .errors import RoomCode, RoomError
from .fold import evolve
from .model import Room
from .rules_port import RulesPort

BOT_LEVELS = ("beginner", "middle", "strong")


@dataclass
class Decision:
    room: Room | None
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    result: dict[str, Any] = field(default_factory=dict)

    def add(self, kind: str, payload: dict[str, Any], now: float, hint: Any = None) -> None:
        seq = self.room.seq if self.room is not None else 0
        self.room = evolve(self.room, kind, payload, seq, now, hint)
        self.events.append((kind, payload))


def _seat_of(room: Room, cmd: dict[str, Any]) -> int:
    seat = room.seat_of_token(cmd.get("token_hash", ""))
    if seat is None:
        raise RoomError(RoomCode.SEAT_TOKEN_INVALID, "this seat token is not valid for this room")
    return seat


def _host(room: Room, cmd: dict[str, Any]) -> int:
    seat = _seat_of(room, cmd)
    if seat != room.host_seat:
        raise RoomError(RoomCode.NOT_HOST, "only the host can do that")
    return seat


def _waiting(room: Room) -> None:
    if room.status != "waiting":
        raise RoomError(RoomCode.MATCH_STARTED, "the match has started")


async def decide(room: Room | None, cmd: dict[str, Any], now: float, rules: RulesPort) -> Decision:
    kind = cmd["type"]
    if kind == "create":
        if room is not None:
            raise RoomError(RoomCode.ROOM_EXISTS, "room exists")
        return _create(cmd, now)
    if room is None:
        raise RoomError(RoomCode.ROOM_NOT_FOUND, "no such room")
    d = Decision(room)
    p = cmd.get("payload", {})
    if kind == "join":
        _waiting(room)
        free = room.free_seats()
        want = p.get("seat")
        if not free:
            raise RoomError(RoomCode.ROOM_FULL, "no free seat")
        if want is not None and want not in free:
            raise RoomError(RoomCode.SEAT_TAKEN, "that seat is taken")
        seat = free[0] if want is None else want
        d.add("seat_taken", {"seat": seat, "kind": "human", "player_id": p["player_id"],
                             "name": p.get("name", ""), "token_hash": cmd["token_hash"]}, now)
        d.result = {"seat": seat}
    elif kind == "leave":
        seat = _seat_of(room, cmd)
        if room.status == "waiting":
            d.add("seat_left", {"seat": seat}, now)
        elif room.status == "playing":
            d.add("seat_away", {"seat": seat, "reason": "left", "bot_level": "middle"}, now)
        d.result = {"seat": seat}
    elif kind == "fill_bots":
        _host(room, cmd)
        _waiting(room)
        level = p.get("level", "beginner")
        if level not in BOT_LEVELS:
            raise RoomError("INVALID_ARGUMENT", f"bot level must be one of {BOT_LEVELS}")
        for seat in room.free_seats():
            d.add("seat_taken", {"seat": seat, "kind": "bot", "bot_level": level,
                                 "name": f"bot-{seat}"}, now)
    elif kind == "start":
        _host(room, cmd)
        _waiting(room)
        if room.free_seats():
            raise RoomError(RoomCode.NOT_ENOUGH_PLAYERS, "every seat must be filled (add bots?)")
        seed = p.get("seed")
        seed = secrets.randbits(63) if seed is None else int(seed)
        d.add("match_started", {"seed": seed}, now)
        await _deal(d, rules, now)
    elif kind == "act":
        seat = _seat_of(room, cmd)
        _playing(room)
        expected = p.get("expected_seq")
        if expected is not None and expected != room.seq:
            raise RoomError(RoomCode.STALE_ACTION, "the room has moved on since that view",
                            seq=room.seq)
        if room.seats[seat].away:
            d.add("seat_back", {"seat": seat, "at": now}, now)
        await _move(d, rules, seat, action_from_json(p["action"]), "player", now, cmd.get("action_id"))
    elif kind == "timeout":
        _playing(room)
        if not _current(room, p):
            return d  # stale timer: nothing to do
        seat = room.round.turn.seat
        d.add("turn_timed_out", {"seat": seat}, now)
        for action in await rules.auto_turn(d.room.round):
            if not await _move(d, rules, seat, action, "timer", now):
                break
        s = d.room.seats[seat]
        if s.kind == "human" and not s.away and s.timeouts >= int(p.get("away_after", 2)):
            d.add("seat_away", {"seat": seat, "reason": "timeouts", "bot_level": "middle"}, now)
    elif kind == "bot_turn":
        _playing(room)
        seat = p["seat"]
        if not _current(room, p) or not room.bot_controls(seat) or room.round.turn.seat != seat:
            return d
        for raw in p["actions"]:
            try:
                ok = await _move(d, rules, seat, action_from_json(raw), "bot", now)
            except RuleViolation:
                ok = False
                for action in await rules.auto_turn(d.room.round):  # never leave a bot stuck
                    if not await _move(d, rules, seat, action, "timer", now):
                        break
            if not ok:
                break
    elif kind == "presence":
        seat = _seat_of(room, cmd)
        s = room.seats[seat]
        at = float(p.get("at", now))
        if p["connected"]:
            d.add("seat_back" if s.away else "seat_connected", {"seat": seat, "at": at}, now)
        elif not s.away and room.status == "playing" and at >= s.connected_at:
            d.add("seat_away", {"seat": seat, "reason": "disconnected", "bot_level": "middle"}, now)
    else:
        raise RoomError("INVALID_ARGUMENT", f"unknown command {kind!r}")
    return d


def _playing(room: Room) -> None:
    if room.status != "playing" or room.round is None:
        raise RoomError(RoomCode.MATCH_NOT_STARTED, "the match is not being played")


def _current(room: Room, p: dict[str, Any]) -> bool:
    r = room.round
    return r is not None and r.result is None and p.get("round_no") == r.round_no and p.get("turn_no") == r.turn_no


def _create(cmd: dict[str, Any], now: float) -> Decision:
    p = cmd["payload"]
    overrides = dict(p.get("overrides") or {})
    if p.get("rounds"):
        overrides["rounds"] = int(p["rounds"])
    try:
        options = resolve(p.get("preset") or "hand", overrides)
        options.check_players(int(p["seats"]))
    except RuleViolation as exc:
        raise RoomError(exc.code.value, exc.detail) from None
    turn_seconds = float(p.get("turn_seconds") or 30)
    if not 1 <= turn_seconds <= 600:
        raise RoomError("INVALID_ARGUMENT", "turn_seconds must be within 1..600")
    d = Decision(None)
    d.add("room_created", {
        "room_id": cmd["room_id"], "code": p["code"], "public": bool(p.get("public")),
        "preset": p.get("preset") or "hand", "overrides": overrides, "options": options.to_dict(),
        "seats": int(p["seats"]), "turn_seconds": turn_seconds,
    }, now)
    d.add("seat_taken", {"seat": 0, "kind": "human", "player_id": p["player_id"],
                         "name": p.get("name", ""), "token_hash": cmd["token_hash"]}, now)
    d.result = {"seat": 0}
    return d


async def _deal(d: Decision, rules: RulesPort, now: float) -> None:
    room = d.room
    match = room.match
    dealer = None if not match.dealers else (match.dealers[-1] + 1) % room.n
    state, events = await rules.start_round(room.options, room.n, seed=match.seed, dealer=dealer,
                                            round_no=len(match.results) + 1)
    d.add("round_started", {"round_no": state.round_no, "dealer": state.dealer,
                            "deck": list(state.deck)}, now)


async def _move(d: Decision, rules: RulesPort, seat: int, action, by: str, now: float,
                action_id: str | None = None) -> bool:
    """Apply one move (raises RuleViolation if refused); handle the round's end."""
    state, events = await rules.apply(d.room.round, seat, action)
    d.add("moved", {"seat": seat, "action": action_json(action), "by": by, "action_id": action_id,
                    "round_no": state.round_no, "turn_no": state.turn_no,
                    "events": [event_to_json(e) for e in events]}, now, hint=state)
    if state.result is None:
        return True
    result = next(e for e in events if isinstance(e, RoundEnded)).result
    d.add("round_scored", {"round_no": state.round_no,
                           "result": event_to_json(RoundEnded(result))["result"]}, now)
    match = d.room.match
    if match.over:
        table = [{"unit": s.unit, "total": s.total, "outs": s.outs,
                  "penalty_points": s.penalty_points} for s in standings(match)]
        d.add("match_ended", {"winners": list(match.winners), "standings": table}, now)
    else:
        await _deal(d, rules, now)
    return False
