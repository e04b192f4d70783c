"""Room aggregate → the client's messages (RoomInfo, WatchResponse), per audience.

``seat`` is the reader: a seat number for a seat token's holder, ``None`` for a
spectator. The join code goes to seated readers only; events are redacted by
``domain.for_seat``.
"""

from __future__ import annotations

from hand.v1 import room_pb2
from hand.v1 import room_service_pb2 as pb
from hand_engine import view
from hand_engine.match import standings
from hand_rules.convert import options_to_proto, view_to_proto

from .domain import Recorded, Room, for_seat, level_to_proto, standing_to_proto, to_proto

_KIND = {"empty": room_pb2.SEAT_KIND_EMPTY, "human": room_pb2.SEAT_KIND_HUMAN, "bot": room_pb2.SEAT_KIND_BOT}
_STATUS = {"waiting": room_pb2.ROOM_STATUS_WAITING, "playing": room_pb2.ROOM_STATUS_PLAYING,
           "finished": room_pb2.ROOM_STATUS_FINISHED}


def room_info(room: Room, seat: int | None = None) -> room_pb2.RoomInfo:
    info = room_pb2.RoomInfo(
        room_id=room.room_id, join_code=room.code if seat is not None else "",
        visibility=room_pb2.ROOM_VISIBILITY_PUBLIC if room.public else room_pb2.ROOM_VISIBILITY_PRIVATE,
        preset=room.preset, options=options_to_proto(room.options), seat_count=room.n,
        host_seat=room.host_seat, status=_STATUS[room.status],
        round_no=room.round.round_no if room.round is not None else 0,
        next_seq=room.seq, turn_seconds=int(room.turn_seconds),
    )
    for i, s in enumerate(room.seats):
        info.seats.add(seat=i, kind=_KIND[s.kind], name=s.name, bot_level=level_to_proto(s.bot_level),
                       away=s.away)
    if room.match is not None:
        info.standings.extend(standing_to_proto(st) for st in standings(room.match))
        info.winners.extend(room.match.winners)
    return info


def _with_room(msg: pb.WatchResponse, room: Room, seat: int | None) -> pb.WatchResponse:
    msg.room.CopyFrom(room_info(room, seat))
    if room.round is not None:
        msg.view.CopyFrom(view_to_proto(view(room.round, seat), room.options))
    return msg


def snapshot_message(room: Room | None, next_seq: int, seat: int | None) -> pb.WatchResponse:
    """The first message of a stream: the room just before event ``next_seq``."""
    msg = pb.WatchResponse(snapshot=pb.WatchSnapshot(next_seq=next_seq))
    return msg if room is None else _with_room(msg, room, seat)


def event_message(room_after: Room, rec: Recorded, seat: int | None) -> pb.WatchResponse:
    """One event for ``seat``'s stream, with the room and view after it."""
    return _with_room(pb.WatchResponse(event=to_proto(for_seat(rec, seat))), room_after, seat)
