"""Room aggregate → the client's messages (RoomInfo, WatchResponse), per audience.

``seat`` is the reader: a seat number for a seat token's holder, ``None`` for a
spectator. The join code goes to seated readers only; events are redacted by
``hand_table.for_seat``. ``room_info`` is the wire adapter's (``hand_wire.room_info``),
which the ledger's replays render too. Every ``RoomInfo`` here carries the
server's clock (``server_time``) when it is rendered: a Watch event's message is
rendered once per audience as the event arrives, so its stamp is the time it
is sent, give or take the fan-out.
"""

from __future__ import annotations

import time

from hand.v1 import room_events_pb2
from hand.v1 import room_service_pb2 as pb
from hand_engine import view
from hand_wire import view_to_proto, room_info, to_proto

from hand_table import Recorded, Room, for_seat

__all__ = ["EventMessages", "event_message", "room_info", "snapshot_message"]


def _with_room(msg: pb.WatchResponse, room: Room, seat: int | None, info=None) -> pb.WatchResponse:
    msg.room.CopyFrom(info if info is not None else room_info(room, seat, now=time.time()))
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


class EventMessages:
    """One event's Watch messages, one per reader (a seat, or None: spectators), each
    rendered once and sharing what readers have in common: the event where it hides
    nothing from them (``for_seat`` returns it as it is), the room's info for every seated
    reader (it differs for spectators only: the join code). The view is each seat's own."""

    def __init__(self, room_after: Room, rec: Recorded, stored: bytes | None = None) -> None:
        """``stored``: ``encode(rec)`` when the caller holds it (the owner, just after its
        append): the whole event is parsed from it (C) instead of built again (Python)."""
        self.room, self.rec, self.stored = room_after, rec, stored
        self._messages: dict[int | None, pb.WatchResponse] = {}
        self._whole = None  # the event's RoomEvent, for the readers it hides nothing from
        self._infos: dict[bool, object] = {}  # seated → RoomInfo

    def message(self, seat: int | None) -> pb.WatchResponse:
        msg = self._messages.get(seat)
        if msg is None:
            shown = for_seat(self.rec, seat)
            if shown is self.rec:
                if self._whole is None:  # parsed from the appended bytes where the owner has them
                    self._whole = (to_proto(shown) if self.stored is None
                                   else room_events_pb2.RoomEvent.FromString(self.stored))
                event = self._whole
            else:
                event = to_proto(shown)
            seated = seat is not None
            info = self._infos.get(seated)
            if info is None:
                info = self._infos[seated] = room_info(self.room, seat, now=time.time())
            msg = self._messages[seat] = _with_room(pb.WatchResponse(event=event), self.room, seat, info)
        return msg
