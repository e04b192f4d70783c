"""The handlers of a room before and around its match: create, join, leave, remove a player,
fill with bots, start the match."""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

from hand_engine import MATCH_SECRET_BYTES, drawn_seat_seed, check_seat_seed, commitment

from .commands import Command, CreateRoom
from .errors import RoomCode, RoomError
from .events import BOT_LEVELS, STAND_IN_LEVEL, MatchStarted, RoomCreated, SeatAway, SeatLeft, SeatTaken
from .guards import host_seat, seat_of, waiting
from .outcome import Decision
from .room import Room
from .match_play import deal, fair_version

if TYPE_CHECKING:  # decide's rules port (decision.py imports this module's handlers)
    from .decision import RulesPort


def new_match_secret() -> bytes:
    """The room's match secret, drawn before any seat seed is taken (decision 0034)."""
    return secrets.token_bytes(MATCH_SECRET_BYTES)


def _seat_seed(sent: str | None, match_secret: bytes, seat: int) -> str:
    """The seat's seed for the deals: the player's (checked), or one drawn for it — derived from
    the committed match secret where the room has one, so the owner cannot pick it (0034)."""
    if sent is not None:
        return check_seat_seed(sent)
    return drawn_seat_seed(match_secret, seat) if match_secret else secrets.token_hex(16)


def _fixed_seed(room: Room, player_id: str, sent: str | None, seat: int) -> str:
    """A player's seat seed is fixed for the room the first time they sit down (decision 0033):
    joining again reuses it; a different one is refused, so leaving and joining cannot churn it."""
    first = room.seed_of(player_id)
    if first is None:
        return _seat_seed(sent, room.match_secret, seat)
    if sent is not None and sent != first:
        raise RoomError(RoomCode.SEAT_SEED_FIXED, "your seat seed for this room is fixed", field="seat_seed")
    return first


def _seed_at_start(room: Room, host: int, sent: str | None) -> tuple[int | None, str]:
    """The host's own seed given with StartMatch (decision 0035): after ``room_created``'s
    commitment, so the owner drew its match secret without knowing it. Taken only where the
    host's seed so far is the one the owner drew for it from that secret (the host sent none
    with CreateRoom); the same seed again changes nothing; any other is SEAT_SEED_FIXED (0033)."""
    if sent is None:
        return None, ""
    seed, current = check_seat_seed(sent), room.seats[host].seat_seed
    if seed == current:
        return None, ""
    if not room.match_secret or current != drawn_seat_seed(room.match_secret, host):
        raise RoomError(RoomCode.SEAT_SEED_FIXED, "your seat seed for this room is fixed", field="seat_seed")
    return host, seed


async def on_create(d: Decision, cmd: Command, rules: RulesPort) -> None:
    body: CreateRoom = cmd.body
    secret = new_match_secret()  # committed in the public room_created, before any seat seed is taken
    d.add(RoomCreated(code=body.code, public=body.public, preset=body.preset, options=body.options,
                      turn_seconds=body.turn_seconds, waiting_ttl_s=body.waiting_ttl_s,
                      deal_commitment=commitment(secret) if secret else b"", match_secret=secret))
    d.add(SeatTaken(seat=0, kind="human", name=body.player_name, player_id=body.player_id,
                    token_hash=body.token_hash, seat_seed=_seat_seed(body.seat_seed, secret, 0)))
    d.seat = 0


async def on_join(d: Decision, cmd: Command, rules: RulesPort) -> None:
    room, body = d.room, cmd.body
    waiting(room)
    free = room.free_seats()
    if not free:
        raise RoomError(RoomCode.ROOM_FULL, "no free seat", seats=room.n)
    if body.wanted_seat is not None and body.wanted_seat not in free:
        raise RoomError(RoomCode.SEAT_TAKEN, "that seat is taken", seat=body.wanted_seat)
    seat = free[0] if body.wanted_seat is None else body.wanted_seat
    d.add(SeatTaken(seat=seat, kind="human", name=body.player_name, player_id=body.player_id,
                    token_hash=body.token_hash, seat_seed=_fixed_seed(room, body.player_id, body.seat_seed, seat)))
    d.seat = seat


async def on_leave(d: Decision, cmd: Command, rules: RulesPort) -> None:
    room = d.room
    seat = seat_of(room, cmd)
    if room.status == "waiting":
        d.add(SeatLeft(seat=seat))
    elif not room.seats[seat].away:
        d.add(SeatAway(seat=seat, reason="left", bot_level=STAND_IN_LEVEL))
    d.seat = seat


async def on_remove(d: Decision, cmd: Command, rules: RulesPort) -> None:
    room, body = d.room, cmd.body
    host = host_seat(room, cmd)
    waiting(room)
    if body.seat == host:  # the host leaves with LeaveRoom, never by freeing its own seat
        raise RoomError("INVALID_ARGUMENT", "the host cannot remove its own seat", field="seat",
                        seat=body.seat, host_seat=host)
    if not 0 <= body.seat < room.n:
        raise RoomError("INVALID_ARGUMENT", "not a seat of the room", field="seat", min=0, max=room.n - 1)
    if room.seats[body.seat].kind == "empty":
        raise RoomError(RoomCode.SEAT_EMPTY, "that seat is free already", seat=body.seat)
    d.add(SeatLeft(seat=body.seat))
    d.seat = body.seat


async def on_fill(d: Decision, cmd: Command, rules: RulesPort) -> None:
    room, body = d.room, cmd.body
    host_seat(room, cmd)
    waiting(room)
    if body.level not in BOT_LEVELS:
        raise RoomError("INVALID_ARGUMENT", "unknown bot level", field="level", allowed=",".join(BOT_LEVELS))
    for seat in room.free_seats():
        d.add(SeatTaken(seat=seat, kind="bot", bot_level=body.level, name=f"bot-{seat}",
                        seat_seed=_seat_seed(None, room.match_secret, seat)))


async def on_start(d: Decision, cmd: Command, rules: RulesPort) -> None:
    room, body = d.room, cmd.body
    host = host_seat(room, cmd)
    waiting(room)
    if room.free_seats():
        raise RoomError(RoomCode.NOT_ENOUGH_PLAYERS, "every seat must be filled (add bots?)",
                        free=len(room.free_seats()))
    starter, own = _seed_at_start(room, host, body.seat_seed)
    # a fixed seed (tournaments, tests) deals as before (version 0: nothing to commit to, the
    # seed's holder knows every deck); otherwise every round is provably fair (decision 0022)
    d.add(MatchStarted(seed=secrets.randbits(63) if body.seed is None else body.seed,
                       deal_version=0 if body.seed is not None else fair_version(room),
                       starter_seat=starter, starter_seat_seed=own))
    await deal(d, rules)
