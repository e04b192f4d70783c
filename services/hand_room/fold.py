"""``evolve(room, kind, payload)``: the room after one stored event (pure).

A room is the fold of its events from ``room_created`` on; moves are
re-applied through the engine, which is deterministic, so the rebuilt room
is exactly the one that was live.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hand_engine import (
    apply, record_round, resolve, start_match, start_round,
)
from hand_engine.notation import options_from_dict

from .codec import action_from_json
from .model import Room, SeatSlot


def _seat(room: Room, seat: int, **changes: Any) -> Room:
    seats = list(room.seats)
    seats[seat] = replace(seats[seat], **changes)
    return replace(room, seats=tuple(seats))


def evolve(room: Room | None, kind: str, payload: dict[str, Any], seq: int, at: float,
           round_hint: Any = None) -> Room:
    """Apply one stored event; ``round_hint`` is a RoundState already computed for a move."""
    if kind == "room_created":
        p = payload
        room = Room(
            room_id=p["room_id"], code=p["code"], public=p["public"], preset=p["preset"],
            overrides=dict(p["overrides"]), options=options_from_dict(p["options"]),
            turn_seconds=float(p["turn_seconds"]),
            seats=tuple(SeatSlot() for _ in range(p["seats"])), created_at=at,
        )
        return replace(room, seq=seq + 1)
    if room is None:
        raise ValueError(f"event {kind} before room_created")
    room = _apply(room, kind, payload, at, round_hint)
    return replace(room, seq=seq + 1)


def _apply(room: Room, kind: str, p: dict[str, Any], at: float, hint: Any) -> Room:
    if kind == "seat_taken":
        return _seat(room, p["seat"], kind=p["kind"], player_id=p.get("player_id", ""),
                     name=p.get("name", ""), token_hash=p.get("token_hash", ""),
                     bot_level=p.get("bot_level", ""), away=False, timeouts=0)
    if kind == "seat_left":
        return _seat(room, p["seat"], kind="empty", player_id="", name="", token_hash="",
                     bot_level="", away=False, timeouts=0)
    if kind == "seat_away":
        return _seat(room, p["seat"], away=True, bot_level=p.get("bot_level", "beginner"))
    if kind == "seat_back":
        return _seat(room, p["seat"], away=False, timeouts=0,
                     connected_at=p.get("at", room.seats[p["seat"]].connected_at))
    if kind == "seat_connected":
        return _seat(room, p["seat"], connected_at=p["at"])
    if kind == "turn_timed_out":
        s = room.seats[p["seat"]]
        return _seat(room, p["seat"], timeouts=s.timeouts + 1)
    if kind == "match_started":
        return replace(room, status="playing", match=start_match(room.options, room.n, p["seed"]))
    if kind == "round_started":
        state, _ = start_round(room.options, room.n, seed=room.match.seed, dealer=p["dealer"],
                               deck=p["deck"], round_no=p["round_no"])
        return replace(room, round=state, turn_started_at=at)
    if kind == "moved":
        before = room.round
        state = hint if hint is not None else apply(before, p["seat"], action_from_json(p["action"]))[0]
        room = replace(room, round=state)
        if p.get("by") == "player" and room.seats[p["seat"]].kind == "human":
            room = _seat(room, p["seat"], timeouts=0)
        if state.turn.seat != before.turn.seat or state.turn_no != before.turn_no:
            room = replace(room, turn_started_at=at)
        return room
    if kind == "round_scored":
        return replace(room, match=record_round(room.match, room.round))
    if kind == "match_ended":
        return replace(room, status="finished")
    raise ValueError(f"unknown room event {kind!r}")
