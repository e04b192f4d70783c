"""``room_info(room, seat)``: a room's public description (``hand.v1.RoomInfo``).

One rendering for every reader of a room: the room service's RPCs and Watch
streams, and the ledger's replays. ``seat`` is the reader (None: a
spectator); the join code goes to seated readers only. The seating (each seat's team,
partner and the seat after it; the round's dealer and first player) comes from the
engine's rules (docs/rules.md §2). ``now`` (the server's
clock, for the client's skew estimate) is stamped by the room service's
answers and Watch messages, never by a replay.
"""

from __future__ import annotations

from hand.v1 import room_pb2
from hand_engine import partner_of, seat_after, standings, unit_of
from hand_table import Room

from ..engine import options_to_proto
from .events import level_to_proto, standing_to_proto

_KIND = {"empty": room_pb2.SEAT_KIND_EMPTY, "human": room_pb2.SEAT_KIND_HUMAN, "bot": room_pb2.SEAT_KIND_BOT}
_STATUS = {"waiting": room_pb2.ROOM_STATUS_WAITING, "playing": room_pb2.ROOM_STATUS_PLAYING,
           "finished": room_pb2.ROOM_STATUS_FINISHED}


def turn_deadline(room: Room) -> float | None:
    """When the running turn ends (Unix seconds, the server's clock): the turn's start plus
    ``turn_seconds``, the moment the turn timer plays the seat's automatic turn (a seat a bot
    plays gets a grace beyond it, ``TurnTimers.bot_grace_s``); None while no turn runs."""
    if room.seat_to_move() is None:
        return None
    return room.turn_started_at + room.turn_seconds


def room_info(room: Room, seat: int | None = None, now: float | None = None) -> room_pb2.RoomInfo:
    info = room_pb2.RoomInfo(
        room_id=room.room_id, join_code=room.code if seat is not None else "",
        visibility=room_pb2.ROOM_VISIBILITY_PUBLIC if room.public else room_pb2.ROOM_VISIBILITY_PRIVATE,
        preset=room.preset, options=options_to_proto(room.options), seat_count=room.n,
        host_seat=room.host_seat, status=_STATUS[room.status],
        round_no=room.round.round_no if room.round is not None else 0,
        next_seq=room.seq, turn_seconds=int(room.turn_seconds),
    )
    partnership = room.options.partnership
    for i, s in enumerate(room.seats):
        info.seats.add(seat=i, kind=_KIND[s.kind], name=s.name, bot_level=level_to_proto(s.bot_level),
                       away=s.away, next_seat=seat_after(i, room.n),
                       team=unit_of(i, True) if partnership else None, partner=partner_of(i, partnership))
    if room.round is not None:  # the current round's (after the match, the last round's)
        info.dealer, info.first_player = room.round.dealer, room.round.starter
    if room.match is not None:
        info.standings.extend(standing_to_proto(st) for st in standings(room.match))
        info.winners.extend(room.match.winners)
    deadline = turn_deadline(room)
    if deadline is not None:
        info.turn_deadline.FromNanoseconds(round(deadline * 1e9))
    if now is not None:
        info.server_time.FromNanoseconds(round(now * 1e9))
    return info
