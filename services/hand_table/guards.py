"""The checks a handler makes before it decides: whose seat, the host, the room's phase, the turn."""

from __future__ import annotations

from .commands import Command
from .errors import RoomCode, RoomError
from .room import Room


def seat_of(room: Room, cmd: Command) -> int:
    if cmd.seat is None or not 0 <= cmd.seat < room.n or room.seats[cmd.seat].kind != "human":
        raise RoomError(RoomCode.SEAT_TOKEN_INVALID, "this seat token is not valid for this room")
    return cmd.seat


def host_seat(room: Room, cmd: Command) -> int:
    seat = seat_of(room, cmd)
    if seat != room.host_seat:
        raise RoomError(RoomCode.NOT_HOST, "only the host can do that", host_seat=room.host_seat, seat=seat)
    return seat


def waiting(room: Room) -> None:
    if room.status != "waiting":
        raise RoomError(RoomCode.MATCH_STARTED, "the match has started", status=room.status)


def playing(room: Room) -> None:
    if room.status != "playing" or room.round is None:
        raise RoomError(RoomCode.MATCH_NOT_STARTED, "the match is not being played", status=room.status)


def current(room: Room, round_no: int, turn_no: int) -> bool:
    r = room.round
    return (room.status == "playing" and r is not None and r.result is None
            and round_no == r.round_no and turn_no == r.turn_no)
