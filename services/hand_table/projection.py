"""``evolve(room, recorded)``: the room after one event (pure).

The one projector of a room's history: the room service's repository, its
Watch streams and the ledger's replays all fold events through it. Moves are
re-applied through the engine (deterministic), unless the caller passes the
state it already computed (``after``).
"""

from __future__ import annotations

from dataclasses import replace
from functools import singledispatch
from typing import Any

from hand_engine import DealSeeds, RoundStarted, RoundState, apply, record_round, start_match, start_round

from .events import (
    ChatSent, MatchEnded, MatchStarted, MoveMade, Recorded, RoomCreated, RoundDealt, RoundScored, SeatAway,
    SeatBack, SeatConnected, SeatLeft, SeatTaken, TurnTimedOut,
)
from .room import Room, SeatSlot


def evolve(room: Room | None, rec: Recorded, after: RoundState | None = None) -> Room:
    """The room after ``rec`` (``room`` is None only before ``room_created``)."""
    ev = rec.event
    if isinstance(ev, RoomCreated):
        room = Room(room_id=rec.room_id, code=ev.code, public=ev.public, preset=ev.preset,
                    options=ev.options, turn_seconds=ev.turn_seconds, host_seat=ev.host_seat,
                    seats=tuple(SeatSlot() for _ in range(ev.options.seat_count)), created_at=rec.at,
                    waiting_ttl_s=ev.waiting_ttl_s, match_secret=ev.match_secret)
    elif room is None:
        raise ValueError(f"{rec.kind} before room_created")
    else:
        room = _apply(ev, room, rec.at, after, rec.seq)
    if isinstance(ev, ChatSent):  # chat is not part of the game: only the seq moves
        return replace(room, seq=rec.seq + 1)
    return replace(room, seq=rec.seq + 1, game_seq=rec.seq + 1)


def _seat(room: Room, seat: int, **changes: Any) -> Room:
    seats = list(room.seats)
    seats[seat] = replace(seats[seat], **changes)
    return replace(room, seats=tuple(seats))


@singledispatch
def _apply(ev: Any, room: Room, at: float, after: RoundState | None, seq: int) -> Room:
    raise ValueError(f"unknown room event {type(ev).__name__}")


@_apply.register
def _(ev: SeatTaken, room, at, after, seq):
    if ev.kind == "human" and ev.player_id and room.seed_of(ev.player_id) is None:
        room = replace(room, player_seeds=(*room.player_seeds, (ev.player_id, ev.seat_seed)))
    return _seat(room, ev.seat, kind=ev.kind, player_id=ev.player_id, name=ev.name,
                 token_hash=ev.token_hash, bot_level=ev.bot_level, away=False, timeouts=0,
                 seat_seed=ev.seat_seed)


@_apply.register
def _(ev: SeatLeft, room, at, after, seq):
    gone = room.seats[ev.seat].token_hash  # the token expires with the seat (never reopens)
    if gone:
        room = replace(room, left_tokens=room.left_tokens | {gone})
    return _seat(room, ev.seat, kind="empty", player_id="", name="", token_hash="", bot_level="",
                 away=False, timeouts=0, seat_seed="")


@_apply.register
def _(ev: SeatAway, room, at, after, seq):
    return _seat(room, ev.seat, away=True, bot_level=ev.bot_level)


@_apply.register
def _(ev: SeatBack, room, at, after, seq):
    return _seat(room, ev.seat, away=False, timeouts=0, connected_at=ev.connected_at)


@_apply.register
def _(ev: SeatConnected, room, at, after, seq):
    return _seat(room, ev.seat, connected_at=ev.connected_at)


@_apply.register
def _(ev: TurnTimedOut, room, at, after, seq):
    return _seat(room, ev.seat, timeouts=room.seats[ev.seat].timeouts + 1)


@_apply.register
def _(ev: MatchStarted, room, at, after, seq):
    if ev.seed is None:
        raise ValueError("match_started without its seed cannot be folded")
    if ev.starter_seat is not None:  # the host's own seed, given with StartMatch (decision 0035)
        who = room.seats[ev.starter_seat].player_id
        room = _seat(room, ev.starter_seat, seat_seed=ev.starter_seat_seed)
        if who:
            room = replace(room, player_seeds=tuple((p, ev.starter_seat_seed if p == who else s)
                                                    for p, s in room.player_seeds))
    return replace(room, status="playing", match=start_match(room.options, room.n, ev.seed),
                   deal_version=ev.deal_version)


@_apply.register
def _(ev: RoundDealt, room, at, after, seq):
    if not ev.deck:
        raise ValueError("round_dealt without its deck cannot be folded")
    state, _ = start_round(room.options, room.n, seed=room.match.seed, dealer=ev.dealer,
                           deck=ev.deck, round_no=ev.round_no, fair=dealt_seeds(ev))
    return replace(room, round=state, turn_started_at=at, round_seq=seq, moved_seq=seq,
                   server_seed=ev.server_seed)


def dealt_seeds(ev: RoundDealt) -> DealSeeds | None:
    """A fair deal's seeds (its server seed, round_started's seat seeds and version); None in version 0."""
    if not ev.server_seed:
        return None
    started = next((e for e in ev.events if isinstance(e, RoundStarted)), None)
    if started is None:
        raise ValueError("round_dealt with a server seed but no round_started")
    return DealSeeds(ev.server_seed, started.seat_seeds, started.deal_version)


@_apply.register
def _(ev: MoveMade, room, at, after, seq):
    before = room.round
    state = after if after is not None else apply(before, ev.seat, ev.action)[0]
    room = replace(room, round=state, moved_seq=seq)
    if ev.origin == "player" and room.seats[ev.seat].kind == "human":
        room = _seat(room, ev.seat, timeouts=0)
    if state.turn.seat != before.turn.seat or state.turn_no != before.turn_no:
        room = replace(room, turn_started_at=at)
    return room


@_apply.register
def _(ev: RoundScored, room, at, after, seq):
    return replace(room, match=record_round(room.match, room.round))


@_apply.register
def _(ev: MatchEnded, room, at, after, seq):
    return replace(room, status="finished")


@_apply.register
def _(ev: ChatSent, room, at, after, seq):
    return room
